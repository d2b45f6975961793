// CUDA backend test: a Min with a non-constant secondary target needs a per-element lock.
function Parents(Graph g, propNode<int> dist, propNode<node> parent, node src) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = INF, parent = -1, modified = False);
    src.dist = 0;
    src.modified = True;
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) {
                <w.dist, w.parent, w.modified> = <Min(w.dist, v.dist + 1), v, True>;
            }
        }
    }
}
