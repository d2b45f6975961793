function Relax(Graph g, propNode<int> dist, propEdge<int> weight, propNode<bool> modified) {
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
            }
        }
    }
}
Static Bounds(Graph g, propNode<int> low, propNode<int> dist, propEdge<int> weight,
              propNode<bool> modified, node src) {
    g.attachNodeProperty(low = 0, dist = INF, modified = False);
    src.dist = 0;
    src.modified = True;
    Relax(g, dist, weight, modified);
    forall (e in g.edges()) {
        node t = e.destination;
        t.low += minWt(weight);
    }
    return maxWt(weight) * 1000 + minWt(weight);
}
Dynamic D(Graph g, propNode<int> low, propNode<int> dist, propEdge<int> weight,
          updates<g> U, int batchSize, node src) {
    propNode<bool> modified;
    int r = Bounds(g, low, dist, weight, modified, src);
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        r = Bounds(g, low, dist, weight, modified, src);
    }
    return r;
}
