// expect: 3:18: error[E0412]: a forall cannot iterate a set
function F(Graph g, SetN<g> sources, propNode<int> dist) {
    forall (s in sources) {
        s.dist = 0;
    }
}
