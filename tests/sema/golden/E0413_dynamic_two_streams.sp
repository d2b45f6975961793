// expect: 3:34: error[E0413]: a Dynamic function takes one update stream, and 'V' is a second 'updates<g>' parameter
// One update stream per run.
Dynamic D(Graph g, updates<g> U, updates<g> V, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
