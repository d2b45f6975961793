// expect: 4:23: error[E0301]: cannot assign a 'int' to 'part' (a 'updates<g>')
// An updates<g> variable holds updates, not a number.
Dynamic D(Graph g, updates<g> U, int n) {
    updates<g> part = n;
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
