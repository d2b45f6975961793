// expect: 5:13: error[E0301]: 'dist' is a 'propNode<int>', not a value
// expect: 6:12: error[E0301]: cannot copy 'rank' (a 'propNode<float>') into 'dist' (a 'propNode<int>')
// expect: 10:22: error[E0301]: type mismatch for 'n': expected 'node', found 'edge'
function F(Graph g, propNode<int> dist, propNode<float> rank) {
    int x = dist;
    dist = rank;
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            node n = e;
        }
    }
}
