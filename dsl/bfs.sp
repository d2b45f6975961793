// Breadth-first search levels from src with iterateInBFS: a vertex's level is one more than any
// of its BFS parents'. Unreached vertices keep -1. Run: starc run dsl/bfs.sp -b opencl --graph g.el --src 0
function Compute_BFS(Graph g, propNode<int> level, node src) {
    g.attachNodeProperty(level = -1);
    src.level = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) {
            v.level = w.level + 1;
        }
    }
}
