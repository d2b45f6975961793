// SYCL backend test: one scalar updated with two operators in a kernel (not exclusive, so
// atomics, not sycl::reduction) and a Min on a float property (atomic_ref fetch_min).
function Mixed(Graph g, propNode<float> best) {
    g.attachNodeProperty(best = INF);
    long total = 0;
    forall (v in g.nodes()) {
        total += 10;
        total -= 3;
    }
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            <w.best> = <Min(w.best, v + 0.5)>;
        }
    }
    return total;
}
