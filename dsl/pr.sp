// PageRank, pull formulation, double-buffered: each vertex sums rank/out-degree over its
// in-neighbours; iterate until the sum of absolute changes is at most beta or maxIter rounds.
// delta is the damping factor (0.85 is usual).
// Run: starc run dsl/pr.sp -b opencl --graph g.el --beta 0.001 --delta 0.85 --maxIter 100
function Compute_PR(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank) {
    float numNodes = g.num_nodes();
    propNode<float> pageRank_nxt;
    g.attachNodeProperty(pageRank = 1 / numNodes, pageRank_nxt = 0);
    int iterCount = 0;
    float diff = 0;
    do {
        diff = 0;
        forall (v in g.nodes()) {
            float sum = 0;
            for (nbr in g.nodes_to(v)) {
                sum = sum + nbr.pageRank / g.count_outNbrs(nbr);
            }
            float val = (1 - delta) / numNodes + delta * sum;
            if (val > v.pageRank) {
                diff += val - v.pageRank;
            } else {
                diff += v.pageRank - val;
            }
            v.pageRank_nxt = val;
        }
        pageRank = pageRank_nxt;
        iterCount++;
    } while ((diff > beta) && (iterCount < maxIter));
}
