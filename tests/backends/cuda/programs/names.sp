// CUDA backend test: DSL names that are C++ keywords or names the generator uses itself.
function Names(Graph g, propNode<int> results, int seconds, int block_size) {
    int new = 1;
    int cl = 2;
    int d_results = 3;
    int algorithm = 4;
    int class = seconds + block_size;
    forall (v in g.nodes()) {
        v.results = new + cl + d_results + algorithm + class;
    }
}
