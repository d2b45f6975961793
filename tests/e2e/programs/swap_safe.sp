// 'out = nxt' may be a buffer swap: every round rewrites all of nxt (unfiltered, at the own
// vertex, on every path) before anything reads it, and nothing reads it after the loop.
function swap_safe(Graph g, int rounds, propNode<int> out) {
    propNode<int> nxt;
    g.attachNodeProperty(out = 1, nxt = 7);
    int r = 0;
    while (r < rounds) {
        forall (v in g.nodes()) {
            int s = 0;
            for (u in g.nodes_to(v)) {
                s = s + u.out;
            }
            v.nxt = s % 1000 + v.out;
        }
        out = nxt;
        r = r + 1;
    }
}
