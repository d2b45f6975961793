// Degrees of any vertex: g.count_outNbrs / g.count_inNbrs of a node parameter and of
// out-neighbours inside a forall, and of the parameter in host code. MPI answers all of them
// from the degrees every rank keeps for every vertex, without any ghost row (it once returned
// 0 for rows a rank did not hold, then refused the parameter's, and its host code read the
// rank's own rows, so ranks disagreed).
function AnywhereDegree(Graph g, propNode<int> grand, propNode<long> reach, node hub) {
    int hubOut = g.count_outNbrs(hub);
    int hubIn = g.count_inNbrs(hub);
    forall (v in g.nodes()) {
        v.grand = v * 100 + g.count_outNbrs(hub) * 10 + g.count_inNbrs(hub);
        long total = 0;
        for (w in g.neighbors(v)) {
            total = total + g.count_outNbrs(w) * 1000 + g.count_inNbrs(w);
        }
        v.reach = total;
    }
    return hubOut * 1000 + hubIn;
}
