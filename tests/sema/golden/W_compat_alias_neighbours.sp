// expect: 4:19: warning[compat-alias]: 'neighbours' is a StarPlat alias of 'neighbors'
function F(Graph g, propNode<int> deg) {
    forall (v in g.nodes()) {
        for (w in g.neighbours(v)) {
            v.deg += 1;
        }
    }
}
