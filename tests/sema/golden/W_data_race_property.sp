// expect: 5:13: warning[data-race]: plain write to 'w.dist' inside a forall: other iterations may write the same element
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.dist = v.dist + 1;
        }
    }
}
