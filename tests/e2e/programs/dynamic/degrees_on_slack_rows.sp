// A fuzz finding (session 47): a Dynamic program whose kernels read only the row bounds (an
// out-degree) of rows with slack. After a batch the OpenCL host scattered the bounds of the
// rows it touched with an int scatter kernel its .cl file did not hold, since no slot array
// of ints was on the device (CL_INVALID_KERNEL_NAME).
Static Degrees(Graph g, propNode<int> deg) {
    forall (v in g.nodes()) {
        v.deg = g.count_outNbrs(v);
    }
}

Dynamic Track(Graph g, propNode<int> deg, updates<g> U, int batchSize) {
    Degrees(g, deg);
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        Degrees(g, deg);
    }
}
