// In the style of StarPlat's graphColoring (issue 16, item 5): fresh priorities each round
// (randSP + combineRandom in a host do-while loop); a vertex whose priority beats every
// undecided neighbour's takes the round as its colour; flags double-buffered as StarPlat's
// modified/modified_next. Used by tests/e2e/test_random_programs.py and tests/sema/test_sema_randoms.py.
function colourGraph(Graph g, propNode<int> colour, propNode<long> prio) {
    propNode<int> color1;
    propNode<int> color2;
    propNode<bool> modified;
    propNode<bool> modified_next;
    g.attachNodeProperty(colour = -1, modified = False, modified_next = False);
    int numNodes = g.num_nodes();
    int fpoint1 = 0;
    int iter = 0;
    do {
        g.randSP(color1, color2);
        g.combineRandom(prio, color1, color2);
        forall (v in g.nodes()) {
            if (v.modified == False) {
                int cnt = 0;
                int total = 0;
                for (nbr in g.neighbors(v)) {
                    total = total + 1;
                    if (nbr == v) {
                        cnt = cnt + 1;
                    } else if (nbr.modified == True) {
                        cnt = cnt + 1;
                    } else if (v.prio > nbr.prio) {
                        cnt = cnt + 1;
                    }
                }
                if (cnt == total) {
                    v.colour = iter;
                    v.modified_next = True;
                    fpoint1 += 1;
                }
            }
        }
        modified = modified_next;
        iter = iter + 1;
    } while (fpoint1 < numNodes);
    return iter;
}
