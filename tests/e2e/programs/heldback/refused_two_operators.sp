// Refused by MPI on purpose (E0501 at the forall): one forall updates 'plus' at neighbours
// with two operators (+= and -=); the owner applies one combined operator per array and
// superstep. Every other backend runs it.
function TwoOperators(Graph g, propNode<long> plus) {
    g.attachNodeProperty(plus = 100);
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.plus += v * 3;
            w.plus -= 1;
        }
    }
}
