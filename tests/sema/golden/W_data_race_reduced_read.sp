// expect: 11:13: warning[data-race]: 'deg' is read in a forall whose iterations also update it ('-=' at line 13): the value read depends on the order the iterations run
// expect: 22:34: warning[data-race]: 'dist' is read in a forall whose iterations also update it (Min at line 22): the value read depends on the order the iterations run
// expect: 23:22: warning[data-race]: 'cnt' is read in a forall whose iterations also update it ('+=' at line 23): the value read depends on the order the iterations run
function F(Graph g, int k, propNode<int> deg, propNode<int> cnt, propNode<int> dist) {
    g.attachNodeProperty(deg = 0, cnt = 0, dist = INF);
    forall (v in g.nodes()) {
        v.deg = g.count_outNbrs(v);
    }
    // k-core's peeling in a single pass
    forall (v in g.nodes()) {
        if (v.deg < k) {
            forall (w in g.neighbors(v)) {
                w.deg -= 1;
            }
        }
    }
    // own-element updates are fine; a single Min pass reading what it lowers is not, nor is
    // adding v.cnt to others
    forall (v in g.nodes()) {
        v.cnt += v.deg;
        forall (w in g.neighbors(v)) {
            w.dist = Min(w.dist, v.dist + 1);
            w.cnt += v.cnt;
        }
    }
}
function G(Graph g, propNode<int> dist, propNode<bool> changed) {
    // the same relaxation repeated until nothing changes converges: no warning
    g.attachNodeProperty(dist = INF, changed = False);
    bool done = False;
    fixedPoint until (done : !changed) {
        forall (v in g.nodes()) {
            forall (w in g.neighbors(v)) {
                <w.dist, w.changed> = <Min(w.dist, v.dist + 1), True>;
            }
        }
    }
}
