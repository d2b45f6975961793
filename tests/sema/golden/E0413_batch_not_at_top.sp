// expect: 5:9: error[E0413]: 'Batch' must be a statement of the Dynamic function's body, not inside a loop, a branch or another Batch
// The graph changes inside a Batch: it is a statement of the Dynamic function's own body.
Dynamic D(Graph g, updates<g> U, int n, bool go) {
    if (go) {
        Batch (U : n) {
            g.updateCSRDel(U);
        }
    }
}
