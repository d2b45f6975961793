// expect: 7:5: error[E0105]: 'nodeMap': the dynamic-graph containers (container, nodeMap, Map, list, Heap) are not supported yet
// expect: 8:5: error[E0105]: 'container': the dynamic-graph containers (container, nodeMap, Map, list, Heap) are not supported yet
// StarPlat's dynamic-graph containers stay reserved (issue 31 supports the rest of the
// extension): each word names its feature, one error per word.
function Compute(Graph g, propNode<int> dist, updates<g> batch) {
    int x = 0;
    nodeMap<int> seen;
    container<int> queue;
}
