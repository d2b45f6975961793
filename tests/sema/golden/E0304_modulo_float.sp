// expect: 3:15: error[E0304]: '%' needs integer operands, found 'float'
function F(Graph g, float x) {
    float y = x % 2;
    int z = 7 % 2;
}
