// expect: 6:9: error[E0413]: 'updateCSRDel' after 'updateCSRAdd' (line 5): a batch's deletions are applied before its additions
// A batch's deletions are applied before its additions.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
        g.updateCSRDel(U);
    }
}
