// expect: 5:45: error[E0403]: the first target must be the first argument of Min
function F(Graph g, propNode<int> dist, propNode<bool> modified) {
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            <nbr.dist, nbr.modified> = <Min(v.dist, nbr.dist + 1), True>;
        }
    }
}
