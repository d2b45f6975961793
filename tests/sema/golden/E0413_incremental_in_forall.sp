// expect: 12:13: error[E0413]: 'Incremental' cannot be called inside a forall: it runs on the whole graph
// The incremental step is a whole-graph algorithm: it runs once, not per vertex.
Incremental(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        v.dist = 0;
    }
}
Dynamic D(Graph g, propNode<int> dist, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
        forall (v in g.nodes()) {
            Incremental(g, dist);
        }
    }
}
