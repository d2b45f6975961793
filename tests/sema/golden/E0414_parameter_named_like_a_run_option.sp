// expect: 7:48: error[E0414]: parameter 'out' of Coll, the function a run executes, has the name of a run option (--out): the command line could never give it
// `starc run coll.sp --out 5` would take 5 for the results file. A function that the run
// does not execute (a helper) may name its parameters as it likes, and a result or the graph
// is no command-line option.
function Helper(Graph g, int time) { }

function Coll(Graph graph, propNode<int> time, int out) {
    graph.attachNodeProperty(time = out);
    Helper(graph, 3);
}
