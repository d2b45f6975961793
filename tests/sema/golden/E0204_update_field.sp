// expect: 5:27: error[E0204]: an update has 'source', 'destination' and 'weight', not 'id'
// An update has a source, a destination and (an addition) a weight.
Incremental(Graph g, propNode<int> total, updates<g> added) {
    forall (u in added) {
        u.source.total += u.id;
    }
}
