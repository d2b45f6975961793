// expect: 8:9: error[E0407]: 'return;' without a value in a function that returns a value
// expect: 10:5: error[E0407]: this return has type 'float' but an earlier one has type 'int'
function F(Graph g, int k, float x) {
    if (k > 0) {
        return k;
    }
    if (k < 0) {
        return;
    }
    return x;
}
