// nxt is stored only under a condition, so 'out = nxt' must stay a copy.
function swap_conditional(Graph g, int rounds, propNode<int> out) {
    propNode<int> nxt;
    g.attachNodeProperty(out = 0, nxt = 5);
    int r = 0;
    while (r < rounds) {
        forall (v in g.nodes()) {
            if (g.count_outNbrs(v) > 1) {
                v.nxt = v.out + g.count_inNbrs(v) + 1;
            }
        }
        out = nxt;
        r = r + 1;
    }
}
