// expect: 6:31: error[E0413]: a deletion has no weight: 'u.weight' inside OnDelete
// A deletion names an edge by its endpoints: it carries no weight.
Dynamic D(Graph g, propEdge<int> weight, propNode<int> total, updates<g> U, int n) {
    Batch (U : n) {
        OnDelete (u in U.currentBatch()) : {
            u.source.total += u.weight;
        }
        g.updateCSRDel(U);
    }
}
