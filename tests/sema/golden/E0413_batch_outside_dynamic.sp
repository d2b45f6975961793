// expect: 4:5: error[E0413]: 'Batch' is only allowed in a Dynamic function
// A Batch walks the update stream of the run: only the Dynamic function has one.
function F(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRDel(U);
    }
}
