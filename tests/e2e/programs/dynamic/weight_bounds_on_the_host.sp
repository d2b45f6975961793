Static Base(Graph g, propEdge<int> weight) {
  int hi = maxWt(weight);
  int lo = minWt(weight);
  return hi * 1000 + lo;
}
Dynamic D(Graph g, propEdge<int> weight, updates<g> U, int batchSize) {
  int r = Base(g, weight);
  Batch (U : batchSize) {
    g.updateCSRDel(U);
    g.updateCSRAdd(U);
    r = Base(g, weight);
  }
  return r;
}
