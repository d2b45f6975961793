// Dynamic triangle counting (StarPlat's dynamicBatchTCV2, issue 31) on an undirected graph
// (run with --undirected): count holds, per vertex v, the triangles u < v < w that dsl/tc.sp
// counts at v, and the total is their sum. An update of edge a-b changes the count only at a,
// at b and at the vertices adjacent to both: each batch marks those (for a deletion in the
// graph before it, for an addition in the graph after it), counts them again and corrects the
// total by the difference. After every batch the total equals dsl/tc.sp's on the updated graph.
// Run: starc run dsl/dynamic/dyn_tc.sp -b reference --graph g.el --undirected --updates u.txt
//          --batchSize 100
function CountAt(Graph g, propNode<long> count, propNode<bool> affected) {
    forall (v in g.nodes().filter(affected == True)) {
        v.count = 0;
        for (u in g.neighbors(v)) {
            if (u < v) {
                for (w in g.neighbors(v)) {
                    if (w > v && g.is_an_edge(u, w)) {
                        v.count += 1;
                    }
                }
            }
        }
    }
}

Static staticTC(Graph g, propNode<long> count) {
    propNode<bool> affected;
    g.attachNodeProperty(affected = True);
    CountAt(g, count, affected);
    long total = 0;
    forall (v in g.nodes()) {
        total += v.count;
    }
    return total;
}

Incremental(Graph g, propNode<long> count, propNode<bool> affected) {
    long change = 0;
    forall (v in g.nodes().filter(affected == True)) {
        change -= v.count;
    }
    CountAt(g, count, affected);
    forall (v in g.nodes().filter(affected == True)) {
        change += v.count;
    }
    return change;
}

Dynamic DynTC(Graph g, propNode<long> count, updates<g> updateBatch, int batchSize) {
    long triangles = staticTC(g, count);
    propNode<bool> affected;
    Batch (updateBatch : batchSize) {
        g.attachNodeProperty(affected = False);
        OnDelete (u in updateBatch.currentBatch()) : {
            node a = u.source;
            node b = u.destination;
            a.affected = True;
            b.affected = True;
            for (w in g.neighbors(a)) {
                if (g.is_an_edge(b, w)) {
                    w.affected = True;
                }
            }
        }
        g.updateCSRDel(updateBatch);
        g.updateCSRAdd(updateBatch);
        OnAdd (u in updateBatch.currentBatch()) : {
            node a = u.source;
            node b = u.destination;
            a.affected = True;
            b.affected = True;
            for (w in g.neighbors(a)) {
                if (g.is_an_edge(b, w)) {
                    w.affected = True;
                }
            }
        }
        triangles = triangles + Incremental(g, count, affected);
    }
    return triangles;
}
