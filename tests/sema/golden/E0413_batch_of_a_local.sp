// expect: 5:12: error[E0413]: 'Batch (part : ...)' needs the function's 'updates<g>' parameter, the update stream, not 'part' (a 'updates<g>')
// Batch walks the function's update stream, not a part of it.
Dynamic D(Graph g, updates<g> U, int n) {
    updates<g> part;
    Batch (part : n) {
        g.updateCSRDel(part);
    }
}
