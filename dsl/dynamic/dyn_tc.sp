// Dynamic triangle counting (StarPlat's dynamicBatchTCV2, issue 31) on an undirected
// multigraph (run with --undirected): count holds, per vertex v, what staticTC counts at v
// (m(v,u) * m(v,w) for every triangle u < v < w, m the number of copies of an edge), and the
// total is their sum, dsl/tc.sp's count.
// Why it is exact: a triangle's term can change only if one of its three pairs is the pair of
// an update of the batch (an "updated pair"). Each batch subtracts, on the graph before it,
// the terms of the triangles with an updated pair, and adds them again on the graph after it.
// Both passes find each such triangle once, from its first updated pair (pairs ordered by
// their lower then their higher vertex): a vertex touched by an update scans its row once for
// the updated pairs to higher vertices, marked on their edges (so duplicates, a deletion and
// an addition of one pair, and an update's reverse count once), and each pair walks the
// shorter of its two rows for the third vertices. Since the rule does not depend on
// the graph, every triangle whose term changed is subtracted with its old term and added with
// its new one, and every other is left alone. Self-loops are in no triangle.
// Cost per batch: the rows of the touched vertices plus, per updated pair, its shorter row,
// with a binary search per step, where staticTC walks every row once per lower neighbour.
// Run: starc run dsl/dynamic/dyn_tc.sp -b reference --graph g.el --undirected --updates u.txt
//          --batchSize 100
Static staticTC(Graph g, propNode<long> count) {
    long total = 0;
    forall (v in g.nodes()) {
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
        total += v.count;
    }
    return total;
}

// sign * the terms of the triangles with a pair updated in this batch, added to their middle
// vertices' count; the sum of what it added. touched == batch at the updates' endpoints, and
// updated == batch on every copy of each updated pair that is an edge of the graph.
function ChangeTerms(Graph g, propNode<long> count, propNode<long> touched,
                     propEdge<long> updated, long batch, long sign) {
    long change = 0;
    forall (x in g.nodes().filter(touched == batch)) {
        node previous = x;
        for (y in g.neighbors(x).filter(y > x)) {
            if (y != previous) {
                // once per pair x-y (a row is sorted: its copies are adjacent)
                previous = y;
                edge pair = g.get_edge(x, y);
                if (pair.updated == batch) {
                    long copies = 0;
                    for (z in g.neighbors(x).filter(z >= y && z <= y)) {
                        copies += 1;
                    }
                    node shorter = x;
                    node other = y;
                    if (g.count_outNbrs(y) < g.count_outNbrs(x)) {
                        shorter = y;
                        other = x;
                    }
                    node last = x;
                    for (w in g.neighbors(shorter)) {
                        if (w != last) {
                            last = w;
                            if (w != x && w != y && g.is_an_edge(other, w)) {
                                long xwCopies = 0;
                                bool xwUpdated = False;
                                for (z in g.neighbors(x).filter(z >= w && z <= w)) {
                                    xwCopies += 1;
                                    edge xz = g.get_edge(x, z);
                                    if (xz.updated == batch) {
                                        xwUpdated = True;
                                    }
                                }
                                long ywCopies = 0;
                                bool ywUpdated = False;
                                for (z in g.neighbors(y).filter(z >= w && z <= w)) {
                                    ywCopies += 1;
                                    edge yz = g.get_edge(y, z);
                                    if (yz.updated == batch) {
                                        ywUpdated = True;
                                    }
                                }
                                // the triangle's first updated pair is x-y unless x-w or
                                // y-w is updated and comes before it
                                if (!(w < y && xwUpdated) && !(w < x && ywUpdated)) {
                                    node middle = w;
                                    long term = xwCopies * ywCopies;
                                    if (w < x) {
                                        middle = x;
                                        term = xwCopies * copies;
                                    }
                                    if (w > y) {
                                        middle = y;
                                        term = copies * ywCopies;
                                    }
                                    middle.count += sign * term;
                                    change += sign * term;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return change;
}

Dynamic DynTC(Graph g, propNode<long> count, updates<g> updateBatch, int batchSize) {
    long triangles = staticTC(g, count);
    // the last batch that touched a vertex / updated the pair an edge is a copy of
    propNode<long> touched;
    propEdge<long> updated;
    g.attachNodeProperty(touched = 0);
    g.attachEdgeProperty(updated = 0);
    long batch = 0;
    Batch (updateBatch : batchSize) {
        batch = batch + 1;
        // on the graph before the batch: its updates' endpoints and the edges of their pairs
        OnDelete (u in updateBatch.currentBatch()) : {
            node a = u.source;
            node b = u.destination;
            <a.touched> = <Max(a.touched, batch)>;
            <b.touched> = <Max(b.touched, batch)>;
            if (a != b) {
                for (c in g.neighbors(a).filter(c >= b && c <= b)) {
                    edge forward = g.get_edge(a, c);
                    <forward.updated> = <Max(forward.updated, batch)>;
                }
                for (c in g.neighbors(b).filter(c >= a && c <= a)) {
                    edge backward = g.get_edge(b, c);
                    <backward.updated> = <Max(backward.updated, batch)>;
                }
            }
        }
        OnAdd (u in updateBatch.currentBatch()) : {
            node a = u.source;
            node b = u.destination;
            <a.touched> = <Max(a.touched, batch)>;
            <b.touched> = <Max(b.touched, batch)>;
            if (a != b) {
                for (c in g.neighbors(a).filter(c >= b && c <= b)) {
                    edge forward = g.get_edge(a, c);
                    <forward.updated> = <Max(forward.updated, batch)>;
                }
                for (c in g.neighbors(b).filter(c >= a && c <= a)) {
                    edge backward = g.get_edge(b, c);
                    <backward.updated> = <Max(backward.updated, batch)>;
                }
            }
        }
        triangles = triangles + ChangeTerms(g, count, touched, updated, batch, -1);
        g.updateCSRDel(updateBatch);
        g.updateCSRAdd(updateBatch);
        // an added copy is a new edge, unmarked (a deleted pair has no edge left to mark)
        OnAdd (u in updateBatch.currentBatch()) : {
            node a = u.source;
            node b = u.destination;
            if (a != b) {
                for (c in g.neighbors(a).filter(c >= b && c <= b)) {
                    edge forward = g.get_edge(a, c);
                    <forward.updated> = <Max(forward.updated, batch)>;
                }
                for (c in g.neighbors(b).filter(c >= a && c <= a)) {
                    edge backward = g.get_edge(b, c);
                    <backward.updated> = <Max(backward.updated, batch)>;
                }
            }
        }
        triangles = triangles + ChangeTerms(g, count, touched, updated, batch, 1);
    }
    return triangles;
}
