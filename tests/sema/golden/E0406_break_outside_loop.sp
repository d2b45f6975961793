// expect: 4:9: error[E0406]: 'break' outside a loop
function F(Graph g, int k) {
    if (k > 0) {
        break;
    }
    while (k > 0) {
        k = k - 1;
        continue;
    }
}
