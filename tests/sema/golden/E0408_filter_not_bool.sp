// expect: 3:35: error[E0408]: a filter condition must be bool, found 'int'
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes().filter(dist)) {
        v.dist = 1;
    }
}
