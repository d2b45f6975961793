// k-core membership on an undirected (symmetric) graph by peeling: repeatedly remove every
// vertex with fewer than k remaining neighbours (all of them in a round, then their
// neighbours' degrees drop). Returns the size of the k-core.
// Run: starc run dsl/kcore.sp -b opencl --graph g.el --undirected --k 3
function Compute_KCore(Graph g, int k, propNode<bool> inCore) {
    propNode<int> degree;
    propNode<bool> peeled;
    g.attachNodeProperty(inCore = True, peeled = False);
    forall (v in g.nodes()) {
        v.degree = g.count_outNbrs(v);
    }
    int removed = 1;
    while (removed > 0) {
        removed = 0;
        // two passes: deciding and decrementing in one forall would read degrees that
        // other iterations are decrementing (a data race)
        forall (v in g.nodes().filter(inCore == True)) {
            if (v.degree < k) {
                v.inCore = False;
                v.peeled = True;
                removed += 1;
            }
        }
        forall (v in g.nodes().filter(peeled == True)) {
            v.peeled = False;
            forall (w in g.neighbors(v)) {
                w.degree -= 1;
            }
        }
    }
    int coreSize = 0;
    forall (v in g.nodes().filter(inCore == True)) {
        coreSize += 1;
    }
    return coreSize;
}
