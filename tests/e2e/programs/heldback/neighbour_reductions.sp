// Reduction operators on neighbours and on host scalars inside foralls: += -= *= &= |= and
// ++/-- at w (another rank's vertex), and the same operators on long, double and bool host
// scalars. The products multiply powers of two only, so every order gives the same double.
function NeighbourReductions(Graph g, propNode<long> plus, propNode<double> prod,
                             propNode<bool> allEven, propNode<bool> anyBig, propNode<int> hits) {
    g.attachNodeProperty(plus = 100, prod = 1, allEven = True, anyBig = False, hits = 0);
    long sum = 0;
    double hostProd = 1;
    bool all = True;
    bool any = False;
    int count = 0;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.plus += v * 3;
            if (v % 3 == 0) {
                w.prod *= 2;
            } else {
                if (v % 3 == 1) {
                    w.prod *= 0.5;
                }
            }
            w.allEven &= (v % 2 == 0);
            w.anyBig |= (v > 5);
            w.hits++;
            sum += v + w;
            count++;
        }
        if (v % 4 == 1) {
            hostProd *= 2;
        }
        all &= (v < 1000000);
        any |= (g.count_outNbrs(v) > 3);
    }
    // -= and -- in a forall of their own: MPI refuses two operators on one array in one
    // forall (E0501, see refused_two_operators.sp)
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            w.plus -= 1;
            if (w == v) {
                w.hits--;
            }
        }
    }
    forall (v in g.nodes()) {
        v.plus += sum + count;
        if (all && !any) {
            v.plus += 7;
        }
        v.prod *= hostProd;
    }
}
