// Refused by MPI on purpose (E0501 at the query): g.count_inNbrs of a node parameter inside
// a forall. A rank holds only the in-rows of its own vertices and their neighbours, and 'hub'
// is neither (out-degrees, which every rank keeps, are answered: anywhere_degree.sp).
function AnywhereRow(Graph g, propNode<int> grand, node hub) {
    forall (v in g.nodes()) {
        v.grand = v * 100 + g.count_inNbrs(hub);
    }
}
