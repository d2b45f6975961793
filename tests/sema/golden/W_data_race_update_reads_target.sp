// expect: 10:9: warning[data-race]: '+=' on 's' reads 's' in its value, so it is no reduction: other iterations of a forall may update it between the read and the write
// expect: 12:13: warning[data-race]: '-=' on 'v.d' reads 'v.d' in its value, so it is no reduction: other iterations of a forall may update it between the read and the write
// expect: 20:15: warning[data-race]: 's' is read in a forall whose iterations also update it ('+=' at line 19): the value read depends on the order the iterations run
// An update of shared data whose value reads the target is a read and a plain write, not a
// reduction; so is reading a reduced scalar in its loop. In a sequential loop (or on a
// vertex's own element in its forall) the same updates are fine.
function F(Graph g, propNode<int> d) {
    int s = 1;
    forall (v in g.nodes()) {
        s += s + v;
        forall (w in g.neighbors(v)) {
            v.d -= v.d + w;
        }
        for (w in g.neighbors(v)) {
            v.d -= v.d + w;
        }
    }
    forall (v in g.nodes()) {
        s += 1;
        v.d = s;
    }
    for (v in g.nodes()) {
        s += s + v;
    }
    return s;
}
