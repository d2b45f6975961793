// minWt / maxWt read by every vertex inside a forall and by the host: one whole-graph value.
// Every device backend once refused the forall's (E0501), and MPI's host bound was the
// rank's own weights'.
function WeightBounds(Graph g, propNode<int> lo, propNode<int> hi, propEdge<int> weight) {
    forall (v in g.nodes()) {
        v.lo = minWt(weight);
        v.hi = maxWt(weight) - g.count_outNbrs(v);
    }
    int spread = maxWt(weight) - minWt(weight);
    return spread;
}
