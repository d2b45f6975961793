// iterateInBFS with a filter and iterateInReverse with a condition, both reading neighbour
// values: the forward pass pulls the number of shortest paths (long) and the level from BFS
// parents, the reverse pass pulls from BFS children the number of descendants below (counted
// with multiplicity) and the deepest level reachable; integers only, so exact everywhere.
function BFSReverseFiltered(Graph g, propNode<long> paths, propNode<int> level,
                            propNode<long> below, propNode<int> deepest, node src) {
    g.attachNodeProperty(paths = 0, level = -1, below = 0, deepest = -1);
    src.paths = 1;
    src.level = 0;
    iterateInBFS (v in g.nodes() from src).filter(v != 3) {
        for (w in g.neighbors(v)) {
            v.paths = v.paths + w.paths;
            v.level = w.level + 1;
        }
    }
    iterateInReverse (v % 2 == 0 || v == src) {
        v.deepest = v.level;
        for (w in g.neighbors(v)) {
            v.below = v.below + w.below + 1;
            if (w.deepest > v.deepest) {
                v.deepest = w.deepest;
            }
        }
    }
}
