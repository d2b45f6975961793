// SYCL backend test: each reduction operator on a scalar (sycl::reduction) and on properties
// (atomic_ref helpers), Min/Max of every type, a locked Min with a secondary target.
function Ops(Graph g, propNode<float> prodF, propNode<int> andI, propNode<long> orL, propNode<double> minD, propNode<float> maxF, propNode<bool> anyB, propNode<int> dist, propNode<node> parent) {
    g.attachNodeProperty(prodF = 1, andI = -1, orL = 0, minD = INF, maxF = -INF, anyB = False, dist = INF, parent = -1);
    double product = 1;
    long bits = 0;
    int mask = -1;
    float least = INF;
    int count = 0;
    forall (v in g.nodes()) {
        product *= 1.5;
        bits |= v;
        mask &= v + 8;
        count++;
        forall (w in g.neighbors(v)) {
            w.prodF *= 2;
            w.andI &= v;
            w.orL |= v;
            w.minD = Min(w.minD, v + 0.25);
            w.maxF = Max(w.maxF, v * 1.5);
            w.anyB |= (v > w);
            <w.dist, w.parent> = <Min(w.dist, v + 1), v>;
        }
    }
    forall (v in g.nodes()) {
        least = Min(least, v + 0.5);
    }
    return product + bits + mask + least + count;
}
