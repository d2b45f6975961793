// expect: 6:27: error[E0305]: 'u.weight' is the weight an added edge gets in 'weight', and no 'propEdge weight' is declared
// u.weight is the value an added edge gets in 'weight': the property must be in scope (a
// function that another calls gets its weights from its caller).
Incremental(Graph g, propNode<int> total, updates<g> added) {
    forall (u in added) {
        u.source.total += u.weight;
    }
}
Dynamic D(Graph g, propNode<int> total, updates<g> U, int n) {
    Batch (U : n) {
        g.updateCSRAdd(U);
        Incremental(g, total, U.currentBatch(1));
    }
}
