// Round-trip sample: most statement and expression forms of the language in one file.
function Stats(Graph g, propNode<int> dist, propEdge<int> weight, SetN<g> sources, long big) {
    propNode<double> score;
    propNode<int> best;
    propEdge<bool> used;
    g.attachNodeProperty(score = 0.5, dist = INF, best = INF);
    g.attachEdgeProperty(used = False);
    int lo = minWt(weight);
    int hi = maxWt(weight);
    double total = 0;
    long acc = big * 2;
    int i = 0, j = 10;
    for (s in sources) {
        s.dist = 0;
    }
    forall (e in g.edges()) {
        node a = e.source;
        node b = e.destination;
        if (a < b && !(e.weight > hi) || e.weight == lo) {
            e.used = True;
        }
    }
    forall (v in g.nodes().filter(dist != INF)) {
        v.score = v.score * 2.0 - 1 / 3;
        total += v.score;
        acc *= 1;
        for (w in g.nodes_to(v)) {
            edge e2 = g.get_edge(w, v);
            v.score = Max(v.score, w.score + e2.weight);
        }
        v.dist = Min(v.dist, -INF + 1);
        forall (w in g.neighbors(v)) {
            <w.best> = <Min(w.best, v.dist + g.get_edge(v, w).weight)>;
            w.best = Min(w.best, 0);
        }
    }
    while (i < j) {
        i++;
        j--;
        if (i % 3 == 0) {
            continue;
        }
        {
            int k = i;
            k /= 2;
            j -= k;
        }
    }
    do {
        i = i - 1;
        if (i < -5) {
            break;
        }
    } while (i > 0);
    bool any = False;
    any |= i > 3;
    any &= True;
    double r = Scale(total, 3);
    Report(g, dist);
    if (any) {
        r = r + 1;
    }
    return r + acc;
}

function Scale(double x, int k) {
    if (k == 0) {
        return 0;
    }
    return x * k;
}

function Report(Graph g, propNode<int> dist) {
    int n = g.num_nodes() + g.num_edges();
    forall (v in g.nodes()) {
        if (g.is_an_edge(v, v) && g.count_inNbrs(v) > 0) {
            v.dist = v.dist + n % 7;
        }
    }
}
