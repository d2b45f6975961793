// expect: 5:5: error[E0404]: fixedPoint variable 'finished' must be a bool, not 'int'
// expect: 7:5: error[E0404]: fixedPoint variable 'done' is not declared
function F(Graph g, propNode<bool> modified) {
    int finished = 0;
    fixedPoint until (finished : !modified) {
    }
    fixedPoint until (done : !modified) {
    }
}
