// expect: 12:14: error[E0204]: 'randSP' is not supported on 'color1' (a 'propNode<float>'): it needs 'propNode<int>' or 'propNode<long>'
// expect: 13:21: error[E0204]: 'combineRandom' is not supported on 'color2' (a 'propNode<int>'): it needs 'propNode<long>'
// expect: 13:36: error[E0204]: 'k' has type 'int', but 'combineRandom' fills node properties
// expect: 14:32: note[starplat-compat]: 'getEdgeLen()': reading the graph file's edge weights (an implicit 'propEdge<int> weight' parameter)
// expect: 15:13: error[E0204]: 'getEdgeLen' is not supported: 'getEdgeLen()' gives the graph's weights only in 'g.attachEdgeProperty(p = g.getEdgeLen())'
// expect: 15:30: error[E0204]: 'randSP' is not supported: 'g.randSP(p, ...)' is a statement: it fills every vertex's 'p' and gives no value
// expect: 17:17: error[E0304]: indexing 'g.inDeg' with '[]' is not supported
// expect: 17:30: error[E0304]: indexing 'k' with '[]' is not supported
// expect: 17:37: error[E0203]: undeclared property 'level'
function F(Graph g, propNode<long> color, propNode<float> color1, propNode<int> color2,
           propNode<int> deg, propEdge<int> cap, int k) {
    g.randSP(color1, color2);
    g.combineRandom(color2, color, k);
    g.attachEdgeProperty(cap = g.getEdgeLen());
    int n = g.getEdgeLen() + g.randSP(color2);
    forall (v in g.nodes()) {
        v.deg = g.inDeg[v] + k[0] + level[v];
    }
}
