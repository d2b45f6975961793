// Per-vertex terms in neighbour loops: w / outdeg(nbr) is hoisted (an in-neighbour has
// out-degree >= 1); in the third forall the term reads 'w', which that forall writes (the
// same value back, so the result stays deterministic), so it must stay in the loop; the integer division by a degree is a checked division (a
// vertex with in-degree 0 would be an error if the loop reached it) and stays too.
function hoist_terms(Graph g, propNode<float> acc, propNode<int> cnt) {
    propNode<float> w;
    g.attachNodeProperty(w = 2, acc = 0, cnt = 0);
    forall (v in g.nodes()) {
        v.w = v.w + g.count_inNbrs(v);
    }
    forall (v in g.nodes()) {
        float s = 0;
        for (nbr in g.nodes_to(v)) {
            s = s + nbr.w / g.count_outNbrs(nbr);
        }
        v.acc = s;
    }
    forall (v in g.nodes()) {
        for (nbr in g.neighbors(v)) {
            v.acc = v.acc + nbr.w / g.count_inNbrs(nbr);
            v.cnt = v.cnt + 100 / g.count_inNbrs(nbr);
        }
        v.w = v.w * 1;
    }
}
