// g.num_edges() in host code and inside a forall: the whole graph's edge count on every
// backend. MPI once gave each rank its own slot count in both places: wrong values, and host
// decisions taken from it (a BFS's direction) that differed between ranks until they waited
// in different collectives.
function EdgeCounts(Graph g, propNode<long> share) {
    long m = g.num_edges();
    forall (v in g.nodes()) {
        v.share = g.num_edges() * 1000 + m + g.count_outNbrs(v);
    }
    return m;
}
