// Dynamic PageRank (StarPlat's dynamicBatchPR, issue 31): the ranks of dsl/pr.sp, kept over a
// stream of edge deletions and additions. After a batch is applied the iteration starts again
// from the ranks it had (close to the new ones when the batch is small) instead of from 1/n,
// and stops as dsl/pr.sp does: when a round changes the ranks by at most beta in sum, or after
// maxIter rounds. After every batch the ranks are within the tolerance beta sets of dsl/pr.sp's
// on the updated graph.
// Run: starc run dsl/dynamic/dyn_pr.sp -b reference --graph g.el --updates u.txt
//          --batchSize 100 --beta 0.000001 --delta 0.85 --maxIter 100
function Iterate(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank) {
    float numNodes = g.num_nodes();
    propNode<float> pageRank_nxt;
    g.attachNodeProperty(pageRank_nxt = 0);
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

Static staticPR(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank) {
    float numNodes = g.num_nodes();
    g.attachNodeProperty(pageRank = 1 / numNodes);
    Iterate(g, beta, delta, maxIter, pageRank);
}

Incremental(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank) {
    Iterate(g, beta, delta, maxIter, pageRank);
}

Dynamic DynPR(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank,
              updates<g> updateBatch, int batchSize) {
    staticPR(g, beta, delta, maxIter, pageRank);
    Batch (updateBatch : batchSize) {
        g.updateCSRDel(updateBatch);
        g.updateCSRAdd(updateBatch);
        Incremental(g, beta, delta, maxIter, pageRank);
    }
}
