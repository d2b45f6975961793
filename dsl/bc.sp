// Betweenness centrality from a set of sources (Brandes), the program of the StarPlat paper.
// For every source: a forward BFS counts shortest paths (sigma, pulled from BFS parents), then a
// reverse sweep accumulates dependencies (delta, pulled from BFS children) into BC.
// Run: starc run dsl/bc.sp -b opencl --graph g.el --sourceSet 0,5,9
function Compute_BC(Graph g, propNode<float> BC, SetN<g> sourceSet) {
    g.attachNodeProperty(BC = 0);
    for (src in sourceSet) {
        propNode<double> sigma;   // doubles, as GAPBS's path counts: a float overflows on
        propNode<double> delta;   // a graph of many levels (4e306 paths across a 512x512 grid)
        g.attachNodeProperty(delta = 0, sigma = 0);
        src.sigma = 1;
        iterateInBFS (v in g.nodes() from src) {
            for (w in g.neighbors(v)) {
                v.sigma = v.sigma + w.sigma;
            }
        }
        iterateInReverse (v != src) {
            for (w in g.neighbors(v)) {
                v.delta = v.delta + (v.sigma / w.sigma) * (1 + w.delta);
            }
            v.BC = v.BC + v.delta;
        }
    }
}
