// expect: 3:33: warning[compat-alias]: 'INT_MAX' is a StarPlat alias of 'INF'
function F(Graph g, propNode<int> dist) {
    g.attachNodeProperty(dist = INT_MAX);
}
