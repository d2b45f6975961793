// g.count_outNbrs of a node parameter and of out-neighbours inside a forall: MPI answers both
// from the out-degrees every rank keeps for every vertex, without any ghost row (it once
// returned 0 for rows a rank did not hold, then refused the parameter's). Each vertex gets the
// hub's out-degree and the sum of its out-neighbours' out-degrees.
function AnywhereDegree(Graph g, propNode<int> grand, propNode<long> reach, node hub) {
    forall (v in g.nodes()) {
        v.grand = v * 100 + g.count_outNbrs(hub);
        long total = 0;
        for (w in g.neighbors(v)) {
            total = total + g.count_outNbrs(w);
        }
        v.reach = total;
    }
}
