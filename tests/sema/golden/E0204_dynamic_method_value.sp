// expect: 5:17: error[E0204]: 'updateCSRDel' is a statement: it gives no value
// Applying a batch is a statement; it gives no value.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        int x = g.updateCSRDel(U);
    }
}
