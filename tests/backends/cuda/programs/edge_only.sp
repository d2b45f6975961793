// A push loop whose body reads only its edge: on the edges schedule (CUDA's auto) neither the
// vertex nor the neighbour is declared, which nvcc's -Werror would refuse as unused variables.
function EdgeOnly(Graph g, propEdge<int> weight) {
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            e.weight = e.weight + 1;
        }
    }
}
