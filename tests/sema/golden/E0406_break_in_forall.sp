// expect: 5:13: error[E0406]: 'break' in a forall
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        if (v.dist > 5) {
            break;
        }
        for (w in g.neighbors(v)) {
            break;
        }
    }
}
