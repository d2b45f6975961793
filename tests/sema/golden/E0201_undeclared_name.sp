// expect: 4:18: error[E0201]: undeclared name 'count'
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        v.dist = count + 1;
    }
}
