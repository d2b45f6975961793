// expect: 11:48: error[E0402]: 'acc' is updated with '+=' here and with '*=' at line 11 in a forall: the two do not commute, so the result would depend on the order the iterations run
// expect: 18:13: error[E0402]: 'w.x' is updated with 'Max' here and with 'Min' at line 17 in a forall: the two do not commute, so the result would depend on the order the iterations run
// expect: 25:13: error[E0402]: 'v.b' is updated with '|=' here and with '&=' at line 24 in a forall: the two do not commute, so the result would depend on the order the iterations run
// Updates of shared data from one parallel loop must commute: '+=' with '-=' (and '++',
// '--'), each other operator only with itself. Updates of a vertex's own element, of locals
// and in different loops are not shared.
function F(Graph g, propNode<float> x, propNode<bool> b) {
    g.attachNodeProperty(x = 2.0, b = False);
    float acc = 1.0;
    forall (v in g.nodes()) {
        if (v % 2 == 0) { acc *= v.x; } else { acc += v.x; }
    }
    forall (v in g.nodes()) {
        acc += 1;
        acc -= 3;
        forall (w in g.neighbors(v)) {
            w.x = Min(w.x, 1.0);
            w.x = Max(w.x, 0.0);
        }
        float own = 1;
        own *= 2;
        own += 1;
        forall (w in g.neighbors(v)) {
            v.b &= w.b;
            v.b |= w.b;
        }
    }
    forall (v in g.nodes()) {
        acc *= 2;
    }
    return acc;
}
