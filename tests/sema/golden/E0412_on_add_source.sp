// expect: 5:21: error[E0412]: 'OnAdd' iterates an 'updates<g>' value ('U.currentBatch()'), not 'g.nodes(...)'
// OnAdd iterates updates, not vertices.
Dynamic D(Graph g, propNode<bool> seen, updates<g> U, int n) {
    Batch (U : n) {
        OnAdd (u in g.nodes()) : {
            u.seen = True;
        }
    }
}
