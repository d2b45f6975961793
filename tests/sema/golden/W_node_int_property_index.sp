// expect: 10:5: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
// expect: 11:5: warning[node-int-conversion]: implicit conversion from 'long' to 'node'
// expect: 11:18: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
// expect: 15:30: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
// expect: 16:13: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
// expect: 19:5: warning[node-int-conversion]: implicit conversion from 'int' to 'node'
function Helper(Graph g, propNode<int> label, node s) {
}
function F(Graph g, propNode<int> label, propNode<int> mate, int source, long sink) {
    source.label = 0;
    sink.label = source.label + 1;
    forall (v in g.nodes()) {
        int m = v.mate;
        if (m != -1 && v == source) {
            Helper(g, label, m);
            m.label += 1;
        }
    }
    source.mate = sink;
}
