// CUDA backend test: every reduction operator on properties and scalars, Min/Max on every type.
function Ops(Graph g, propNode<float> prodF, propNode<int> andI, propNode<long> orL, propNode<double> minD, propNode<float> maxF, propNode<bool> anyB, float scale) {
    g.attachNodeProperty(prodF = 1, andI = -1, orL = 0, minD = INF, maxF = -INF, anyB = False);
    double total = 1;
    bool any = False;
    long bits = 0;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.prodF *= scale;
            w.andI &= v;
            w.orL |= v;
            w.minD = Min(w.minD, v + 0.5);
            w.maxF = Max(w.maxF, v * scale);
            w.anyB |= (v > w);
            total *= 1.5;
            any |= (v == w);
            bits |= v;
        }
    }
    if (any) {
        return total;
    }
    return total + bits;
}
