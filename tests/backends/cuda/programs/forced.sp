// CUDA backend test: a fixedPoint whose body forces further iterations from the host.
function Forced(Graph g, propNode<bool> flag, propNode<int> count, int rounds) {
    g.attachNodeProperty(flag = True, count = 0);
    bool done = False;
    int iter = 0;
    fixedPoint until (done : !flag) {
        iter++;
        forall (v in g.nodes().filter(flag == True)) {
            v.count += 1;
            if (v.count < rounds) {
                v.flag = True;
            }
        }
        if (iter < 3) {
            done = False;
        }
    }
}
