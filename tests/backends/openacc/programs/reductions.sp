// OpenACC backend test: a reduction clause per operator (+ - * & | Min Max, bools), and a neighbour loop
// that only counts (its variable unused).
function Red(Graph g, propNode<int> dummy) {
    g.attachNodeProperty(dummy = 0);
    int s = 5;
    long p = 1;
    int a = -1;
    long o = 0;
    float mn = INF;
    double mx = -INF;
    int d = 100;
    bool all = True;
    bool any = False;
    int imin = INF;
    forall (v in g.nodes()) {
        s += v;
        d -= v;
        a &= v + 7;
        o |= v;
        mn = Min(mn, v * 0.5);
        mx = Max(mx, v + 0.25);
        imin = Min(imin, v + 3);
        all &= (v < 100);
        any |= (v == 2);
        forall (w in g.neighbors(v)) {
            p *= 2;
        }
    }
    long r = s + d + a + o + imin + p;
    if (all) { r = r + 1000; }
    if (any) { r = r + 10000; }
    if (mn < 1) { r = r + 100000; }
    if (mx > 3) { r = r + 1000000; }
    return r;
}
