// expect: 3:12: error[E0411]: recursive call of 'F' is not supported
function F(Graph g, int k) {
    return F(g, k - 1);
}
