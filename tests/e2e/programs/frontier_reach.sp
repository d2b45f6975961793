// Data-driven fixedPoint with plain flag sets (no Min): hop distance by rounds, where a vertex
// joins the next round's frontier once, from however many neighbours reach it.
function frontier_reach(Graph g, propNode<int> hops, node src) {
    propNode<bool> active;
    g.attachNodeProperty(hops = -1, active = False);
    src.active = True;
    src.hops = 0;
    bool done = False;
    fixedPoint until (done : !active) {
        forall (v in g.nodes().filter(active == True)) {
            forall (w in g.neighbors(v)) {
                if (w.hops == -1) {
                    w.hops = v.hops + 1;
                    w.active = True;
                }
            }
        }
    }
}
