// The outer neighbour u is read only as the inner loop's range key (w > u becomes a binary
// search of v's row): every C-family backend once left u undeclared and failed to build.
function RangeKeyOnly(Graph g, propNode<int> pairs) {
    int total = 0;
    forall (v in g.nodes()) {
        for (u in g.neighbors(v)) {
            for (w in g.neighbors(v).filter(w > u)) {
                if (g.is_an_edge(v, w)) {
                    total += 1;
                    v.pairs += 1;
                }
            }
        }
    }
    return total;
}
