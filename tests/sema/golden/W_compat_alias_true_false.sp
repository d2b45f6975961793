// expect: 4:37: warning[compat-alias]: 'false' is a StarPlat alias of 'False'
// expect: 5:17: warning[compat-alias]: 'true' is a StarPlat alias of 'True'
function F(Graph g, propNode<bool> modified) {
    g.attachNodeProperty(modified = false);
    bool done = true;
    g.attachNodeProperty(modified = done);
}
