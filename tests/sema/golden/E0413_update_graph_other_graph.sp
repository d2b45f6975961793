// expect: 5:9: error[E0413]: 'U' is an update stream of 'g', not of 'h'
// A stream changes the graph it names.
Dynamic D(Graph g, Graph h, updates<g> U, int n) {
    Batch (U : n) {
        h.updateCSRAdd(U);
    }
}
