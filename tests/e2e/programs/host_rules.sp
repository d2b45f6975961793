// Three host-level rules in one program (one build per backend, CI time); each part touches
// only its own properties and scalars.
// 1. Compound operators at host level: on scalars (int, long, bool) and on one element.
// 2. 'rank = rank;' copies nothing; inside the fixedPoint on 'modified', 'modified = modified'
//    carries the current (all false) flags into the next iteration, overriding the attach.
// 3. Properties read before any attach: one attached only under if (False), one declared in a
//    loop body (zero again at every iteration), an output never set. All start at zero.
function F(Graph g, propNode<int> a, propNode<bool> b, node src, propNode<float> rank,
           propNode<int> out, propNode<int> never, propNode<bool> flag) {
    // 1.
    g.attachNodeProperty(a = 6, b = True);
    int x = 3;
    bool y = True;
    x |= 4;
    x &= 5;
    y &= x > 4;
    y |= False;
    src.a |= 9;
    src.a &= 12;
    src.b &= False;
    long z = 8;
    z |= 3;
    forall (v in g.nodes()) {
        v.a += x + z;
        if (y) { v.a += 100; }
    }
    // 2.
    g.attachNodeProperty(rank = 1.5);
    rank = rank;
    bool done = False;
    propNode<bool> modified;
    g.attachNodeProperty(modified = False);
    int round = 0;
    fixedPoint until (done : !modified) {
        round = round + 1;
        if (round < 3) {
            g.attachNodeProperty(modified = True);
        }
        modified = modified;
        rank = rank;
        forall (v in g.nodes()) {
            v.rank = v.rank + 1;
        }
    }
    // 3.
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
