// Single-source widest path: the largest bottleneck (minimum edge weight along a path) from src
// to every vertex, with a Max assignment over Min(width, weight). src gets INF; unreachable 0.
// Run: starc run dsl/sswp.sp -b opencl --graph g.el --src 0
function Compute_SSWP(Graph g, propNode<int> width, propEdge<int> weight, node src) {
    propNode<bool> modified;
    g.attachNodeProperty(width = 0, modified = False);
    src.width = INF;
    src.modified = True;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.width, nbr.modified> = <Max(nbr.width, Min(v.width, e.weight)), True>;
            }
        }
    }
}
