// expect: 8:1: error[E0413]: a file has one Dynamic function, and 'A' (line 3) is the first
// The run executes the one Dynamic function over the update stream.
Dynamic A(Graph g, propNode<int> p, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
Dynamic B(Graph g, propNode<int> p, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRDel(U);
    }
}
