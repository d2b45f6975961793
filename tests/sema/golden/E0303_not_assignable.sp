// expect: 6:9: error[E0303]: cannot assign to loop variable 'v'
// expect: 9:9: error[E0303]: cannot assign to 'e.source'
// expect: 11:5: error[E0303]: cannot assign to 'g' (a 'Graph')
function F(Graph g, propNode<int> dist) {
    forall (v in g.nodes()) {
        v = 3;
    }
    forall (e in g.edges()) {
        e.source = 1;
    }
    g = 1;
}
