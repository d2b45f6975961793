// expect: 5:5: error[E0402]: '&=' needs a bool or integer target, found 'float'
// expect: 7:5: error[E0402]: '+=' needs a numeric (int, long, float, double) target, found 'bool'
function F(Graph g, propNode<bool> flag) {
    float s = 0;
    s &= 1;
    bool b = False;
    b += 1;
}
