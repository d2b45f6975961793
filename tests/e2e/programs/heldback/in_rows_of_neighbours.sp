// Loops over the in-row of an in-neighbour (g.nodes_to(u) for u in g.nodes_to(v)): a rank
// must hold the in-rows of its ghosts, not only their out-rows. Counts the in-paths of
// length two into each vertex and sums the middle vertices' in-neighbour ids.
function InRowsOfNeighbours(Graph g, propNode<int> twoHops, propNode<long> idSum) {
    g.attachNodeProperty(twoHops = 0, idSum = 0);
    forall (v in g.nodes()) {
        for (u in g.nodes_to(v)) {
            for (x in g.nodes_to(u)) {
                v.twoHops += 1;
                v.idSum += x;
            }
        }
    }
}
