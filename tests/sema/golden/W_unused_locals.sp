// expect: 8:9: warning[unused]: 'never' is declared but never read
// expect: 9:9: warning[unused]: 'stored' is declared but never read
// expect: 13:13: warning[unused]: 'inner' is declared but never read
// expect: 15:18: warning[unused]: 'e' is declared but never read
// A local no statement reads: a store ('=', '+=') is not a read; fixedPoint's variable
// and a variable read in its own update are.
function F(Graph g, propNode<int> dist, propNode<bool> modified) {
    int never = 1;
    int stored = 0;
    stored += 2;
    int counted = 0;
    forall (v in g.nodes()) {
        int inner = v.dist;
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            counted += 1;
        }
    }
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            v.modified = False;
        }
    }
    int self = 0;
    self = self + 1;
    return counted;
}
