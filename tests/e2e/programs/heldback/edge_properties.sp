// get_edge and edge-property reads: a derived edge property written in a forall over edges
// (at the edge's own source) and read from its own row; the weight of in-edges read through
// g.get_edge(u, v) from the pull side (an edge of another vertex's row); e.source and
// e.destination with a reduction at the destination.
function EdgeProperties(Graph g, propEdge<int> weight, propNode<int> heaviestOut,
                        propNode<long> inWeight, propNode<long> viaEdges, propNode<int> scaledOut) {
    propEdge<int> scaled;
    g.attachNodeProperty(heaviestOut = -1, inWeight = 0, viaEdges = 0, scaledOut = 0);
    forall (e in g.edges()) {
        e.scaled = e.weight * 3 + 1;
    }
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            if (e.weight > v.heaviestOut) {
                v.heaviestOut = e.weight;
            }
            v.scaledOut += e.scaled;
        }
        for (u in g.nodes_to(v)) {
            edge f = g.get_edge(u, v);
            v.inWeight += f.weight;
        }
    }
    forall (e in g.edges()) {
        node d = e.destination;
        d.viaEdges += e.weight + e.source;
    }
}
