// Compound operators at host level: on scalars (int, long, bool) and on one element.
function F(Graph g, propNode<int> a, propNode<bool> b, node src) {
    g.attachNodeProperty(a = 6, b = True);
    int x = 3;
    bool y = True;
    x |= 4;
    x &= 5;
    y &= x > 4;
    y |= False;
    src.a |= 9;
    src.a &= 12;
    src.b &= False;
    long z = 8;
    z |= 3;
    forall (v in g.nodes()) {
        v.a += x + z;
        if (y) { v.a += 100; }
    }
}
