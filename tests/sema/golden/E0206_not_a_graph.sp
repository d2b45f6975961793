// expect: 4:13: error[E0206]: 'k' is not a graph
// expect: 5:18: error[E0206]: 'k' is not a graph
function F(Graph g, int k) {
    int n = k.num_nodes();
    forall (v in k.nodes()) {
    }
}
