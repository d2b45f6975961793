// 'rank = rank;' copies nothing; inside the fixedPoint on 'modified', 'modified = modified'
// carries the current (all false) flags into the next iteration, overriding the attach.
function F(Graph g, propNode<float> rank) {
    g.attachNodeProperty(rank = 1.5);
    rank = rank;
    bool done = False;
    propNode<bool> modified;
    g.attachNodeProperty(modified = False);
    int i = 0;
    fixedPoint until (done : !modified) {
        i = i + 1;
        if (i < 3) {
            g.attachNodeProperty(modified = True);
        }
        modified = modified;
        rank = rank;
        forall (v in g.nodes()) {
            v.rank = v.rank + 1;
        }
    }
}
