// expect: 4:13: error[E0204]: unknown function 'Compute'
// expect: 5:13: error[E0204]: unknown graph built-in 'num_vertices'
function F(Graph g, propNode<int> dist) {
    int n = Compute(g);
    int m = g.num_vertices();
}
