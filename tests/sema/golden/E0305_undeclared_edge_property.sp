// expect: 9:50: error[E0305]: edge property 'capacity' is not declared
// expect: 18:41: error[E0305]: edge property 'weight' is not declared
// Only 'weight' is implicit (the graph file's weights, issue 16); any other edge property
// must be declared, and so must 'weight' in a function that another calls.
function Compute_SSSP(Graph g, propNode<int> dist, node src) {
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            edge e = g.get_edge(v, nbr);
            <nbr.dist> = <Min(nbr.dist, v.dist + e.capacity)>;
        }
    }
    relax(g, dist);
}
function relax(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            edge e = g.get_edge(v, nbr);
            <nbr.dist> = <Min(nbr.dist, e.weight)>;
        }
    }
}
