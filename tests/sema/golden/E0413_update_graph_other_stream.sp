// expect: 6:24: error[E0413]: 'updateCSRAdd' applies the batch of the enclosing 'Batch (U : ...)': write 'g.updateCSRAdd(U)'
// updateCSRAdd applies the batch being processed: its argument is the Batch's stream.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        updates<g> added = U.currentBatch(1);
        g.updateCSRAdd(added);
    }
}
