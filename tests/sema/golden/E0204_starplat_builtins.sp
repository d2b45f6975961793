// expect: 10:5: error[E0204]: 'randSP' is not supported: StarPlat's unseeded random numbers differ on every run and every backend
// expect: 11:5: error[E0204]: 'combineRandom' is not supported: it packs two random properties into one 'long' (a * 2^32 + b)
// expect: 12:32: note[starplat-compat]: 'getEdgeLen()': reading the graph file's edge weights (an implicit 'propEdge<int> weight' parameter)
// expect: 13:13: error[E0204]: 'getEdgeLen' is not supported: 'getEdgeLen()' gives the graph's weights only in 'g.attachEdgeProperty(p = g.getEdgeLen())'
// expect: 15:17: error[E0304]: indexing 'g.inDeg' with '[]' is not supported
// expect: 15:30: error[E0304]: indexing 'k' with '[]' is not supported
// expect: 15:37: error[E0203]: undeclared property 'level'
function F(Graph g, propNode<long> color, propNode<int> color1, propNode<int> color2,
           propNode<int> deg, propEdge<int> cap, int k) {
    g.randSP(color1, color2);
    g.combineRandom(color, color1, color2);
    g.attachEdgeProperty(cap = g.getEdgeLen());
    int n = g.getEdgeLen();
    forall (v in g.nodes()) {
        v.deg = g.inDeg[v] + k[0] + level[v];
    }
}
