// expect: 7:5: error[E0413]: a Dynamic function has one 'Batch'; the first is at line 4
// One Batch per Dynamic function: a second would walk the stream again.
Dynamic D(Graph g, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRDel(U);
    }
    Batch (U : n) {
        g.updateCSRAdd(U);
    }
}
