// expect: 13:13: error[E0303]: cannot write 'w.sigma' inside iterateInBFS: 'w' is a BFS parent of 'v', not a child
// expect: 16:14: error[E0303]: cannot write 'w.d' inside iterateInBFS: 'w' is a BFS parent of 'v', not a child
// expect: 17:13: error[E0303]: cannot write 'w.d' inside iterateInBFS: 'w' is a BFS parent of 'v', not a child
// StarPlat's push-form Brandes: inside iterateInBFS, g.neighbors(v) visits v's BFS parents in
// starc (StarPlat meant the children), so a write to w's property is rejected with the pull
// form; one message for a Min/Max statement, writes in iterateInReverse (children: the same
// meaning in both) and to vertices of other loops are fine.
function F(Graph g, propNode<float> sigma, propNode<int> d, propNode<node> p, node src) {
    g.attachNodeProperty(sigma = 0, d = 0, p = src);
    src.sigma = 1;
    iterateInBFS (v in g.nodes() from src) {
        forall (w in g.neighbors(v)) {
            w.sigma = w.sigma + v.sigma;
            for (u in g.neighbors(w)) { u.d += 1; }
            for (u in g.nodes_to(v)) { u.d += 1; }
            <w.d, w.p> = <Min(w.d, v.d + 1), v>;
            w.d++;
        }
    }
    iterateInReverse (v != src) {
        for (w in g.neighbors(v)) { w.d += v.d; }
    }
}
