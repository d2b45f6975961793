// expect: 4:5: error[E0413]: 'OnAdd' is only allowed inside a Batch body
// OnAdd walks the additions of the batch being processed.
Dynamic D(Graph g, propNode<bool> seen, updates<g> U, int n) {
    OnAdd (u in U) : {
        u.destination.seen = True;
    }
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
