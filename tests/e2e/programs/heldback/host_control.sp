// Host if/while over scalars computed by reductions, writes to a single vertex (src.p = ...)
// and reads of one at host level (int x = src.p): halve every value above the mean until at
// most a quarter of the vertices are above it, bumping the source each round; returns the
// rounds plus the source's final value.
function HostControl(Graph g, propNode<int> val, node src) {
    forall (v in g.nodes()) {
        v.val = (v * 37 + g.count_outNbrs(v) * 11) % 101;
    }
    int rounds = 0;
    int above = g.num_nodes();
    while (above * 4 > g.num_nodes() && rounds < 20) {
        long total = 0;
        forall (v in g.nodes()) {
            total += v.val;
        }
        long mean = total / g.num_nodes();
        above = 0;
        forall (v in g.nodes()) {
            if (v.val > mean) {
                v.val = v.val / 2;
                above += 1;
            }
        }
        int s = src.val;
        if (s < 50) {
            src.val = s + 3;
        } else {
            src.val = s - 1;
        }
        rounds = rounds + 1;
    }
    int last = src.val;
    return rounds * 1000 + last;
}
