// Single-source shortest paths (Bellman-Ford with an active set); unreachable vertices keep INF.
// Negative weights are fine; a negative cycle src reaches never converges (fixedPoint never ends).
// Run: starc run dsl/sssp.sp -b opencl --graph g.el --src 0
function Compute_SSSP(Graph g, propNode<int> dist, propEdge<int> weight, node src) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = INF, modified = False);
    src.modified = True;
    src.dist = 0;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
    }
}
