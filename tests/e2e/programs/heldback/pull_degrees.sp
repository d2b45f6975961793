// Pull-style loops over g.nodes_to(v) and degree queries of a neighbour: each vertex sums,
// over its in-neighbours u, u's out- and in-degree (count_outNbrs / count_inNbrs of another
// rank's vertex) and the largest in-neighbour id; a second forall pushes those sums back along
// out-edges with +=. Returns the total in-degree, counted twice over (a host-level check).
function PullDegrees(Graph g, propNode<long> inSum, propNode<int> topIn, propNode<long> back) {
    g.attachNodeProperty(inSum = 0, topIn = -1, back = 0);
    forall (v in g.nodes()) {
        long s = 0;
        int top = -1;
        for (u in g.nodes_to(v)) {
            s = s + g.count_outNbrs(u) * 1000 + g.count_inNbrs(u);
            if (u > top) {
                top = u;
            }
        }
        v.inSum = s;
        v.topIn = top;
    }
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.back += v.inSum % 1000;
        }
    }
    long total = 0;
    forall (v in g.nodes()) {
        total += g.count_inNbrs(v) + g.count_outNbrs(v);
    }
    return total;
}
