// Refused by MPI on purpose (E0501 at the query): g.is_an_edge in host code. Every rank runs
// the host code, and only the owner of 'hub' holds its row.
function HostEdge(Graph g, propNode<int> mark, node hub, node other) {
    int linked = 0;
    if (g.is_an_edge(hub, other)) {
        linked = 1;
    }
    forall (v in g.nodes()) {
        v.mark = linked;
    }
}
