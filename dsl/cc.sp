// Weakly connected components by minimum-label propagation along edges in both directions:
// every vertex ends with the smallest vertex id of its component.
// Run: starc run dsl/cc.sp -b opencl --graph g.el
function Compute_CC(Graph g, propNode<node> comp) {
    propNode<bool> modified;
    g.attachNodeProperty(modified = True);
    forall (v in g.nodes()) {
        v.comp = v;
    }
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) {
                <w.comp, w.modified> = <Min(w.comp, v.comp), True>;
            }
            forall (u in g.nodes_to(v)) {
                <u.comp, u.modified> = <Min(u.comp, v.comp), True>;
            }
        }
    }
}
