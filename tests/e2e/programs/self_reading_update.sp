// An update reading its own target inside a sequential loop: each step sees what the
// previous one stored (issue 32: the reference once folded it as a reduction).
function SelfRed(Graph g, propNode<int> d, propNode<int> t) {
    g.attachNodeProperty(d = 1);
    forall (v in g.nodes()) {
        int local = 1;
        for (w in g.neighbors(v)) {
            v.d -= v.d + w;
            local *= local + w;
        }
        v.t = local;
    }
}
