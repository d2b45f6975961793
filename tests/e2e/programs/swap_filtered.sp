// The writer of nxt runs only where pick holds, so 'out = nxt' must stay a copy: a swap
// would hand the other vertices the values out had a round before.
function swap_filtered(Graph g, int rounds, propNode<int> out) {
    propNode<int> nxt;
    propNode<bool> pick;
    g.attachNodeProperty(out = 0, nxt = 5, pick = False);
    forall (v in g.nodes()) {
        if (g.count_outNbrs(v) > 1) {
            v.pick = True;
        }
    }
    int r = 0;
    while (r < rounds) {
        forall (v in g.nodes().filter(pick == True)) {
            v.nxt = v.out + g.count_inNbrs(v) + 1;
        }
        out = nxt;
        r = r + 1;
    }
}
