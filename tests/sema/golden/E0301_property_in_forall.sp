// expect: 5:9: error[E0301]: a property cannot be declared inside a forall: each iteration would need a whole-graph property of its own
// expect: 9:13: error[E0301]: a property cannot be declared inside iterateInBFS: each iteration would need a whole-graph property of its own
function F(Graph g, propNode<int> a, node src) {
    forall (v in g.nodes()) {
        propNode<int> tmp;
        v.a = v + 1;
    }
    iterateInBFS (v in g.nodes() from src) {
            propNode<bool> seen;
    }
}
