// A fixedPoint that must stay topology-driven: its flag is also cleared by a computed value,
// and an unfiltered kernel in the body needs every vertex each round.
function frontier_unsafe(Graph g, propNode<int> dist, propEdge<int> weight, node src) {
    propNode<bool> modified;
    propNode<int> rounds;
    g.attachNodeProperty(dist = INF, modified = False, rounds = 0);
    src.modified = True;
    src.dist = 0;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
        forall (v in g.nodes()) {
            v.rounds = v.rounds + 1;
        }
    }
}
