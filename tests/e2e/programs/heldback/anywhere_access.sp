// Accesses at vertices that are not neighbours ("anywhere"): reads through a node-typed
// property two hops up (v.up's up), a value read at a node parameter inside a forall, and a
// reduction at a vertex read from a property.
function AnywhereAccess(Graph g, propNode<node> up, propNode<int> grand, propNode<int> tally,
                        node hub) {
    g.attachNodeProperty(tally = 0);
    forall (v in g.nodes()) {
        v.up = (v * 5 + 3) % g.num_nodes();
    }
    forall (v in g.nodes()) {
        node p = v.up;
        node q = p.up;
        v.grand = q * 100 + hub.up;
        q.tally += 1;
    }
}
