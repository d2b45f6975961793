// Dynamic single-source shortest paths (StarPlat's dynamicBatchSSSP, issue 31) over a stream
// of edge deletions and additions, for non-negative weights. Each vertex keeps the parent its
// distance came from (itself when it has none: the source, unreached vertices). A deletion
// cuts the edge to a parent: that subtree pulls its distance from the in-neighbours outside it
// and relaxes on from there (Decremental); the additions restart the relaxation at their
// sources (Incremental). After every batch dist equals dsl/sssp.sp's on the updated graph.
// Run: starc run dsl/dynamic/dyn_sssp.sp -b reference --graph g.el --updates u.txt
//          --batchSize 100 --src 0
function Relax(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
               propNode<bool> modified) {
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (nbr in g.neighbors(v)) {
                edge e = g.get_edge(v, nbr);
                <nbr.dist, nbr.modified, nbr.parent> = <Min(nbr.dist, v.dist + e.weight), True, v>;
            }
        }
    }
}

Static staticSSSP(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
                  node src) {
    propNode<bool> modified;
    g.attachNodeProperty(dist = INF, modified = False);
    forall (v in g.nodes()) {
        v.parent = v;
    }
    src.modified = True;
    src.dist = 0;
    Relax(g, dist, parent, weight, modified);
}

Decremental(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
            propNode<bool> gone) {
    // the subtrees below the cut edges: a child of a gone vertex is gone
    propNode<bool> newly;
    g.attachNodeProperty(newly = False);
    forall (v in g.nodes().filter(gone == True)) {
        v.newly = True;
    }
    bool finished = False;
    fixedPoint until (finished : !newly) {
        forall (v in g.nodes().filter(newly == True)) {
            forall (w in g.neighbors(v)) {
                if (w.parent == v) {
                    w.gone = True;
                    w.newly = True;
                }
            }
        }
    }
    // the gone vertices pull their distance from their in-neighbours that kept theirs (a
    // path the deletions left); Relax pushes on from those that got one
    propNode<bool> modified;
    g.attachNodeProperty(modified = False);
    forall (v in g.nodes().filter(gone == True)) {
        v.dist = INF;
        v.parent = v;
        for (w in g.nodes_to(v)) {
            if (w.gone == False && w.dist != INF) {
                edge e = g.get_edge(w, v);
                <v.dist, v.parent> = <Min(v.dist, w.dist + e.weight), w>;
            }
        }
        if (v.dist != INF) {
            v.modified = True;
        }
    }
    Relax(g, dist, parent, weight, modified);
}

Incremental(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
            propNode<bool> modified) {
    Relax(g, dist, parent, weight, modified);
}

Dynamic DynSSSP(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
                updates<g> updateBatch, int batchSize, node src) {
    staticSSSP(g, dist, parent, weight, src);
    propNode<bool> gone;
    propNode<bool> modified;
    Batch (updateBatch : batchSize) {
        g.attachNodeProperty(gone = False, modified = False);
        OnDelete (u in updateBatch.currentBatch()) : {
            node d = u.destination;
            if (d.parent == u.source && d != u.source) {
                d.gone = True;
            }
        }
        g.updateCSRDel(updateBatch);
        Decremental(g, dist, parent, weight, gone);
        OnAdd (u in updateBatch.currentBatch()) : {
            node s = u.source;
            if (s.dist != INF) {
                s.modified = True;
            }
        }
        g.updateCSRAdd(updateBatch);
        Incremental(g, dist, parent, weight, modified);
    }
}
