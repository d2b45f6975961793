// expect: 5:9: warning[data-race]: plain write to 'last', declared outside a forall, may race with other iterations
function F(Graph g, propNode<int> dist) {
    int last = 0;
    forall (v in g.nodes()) {
        last = v.dist;
    }
    return last;
}
