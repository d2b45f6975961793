// expect: 3:1: error[E0413]: a Dynamic function takes its update stream as an 'updates<g>' parameter
// A Dynamic function takes its update stream (the run's --updates FILE) as a parameter.
Dynamic D(Graph g, propNode<int> dist, int n) {
    g.attachNodeProperty(dist = 0);
}
