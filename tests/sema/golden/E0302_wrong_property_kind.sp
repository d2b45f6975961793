// expect: 5:18: error[E0302]: 'weight' is a propEdge but 'v' is a node
// expect: 8:9: error[E0302]: 'dist' is a propNode but 'e' is an edge
function F(Graph g, propNode<int> dist, propEdge<int> weight) {
    forall (v in g.nodes()) {
        v.dist = v.weight;
    }
    forall (e in g.edges()) {
        e.dist = 0;
    }
}
