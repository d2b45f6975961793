// expect: 5:9: error[E0413]: 'propagateNodeFlags' inside a forall: it sets flags of the whole graph
// propagateNodeFlags sets the flags of every vertex reachable from a flagged one.
function F(Graph g, propNode<bool> flag) {
    forall (v in g.nodes()) {
        g.propagateNodeFlags(flag);
    }
}
