// Folds over a vertex's edges that CUDA's auto schedule bins (analysis/binned.py): a wrapping
// integer sum and product over in-neighbours, a double sum over out-neighbours with a filter,
// and a scalar reduction finished by the vertex's lane.
function Folds(Graph g, propNode<int> a, propNode<long> p, propNode<double> d) {
    g.attachNodeProperty(a = 3, p = 1, d = 0.5);
    int total = 0;
    forall (v in g.nodes()) {
        int s = 0;
        for (u in g.nodes_to(v)) {
            s = s + u.a * 7;
        }
        v.a = s;
        total += s;
    }
    forall (v in g.nodes()) {
        long q = 1;
        for (u in g.nodes_to(v)) {
            q = q * u.p;
        }
        v.p = q + 2;
    }
    forall (v in g.nodes()) {
        double x = 0;
        for (w in g.neighbors(v).filter(a > 2)) {
            x = x + w.d;
        }
        v.d = x;
    }
    return total;
}
