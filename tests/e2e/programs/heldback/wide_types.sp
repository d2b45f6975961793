// long, float and double properties and scalars through pushes and pulls: long values above
// 2^32, float and double sums of small dyadic fractions (exact in any order), a double-valued
// Min, and int/long/double promotions in mixed expressions.
function WideTypes(Graph g, propNode<long> big, propNode<float> half, propNode<double> quarter,
                   propNode<double> low) {
    g.attachNodeProperty(big = 0, half = 0, quarter = 0, low = INF);
    long base = 5000000000;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.big += base + v;
            w.half += 0.5;
            w.low = Min(w.low, v * 0.25 + 1);
        }
    }
    forall (v in g.nodes()) {
        double q = 0;
        for (u in g.nodes_to(v)) {
            q = q + u.big / 4.0 + 0.25;
        }
        v.quarter = q;
    }
    double total = 0;
    forall (v in g.nodes()) {
        total += v.half;
    }
    forall (v in g.nodes()) {
        v.quarter = v.quarter + total / 2;
    }
}
