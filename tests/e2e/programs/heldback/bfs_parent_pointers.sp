// Node-typed properties (parent pointers) as secondary targets of a Min assignment. The key
// minimised is level * n + parent, unique per candidate, so the parent that wins is the
// smallest-id vertex of the previous level: deterministic on every backend. A host loop then
// follows parent pointers from one vertex (reads of single elements at host level).
function BFSParents(Graph g, propNode<int> level, propNode<node> parent, node src, node probe) {
    propNode<long> key;
    propNode<bool> modified;
    long n = g.num_nodes();
    g.attachNodeProperty(level = -1, key = INF, modified = False, parent = -1);
    src.key = 0;
    src.level = 0;
    src.parent = src;
    src.modified = True;
    bool done = False;
    fixedPoint until (done : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            for (w in g.neighbors(v)) {
                <w.key, w.parent, w.level, w.modified> =
                    <Min(w.key, (v.level + 1) * n + v), v, v.level + 1, True>;
            }
        }
    }
    int hops = 0;
    node at = probe;
    while (at.parent != at && at.parent != -1) {
        at = at.parent;
        hops = hops + 1;
    }
    if (probe.parent == -1) {
        hops = -1;
    }
    return hops;
}
