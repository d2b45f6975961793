// expect: 4:35: error[E0404]: fixedPoint needs a propNode<bool>, 'dist' is a 'propNode<int>'
function F(Graph g, propNode<int> dist) {
    bool finished = False;
    fixedPoint until (finished : !dist) {
    }
}
