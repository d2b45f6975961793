// expect: 6:5: error[E0405]: iterateInReverse must directly follow an iterateInBFS
function F(Graph g, propNode<float> delta, node src) {
    forall (v in g.nodes()) {
        v.delta = 0;
    }
    iterateInReverse (v != src) {
        v.delta = 1;
    }
}
