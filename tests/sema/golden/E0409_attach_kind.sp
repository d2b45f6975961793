// expect: 5:45: error[E0409]: 'weight' has type 'propEdge<int>', but attachNodeProperty needs propNode properties
// expect: 6:30: error[E0409]: 'k' has type 'int', but attachEdgeProperty needs propEdge properties
function F(Graph g, propNode<int> dist, propEdge<int> weight) {
    int k = 0;
    g.attachNodeProperty(dist = 0, weight = 1);
    g.attachEdgeProperty(k = 1);
}
