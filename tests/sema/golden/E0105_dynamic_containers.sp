// expect: 6:5: error[E0105]: 'updates': dynamic graphs (Dynamic, Incremental, Decremental, Batch, OnAdd, OnDelete, updates<g>) are not supported yet
// expect: 7:5: error[E0105]: 'nodeMap': the dynamic-graph containers (container, nodeMap, Map, list, Heap) are not supported yet
// expect: 10:1: error[E0105]: 'Incremental': dynamic graphs (Dynamic, Incremental, Decremental, Batch, OnAdd, OnDelete, updates<g>) are not supported yet
// StarPlat's dynamic-graph extension: each word names its feature, one error per word.
function Compute(Graph g, propNode<int> dist) {
    updates<g> batch;
    nodeMap<int> seen;
    int x = 0;
}
Incremental(Graph g, propNode<int> dist) {
    int y = 1;
}
