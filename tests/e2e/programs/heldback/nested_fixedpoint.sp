// Nested fixedPoint loops (two flag properties), several foralls per outer iteration and a
// host counter: each outer round labels the weakly connected components of the vertices not
// yet removed (inner fixedPoint, min-label propagation both ways), then removes every
// component's smallest vertex and wakes its neighbours. Returns the number of rounds.
function PeelRoots(Graph g, propNode<node> comp, propNode<int> removedAt) {
    propNode<bool> again;
    propNode<bool> modified;
    propNode<bool> removed;
    g.attachNodeProperty(again = True, removed = False, removedAt = -1);
    int round = 0;
    bool outerDone = False;
    fixedPoint until (outerDone : !again) {
        round = round + 1;
        forall (v in g.nodes()) {
            v.comp = v;
        }
        g.attachNodeProperty(modified = True);
        bool innerDone = False;
        fixedPoint until (innerDone : !modified) {
            forall (v in g.nodes().filter(modified == True)) {
                if (!v.removed) {
                    for (w in g.neighbors(v)) {
                        if (!w.removed) {
                            <w.comp, w.modified> = <Min(w.comp, v.comp), True>;
                        }
                    }
                    for (u in g.nodes_to(v)) {
                        if (!u.removed) {
                            <u.comp, u.modified> = <Min(u.comp, v.comp), True>;
                        }
                    }
                }
            }
        }
        forall (v in g.nodes()) {
            if (!v.removed && v.comp == v) {
                v.removed = True;
                v.removedAt = round;
            }
        }
        forall (v in g.nodes()) {
            if (!v.removed) {
                v.again = True;
            }
        }
    }
    return round;
}
