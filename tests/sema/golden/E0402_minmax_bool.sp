// expect: 8:13: error[E0402]: 'Min' needs a numeric (int, long, float, double) target, found 'bool'
// expect: 9:13: error[E0402]: 'Max' needs a numeric (int, long, float, double) target, found 'bool'
// expect: 10:21: error[E0304]: 'Min' needs numeric operands, found 'bool'
// expect: 12:9: error[E0402]: '/=' needs a numeric (int, long, float, double) target, found 'bool'
function F(Graph g, propNode<bool> b, propNode<int> c) {
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.b = Min(w.b, v > 1);
            <w.b, w.c> = <Max(w.b, v > 1), 1>;
            int x = Min(w.b, v > 1);
        }
        v.b /= v > 1;
    }
}
