// -2147483648 is an int literal (LANGUAGE.md §2: the minus applies first), so v.a times it
// wraps in 32 bits: -7 * -2^31 = 7 * 2^31 = 2^31 (mod 2^32), which is INT_MIN again. C spells
// 2147483648 as a long, and MPI's kernels once multiplied in 64 bits (found by the fuzzer).
function Lowest(Graph g, propNode<int> a, propNode<long> w) {
    g.attachNodeProperty(a = -7, w = 0);
    forall (v in g.nodes()) {
        v.w = v.a * -2147483648;
        v.a = -(-2147483648) + v;
    }
    long host = -9223372036854775808;
    host = host - 1;
    int small = -2147483648;
    small = small * 3;
    return host + small;
}
