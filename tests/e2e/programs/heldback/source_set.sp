// A SetN iterated at host level: per source, a forall over its out-neighbours' rows marks
// two hops, a single-element read and write of the source, and host scalars accumulated
// across sources (sum of out-degrees read through a forall reduction).
function SourceSet(Graph g, SetN<g> sources, propNode<int> hits, propNode<int> order) {
    g.attachNodeProperty(hits = 0, order = -1);
    int k = 0;
    long degrees = 0;
    for (s in sources) {
        propNode<bool> near;
        g.attachNodeProperty(near = False);
        s.near = True;
        forall (v in g.nodes().filter(near == True)) {
            for (w in g.neighbors(v)) {
                w.hits += 1;
                for (x in g.neighbors(w)) {
                    x.hits += 10;
                }
            }
        }
        s.order = k;
        k = k + 1;
        int d = 0;
        forall (v in g.nodes()) {
            if (v == s) {
                d += g.count_outNbrs(v);
            }
        }
        degrees = degrees + d;
    }
    return degrees * 100 + k;
}
