// expect: 12:68: note[starplat-compat]: 'weight' is not declared: reading the graph file's edge weights (an implicit 'propEdge<int> weight' parameter)
// StarPlat's SSSP reads e.weight without declaring it; one note per function, at the first read.
function Compute_SSSP(Graph g, propNode<int> dist, node src) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = INF, modified = False);
    src.dist = 0;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes()) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
    }
    forall (e in g.edges()) {
        src.dist += e.weight;
    }
}
