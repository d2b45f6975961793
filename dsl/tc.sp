// Triangle counting on an undirected (symmetric) graph: every triangle u < v < w is counted
// once, at its middle vertex v, with a search for the edge u-w (one cursor along u's row).
// Run: starc run dsl/tc.sp -b opencl --graph g.el --undirected
function Compute_TC(Graph g) {
    long triangle_count = 0;
    forall (v in g.nodes()) {
        forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(v).filter(w > v)) {
                if (g.is_an_edge(u, w)) {
                    triangle_count += 1;
                }
            }
        }
    }
    return triangle_count;
}
