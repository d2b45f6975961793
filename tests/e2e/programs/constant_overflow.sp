// Constant expressions that overflow wrap like any other (LANGUAGE.md §2): MPI's and CUDA's
// strict builds once rejected them (GCC's -Woverflow, nvcc's diagnostic 61).
function Overflow(Graph g, propNode<int> a) {
    int x = 2147483647 + 1;
    long y = -9223372036854775808 - 1;
    g.attachNodeProperty(a = 0);
    forall (v in g.nodes()) {
        v.a = 2147483647 * 2 + v;
    }
    return y + x;
}
