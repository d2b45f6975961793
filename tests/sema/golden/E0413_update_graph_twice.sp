// expect: 6:9: error[E0413]: 'updateCSRDel' twice in one batch (first at line 5)
// Each part of a batch is applied once.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRDel(U);
        g.updateCSRDel(U);
    }
}
