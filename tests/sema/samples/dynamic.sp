// Round-trip sample: the dynamic-graph forms (issue 31) in one file.
function Reach(Graph g, propNode<bool> seen, node src) {
    g.attachNodeProperty(seen = False);
    src.seen = True;
    g.propagateNodeFlags(seen);
}

Incremental(Graph g, propNode<int> degree, updates<g> added) {
    forall (u in added) {
        node s = u.source;
        s.degree += 1;
    }
}

Decremental(Graph g, propNode<int> degree, updates<g> removed) {
    for (u in removed) {
        u.source.degree -= 1;
    }
    return;
}

Dynamic Track(Graph g, propNode<int> degree, propNode<bool> seen, propEdge<int> weight,
              updates<g> stream, int batchSize, node src) {
    forall (v in g.nodes()) {
        v.degree = g.count_outNbrs(v);
    }
    long heaviest = 0;
    updates<g> removed;
    Batch (stream : batchSize) {
        removed = stream.currentBatch(0);
        OnDelete (u in stream.currentBatch()) : {
            u.destination.seen = True;
        }
        g.updateCSRDel(stream);
        Decremental(g, degree, removed);
        OnAdd (u in stream.currentBatch()) : {
            heaviest += u.weight;
        }
        g.updateCSRAdd(stream);
        Incremental(g, degree, stream.currentBatch(1));
    }
    Reach(g, seen, src);
    return heaviest;
}
