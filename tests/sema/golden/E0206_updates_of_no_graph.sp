// expect: 3:22: error[E0206]: 'h' in 'updates<h>' is not a graph parameter
// updates<h> names the graph the updates change.
Incremental(Graph g, updates<h> added) {
    forall (u in added) {
    }
}
