// expect: 18:1: warning[no-result]: 'DynLost' has no result: it returns nothing and takes no propNode or propEdge parameter, so a run of it prints nothing
// A run prints a Dynamic function's return value and property parameters, not the graph it
// updates: StarPlat's dynamic triangle count computes its count batch after batch, then drops
// it. Helpers without a result are not warned about.
function Total(Graph g) {
    long c = 0;
    forall (v in g.nodes()) {
        c += 1;
    }
    return c;
}

function Sketch(Graph g) {
    long c = Total(g);
    c = c + 1;
}

Dynamic DynLost(Graph g, updates<g> stream, int batchSize) {
    long c = Total(g);
    Batch(stream : batchSize) {
        g.updateCSRAdd(stream);
        c = c + Total(g);
    }
}
