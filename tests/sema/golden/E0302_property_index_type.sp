// expect: 6:9: error[E0302]: 'label' is a propNode but 'x' is a double
// expect: 7:9: error[E0302]: 'label' is a propNode but 'b' is a bool
// expect: 8:9: error[E0302]: 'cap' is a propEdge but 'v' is a node
function F(Graph g, propNode<int> label, propEdge<int> cap, double x, bool b) {
    forall (v in g.nodes()) {
        x.label = 1;
        b.label = 2;
        v.cap = 3;
    }
}
