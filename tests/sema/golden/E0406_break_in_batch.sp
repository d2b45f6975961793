// expect: 6:9: error[E0406]: 'break' in a Batch
// Every batch of the stream is processed: a Batch has no break.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
        break;
    }
}
