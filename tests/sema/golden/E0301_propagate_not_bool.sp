// expect: 4:26: error[E0301]: 'propagateNodeFlags' needs a propNode<bool>, 'level' is a 'propNode<int>'
// propagateNodeFlags spreads bool flags.
function F(Graph g, propNode<int> level) {
    g.propagateNodeFlags(level);
}
