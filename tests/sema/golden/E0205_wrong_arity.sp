// expect: 9:13: error[E0205]: 'Helper' takes 2 arguments, found 1
// expect: 11:18: error[E0205]: 'Min' takes 2 arguments, found 1
// expect: 12:18: error[E0205]: 'count_outNbrs' takes 1 argument, found 2
function Helper(Graph g, int k) {
    return k + g.num_nodes();
}

function F(Graph g, propNode<int> dist) {
    int n = Helper(g);
    forall (v in g.nodes()) {
        v.dist = Min(v.dist);
        v.dist = g.count_outNbrs(v, v);
    }
}
