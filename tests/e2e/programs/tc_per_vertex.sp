// The ordered triangle count that also counts, per middle vertex, the triangles it closes:
// the per-vertex result names vertex ids, so the graph keeps its numbering (no degree order).
function TC_per_vertex(Graph g, propNode<long> closed) {
    g.attachNodeProperty(closed = 0);
    long triangle_count = 0;
    forall (v in g.nodes()) {
        forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(v).filter(w > v)) {
                if (g.is_an_edge(u, w)) {
                    triangle_count += 1;
                    v.closed += 1;
                }
            }
        }
    }
    return triangle_count;
}
