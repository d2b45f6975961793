// StarPlat's sssp_dslV3: the convergence property is carried by a second property that the
// body swaps in at host level (modified = modified_nxt) and clears (attach), plus a host
// element write of the fixedPoint property inside its fixedPoint.
function Compute_SSSP(Graph g, propNode<int> dist, propEdge<int> weight, node src) {
    propNode<bool> modified;
    propNode<bool> modified_nxt;
    g.attachNodeProperty(dist = INF, modified = False, modified_nxt = False);
    src.modified = True;
    src.dist = 0;
    bool finished = False;
    int rounds = 0;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified_nxt> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
        modified = modified_nxt;
        g.attachNodeProperty(modified_nxt = False);
        rounds = rounds + 1;
        if (rounds == 1) {
            src.modified = True;   // one extra round from the source: changes nothing
        }
    }
    forall (v in g.nodes()) {
        v.dist = v.dist + 0 * rounds;
    }
}
