// The first forall reads nxt after 'out = nxt' and before the second rewrites it: it must
// see the copied values, so the copy must stay a copy.
function swap_read_after(Graph g, int rounds, propNode<int> out, propNode<int> seen) {
    propNode<int> nxt;
    g.attachNodeProperty(out = 0, nxt = 0, seen = 0);
    int r = 0;
    while (r < rounds) {
        forall (v in g.nodes()) {
            v.seen = v.seen + v.nxt;
        }
        forall (v in g.nodes()) {
            v.nxt = v.out + g.count_inNbrs(v) + 1;
        }
        out = nxt;
        r = r + 1;
    }
}
