// g.is_an_edge between two vertices neither of which is the work item's: for every vertex v,
// count the ordered pairs (u, w) of distinct in-neighbours of v with an edge u -> w, and the
// out-neighbours w of v that link back (is_an_edge(w, v): a query of w's row).
function RemoteIsAnEdge(Graph g, propNode<int> pairs, propNode<int> mutual) {
    g.attachNodeProperty(pairs = 0, mutual = 0);
    forall (v in g.nodes()) {
        for (u in g.nodes_to(v)) {
            for (w in g.nodes_to(v)) {
                if (u != w && g.is_an_edge(u, w)) {
                    v.pairs += 1;
                }
            }
        }
        for (w in g.neighbors(v)) {
            if (g.is_an_edge(w, v)) {
                v.mutual += 1;
            }
        }
    }
    long allPairs = 0;
    forall (v in g.nodes()) {
        allPairs += v.pairs;
    }
    return allPairs;
}
