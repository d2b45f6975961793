// Refused by MPI on purpose (E0501 at the query): g.is_an_edge from a node parameter inside a
// forall. A rank holds only the rows of its own vertices and their neighbours, and 'hub' is
// neither (degrees, which every rank keeps, are answered: anywhere_degree.sp).
function AnywhereRow(Graph g, propNode<int> grand, node hub) {
    forall (v in g.nodes()) {
        if (g.is_an_edge(hub, v)) {
            v.grand = v * 100;
        }
    }
}
