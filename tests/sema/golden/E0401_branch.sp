// expect: 8:13: error[E0401]: 'x' is read before it is assigned
// expect: 21:12: error[E0401]: 'u' is read before it is assigned
function F(Graph g, int k) {
    int x;
    if (k > 0) {
        x = 1;
    }
    int y = x;
    int z;
    if (k > 0) {
        z = 1;
    } else {
        z = 2;
    }
    int w = z;
    int u;
    while (k > 0) {
        u = 1;
        k = k - 1;
    }
    return u + w + y;
}
