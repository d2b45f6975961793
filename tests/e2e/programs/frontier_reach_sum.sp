// Data-driven fixedPoint whose frontier kernel appends and reduces at once: hop distance by
// rounds, and the sum of the hops of every round's frontier (each reached vertex counted once,
// in the round it is active) and their largest hop count, as scalar reductions in that kernel.
function frontier_reach_sum(Graph g, propNode<int> hops, node src) {
    propNode<bool> active;
    g.attachNodeProperty(hops = -1, active = False);
    src.active = True;
    src.hops = 0;
    long total = 0;
    int deepest = 0;
    bool done = False;
    fixedPoint until (done : !active) {
        forall (v in g.nodes().filter(active == True)) {
            total += v.hops;
            deepest = Max(deepest, v.hops);
            forall (w in g.neighbors(v)) {
                if (w.hops == -1) {
                    w.hops = v.hops + 1;
                    w.active = True;
                }
            }
        }
    }
    return total * 100000 + deepest;
}
