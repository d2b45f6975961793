// expect: 10:13: warning[data-race]: 'deg' is read in a forall whose iterations also update it ('-=' at line 12): the value read depends on the order the iterations run
// expect: 21:22: warning[data-race]: 'cnt' is read in a forall whose iterations also update it ('+=' at line 21): the value read depends on the order the iterations run
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
    // own-element updates and a Min relaxation are fine; adding v.cnt to others is not
    forall (v in g.nodes()) {
        v.cnt += v.deg;
        forall (w in g.neighbors(v)) {
            w.dist = Min(w.dist, v.dist + 1);
            w.cnt += v.cnt;
        }
    }
}
