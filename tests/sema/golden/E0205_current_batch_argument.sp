// expect: 5:27: error[E0205]: 'currentBatch' takes no argument, 0 (the batch's deletions) or 1 (its additions)
// currentBatch() is the whole batch, currentBatch(0) its deletions, currentBatch(1) its additions.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        updates<g> part = U.currentBatch(2);
    }
}
