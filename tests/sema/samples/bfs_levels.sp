// Round-trip sample: iterateInBFS with a filter and a reverse sweep without a condition.
Static Levels(dirGraph g, propNode<int> level, propNode<float> acc, node root) {
    g.attachNodeProperty(level = -1, acc = 0);
    root.level = 0;
    iterateInBFS (v in g.nodes() from root).filter(level != 5) {
        for (w in g.neighbors(v)) {
            v.level = w.level + 1;
            edge up = g.get_edge(w, v);
            v.acc = v.acc + up.source;
        }
    }
    iterateInReverse {
        for (w in g.neighbors(v)) {
            v.acc = v.acc + w.acc / 2;
        }
    }
    bool fin = False;
    int rounds = 0;
    fixedPoint until (fin : rounds >= 3) {
        rounds += 1;
    }
}
