// Single-source shortest paths on a weighted graph (Bellman-Ford with an active set): vertices
// whose distance improved last round relax their out-edges with a Min assignment.
// Unreachable vertices keep INF (2147483647). Run: starc run dsl/sssp.sp -b opencl --graph g.el --src 0
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
