// expect: 5:13: error[E0407]: return inside a forall
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        if (v.dist > 5) {
            return 1;
        }
    }
    return 0;
}
