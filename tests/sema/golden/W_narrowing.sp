// expect: 6:20: warning[narrowing]: implicit conversion from 'float' to 'int' drops the fraction
// A float rank stored in an int property is truncated toward zero, as in C.
function F(Graph g, propNode<float> rank, propNode<int> bucket) {
    g.attachNodeProperty(rank = 0.5);
    forall (v in g.nodes()) {
        v.bucket = v.rank * 10;
    }
}
