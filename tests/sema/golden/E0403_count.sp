// expect: 5:13: error[E0403]: 2 target(s) but 1 value(s)
function F(Graph g, propNode<int> dist, propNode<bool> modified) {
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + 1)>;
        }
    }
}
