// expect: 6:50: error[E0305]: edge property 'weight' is not declared
function Compute_SSSP(Graph g, propNode<int> dist, node src) {
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            edge e = g.get_edge(v, nbr);
            <nbr.dist> = <Min(nbr.dist, v.dist + e.weight)>;
        }
    }
}
