// expect: 4:18: error[E0413]: 'U.currentBatch()' is only available inside 'Batch (U : ...)'
// currentBatch() is the batch a Batch body is processing.
Incremental(Graph g, propNode<bool> seen, updates<g> U) {
    forall (u in U.currentBatch()) {
        u.destination.seen = True;
    }
}
