// Refused by MPI on purpose (E0501 at the query): g.count_outNbrs of a node parameter inside
// a forall. A rank holds only the rows of its own vertices and their neighbours, and 'hub' is
// neither; before this was refused, MPI silently returned 0 for such rows.
function AnywhereRow(Graph g, propNode<int> grand, node hub) {
    forall (v in g.nodes()) {
        v.grand = v * 100 + g.count_outNbrs(hub);
    }
}
