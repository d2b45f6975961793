// Max with a secondary target (the flag), a single-target Max with a tie-breaking key and |=
// on a bool at a neighbour (bool Max is rejected by check: E0402): widest-path capacity from
// src (the largest bottleneck weight), a pull-side Max of capacity * n + in-neighbour id (ties
// resolve to the largest id, deterministically), |= at a neighbour (marks the targets of positive
// edges out of every vertex that was ever active), and Min(a, b)
// as a plain expression in the relaxation.
function WidestWithSecondary(Graph g, propEdge<int> weight, propNode<int> cap,
                             propNode<long> tag, propNode<bool> reached, node src) {
    propNode<bool> modified;
    long n = g.num_nodes();
    g.attachNodeProperty(cap = 0, tag = -1, reached = False, modified = False);
    src.cap = INF;
    src.reached = True;
    src.modified = True;
    bool done = False;
    fixedPoint until (done : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            for (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                int through = Min(v.cap, e.weight);
                <w.cap, w.modified> = <Max(w.cap, through), True>;
                w.reached |= (e.weight > 0);
            }
        }
    }
    forall (v in g.nodes()) {
        for (u in g.nodes_to(v)) {
            edge e = g.get_edge(u, v);
            if (u.reached) {
                <v.tag> = <Max(v.tag, Min(u.cap, e.weight) * n + u)>;
            }
        }
    }
}
