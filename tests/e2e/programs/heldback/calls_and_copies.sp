// Functions calling functions (the callee launches foralls and returns a value), node
// parameters passed through, whole-property copies a = b between foralls, and a program that
// returns a value computed from a copy.
function Spread(Graph g, propNode<int> src, propNode<int> dst) {
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.dst += v.src;
        }
    }
}

function Weigh(Graph g, propNode<int> x, node pick) {
    long s = 0;
    forall (v in g.nodes()) {
        s += v.x;
    }
    return s + pick.x;
}

function CallsAndCopies(Graph g, propNode<int> a, propNode<int> b, propNode<int> c, node pick) {
    g.attachNodeProperty(a = 1, b = 0, c = 0);
    Spread(g, a, b);
    c = b;
    Spread(g, c, a);
    b = a;
    long w = Weigh(g, b, pick);
    forall (v in g.nodes()) {
        v.c = v.c + v.b * 2;
    }
    return w;
}
