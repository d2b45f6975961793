// Comparisons of a value with itself are legal (v != v is always false) and must build
// where C++ compilers warn about them (issue 32: OpenACC and MPI failed with
// -Werror=tautological-compare; OpenACC printed Max(v.a, v.a)'s update as a
// comparison). A float compared with itself is the NaN test, kept.
function SelfCmp(Graph g, propNode<float> f) {
    long n = 0;
    int x = 3;
    propNode<int> a;
    g.attachNodeProperty(f = 1.5, a = 2);
    if (x >= x) { n += 100; }
    forall (v in g.nodes()) {
        if (v != v) { n += 1; }
        v.a = Max(v.a, v.a);
        n += v.a;
        if (g.count_outNbrs(v) <= g.count_outNbrs(v)) { n += 2; }
        if (v.f != v.f) { n += 7; }
        for (w in g.neighbors(v)) {
            if (w + 1 > w + 1) { n += 5; }
            if (v / 3 == v / 3) { n += 3; }
        }
    }
    return n;
}
