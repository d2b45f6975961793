// Properties read before any attach: one attached only under if (False), one declared in a
// loop body (zero again at every iteration), an output never set. All start at zero.
function F(Graph g, propNode<int> out, propNode<int> never, propNode<bool> flag) {
    propNode<int> acc;
    if (False) {
        g.attachNodeProperty(acc = 5);
    }
    int i = 0;
    while (i < 3) {
        propNode<int> indeg;
        forall (v in g.nodes()) {
            forall (w in g.neighbors(v)) {
                w.indeg += 1;
            }
            v.acc += v;
        }
        forall (v in g.nodes()) {
            v.out += v.indeg + v.acc;
            v.flag |= v.indeg > 1;
        }
        i = i + 1;
    }
}
