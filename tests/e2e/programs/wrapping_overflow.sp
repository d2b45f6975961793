// Signed overflow wraps on every backend: t < v.d holds after v.d + 5 overflows, and a
// device compiler must not fold it away (issue 32: OpenCL once printed d = INF, wrapped = 0).
function Wrap(Graph g, propNode<int> d, propNode<bool> wrapped, propNode<long> big) {
    g.attachNodeProperty(d = INF, wrapped = False, big = INF);
    forall (v in g.nodes()) {
        int t = v.d + 5;
        if (t < v.d) { v.wrapped = True; }
        v.d = Min(v.d, t);
        long s = v.big * 2;
        v.big = -(s - v);
    }
    long sum = 0;
    forall (v in g.nodes()) {
        sum += v.big;
    }
    return sum;
}
