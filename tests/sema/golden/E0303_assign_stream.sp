// expect: 5:9: error[E0303]: cannot assign to the update stream 'U'
// The update stream is the run's input: a part of it goes into a local.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        U = U.currentBatch(1);
        g.updateCSRAdd(U);
    }
}
