// CUDA backend test: host control flow (while, break, continue, early return), host reads, minWt.
function HostStuff(Graph g, propNode<int> val, propEdge<int> weight, int limit, SetN<g> seeds) {
    g.attachNodeProperty(val = 0);
    int lightest = minWt(weight);
    int heaviest = maxWt(weight);
    int rounds = 0;
    for (s in seeds) {
        if (s.val > limit) {
            continue;
        }
        s.val = s.val + lightest;
        if (g.is_an_edge(s, 0)) {
            break;
        }
    }
    while (rounds < limit) {
        rounds++;
        forall (e in g.edges()) {
            e.destination.val += e.weight;
        }
        if (rounds > heaviest) {
            return rounds;
        }
    }
    for (v in g.nodes()) {
        v.val = v.val + 1;
    }
    return -rounds;
}
