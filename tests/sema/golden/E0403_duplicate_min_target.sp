// expect: 8:22: error[E0403]: 'n.dist' is a target twice in one Min assignment
// expect: 9:30: error[E0403]: 'n.flag' is a target twice in one Max assignment
function F(Graph g, propNode<int> dist, propNode<bool> flag, propEdge<int> weight) {
    g.attachNodeProperty(dist = INF, flag = False);
    forall (v in g.nodes()) {
        forall (n in g.neighbors(v)) {
            edge e = g.get_edge(v, n);
            <n.dist, n.dist> = <Min(n.dist, v.dist + e.weight), 1>;
            <n.dist, n.flag, n.flag> = <Max(n.dist, 3), True, False>;
        }
    }
}
