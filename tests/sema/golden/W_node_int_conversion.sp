// expect: 5:20: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
// expect: 6:16: warning[node-int-conversion]: implicit conversion from 'node' to 'int'
function F(Graph g, propNode<node> parent, propNode<int> id) {
    forall (v in g.nodes()) {
        v.parent = -1;
        v.id = v;
    }
}
