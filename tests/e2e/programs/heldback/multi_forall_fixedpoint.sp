// Several foralls per fixedPoint iteration with the general until form: pull the largest
// in-neighbour label into a scratch property, compare with the current label and count the
// changes (a host reduction deciding termination), then copy the scratch back with a = b.
// Labels start at (v * 7) % 11 and converge to the largest label reaching each vertex.
function MultiForallFixedPoint(Graph g, propNode<int> lab, propNode<int> changedAt) {
    propNode<int> next;
    g.attachNodeProperty(changedAt = 0);
    forall (v in g.nodes()) {
        v.lab = (v * 7) % 11;
    }
    int changes = 1;
    int iter = 0;
    bool fin = False;
    fixedPoint until (fin : changes == 0) {
        forall (v in g.nodes()) {
            int best = v.lab;
            for (u in g.nodes_to(v)) {
                if (u.lab > best) {
                    best = u.lab;
                }
            }
            v.next = best;
        }
        changes = 0;
        iter = iter + 1;
        forall (v in g.nodes()) {
            if (v.next != v.lab) {
                changes += 1;
                v.changedAt = iter;
            }
        }
        lab = next;
    }
}
