// expect: 9:9: error[E0402]: '++' needs a numeric (int, long, float, double) target, found 'bool'
// expect: 10:9: error[E0402]: '--' needs a numeric (int, long, float, double) target, found 'node'
// expect: 11:8: error[E0303]: cannot update the whole property 'deg' with '++'
// expect: 13:15: error[E0402]: '++' needs a numeric (int, long, float, double) target, found 'bool'
function F(Graph g, propNode<int> deg, propNode<bool> seen, node src) {
    bool done = False;
    node last = src;
    g.attachNodeProperty(deg = 0, seen = False);
    done++;
    last--;
    deg++;
    forall (v in g.nodes()) {
        v.seen++;
    }
}
