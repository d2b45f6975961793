// expect: 6:13: error[E0413]: 'updateCSRDel' must be a statement of a Batch body (not inside a loop, a branch or another function)
// The graph changes only between the statements of a Batch body.
Dynamic D(Graph g, updates<g> U, int n, bool go) {
    Batch (U : n) {
        if (go) {
            g.updateCSRDel(U);
        }
    }
}
