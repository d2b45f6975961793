// expect: 9:5: error[E0413]: 'D' is the program's Dynamic function: it runs once, over the update stream, and cannot be called
// The Dynamic function is the run's entry: it takes the whole update stream.
Dynamic D(Graph g, propNode<int> p, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
function F(Graph g, updates<g> U) {
    D(g, U, 1);
}
