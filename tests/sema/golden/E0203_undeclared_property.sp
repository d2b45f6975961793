// expect: 5:9: error[E0203]: undeclared property 'modified'
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        v.dist = 0;
        v.modified = True;
    }
}
