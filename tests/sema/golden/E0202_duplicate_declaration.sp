// expect: 4:11: error[E0202]: duplicate declaration of 'x'
function F(Graph g) {
    int x = 0;
    float x = 1.5;
    if (x > 0) {
        int x = 2;
    }
}
