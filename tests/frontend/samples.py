"""Inline DSL samples covering every construct of LANGUAGE.md §1–5 (shared by frontend tests)."""

from __future__ import annotations

import glob
import os

__all__ = ["SAMPLES", "DSL_FILES", "read_dsl"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# dsl/dynamic: the dynamic-graph programs (issue 31), run by the reference executor only
DSL_FILES = sorted(glob.glob(os.path.join(ROOT, "dsl", "*.sp"))) + sorted(
    glob.glob(os.path.join(ROOT, "dsl", "dynamic", "*.sp")))


def read_dsl(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


SAMPLES = {
    "sssp": """
function Compute_SSSP(Graph g, propNode<int> dist, propEdge<int> weight, node src) {
  propNode<bool> modified;
  g.attachNodeProperty(dist = INF, modified = False);
  src.modified = True; src.dist = 0;
  bool finished = False;
  fixedPoint until (finished : !modified) {
    forall (v in g.nodes().filter(modified == True)) {
      forall (nbr in g.neighbors(v)) {
        edge e = g.get_edge(v, nbr);
        <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;
      }
    }
  }
}
""",
    "bc": """
function Compute_BC(Graph g, propNode<float> BC, SetN<g> sourceSet) {
  g.attachNodeProperty(BC = 0);
  for (src in sourceSet) {
    propNode<float> sigma;
    propNode<float> delta;
    g.attachNodeProperty(delta = 0, sigma = 0);
    src.sigma = 1;
    iterateInBFS(v in g.nodes() from src) {
      for (w in g.neighbors(v)) {
        v.sigma = v.sigma + w.sigma;
      }
    }
    iterateInReverse(v != src) {
      for (w in g.neighbors(v)) {
        v.delta = v.delta + (v.sigma / w.sigma) * (1 + w.delta);
      }
      v.BC = v.BC + v.delta;
    }
  }
}
""",
    "statements": """
Static helper(int a, float b) {
  int x = 0, y = 1, z;
  long big = 123456789012;
  double d = 1.5e3;
  float f = .5, h = 1., k = 1e-6;
  propEdge<double> w2;
  SetE<g> es;
  x = a - 1;
  x = -x % 3;
  x += 1; x -= 2; x *= 3; x /= 4; x &= 5; x |= 6;
  x++; x--; v.p++; v.p--;
  v.p += 2;
  arr[i + 1] = arr[i] * 2;
  if (x < 0 && y >= 1 || !(z != 2)) x = 1; else if (y) { y = 2; } else z = 3;
  while (x > 0) { x = x - 1; if (x == 5) break; else continue; }
  do x = x + 1; while (x <= 10);
  do { y = y * 2; } while (y < 100);
  for (u in g.nodes_to(v)) { u.q = Max(u.q, 3); }
  forall (e in g.edges().filter(weight > 0)) { e.w2 = minWt(weight) + maxWt(weight); }
  forall (n in g.neighbours(v)) { count_++; }
  <n.dist> = <Min(n.dist, d)>;
  <n.dist, n.parent> = <Max(n.dist, d + 1), v>;
  <a.b, c[1]> = <Min(a.b, c[0]), (x > y), x - (y - z)>;
  n.dist = Min(n.dist, expr);
  g.attachEdgeProperty(w2 = 0.0);
  g.attachNodeProperty(p1 = 1, p2 = True, p3 = INF, p4 = -INF);
  x = g.num_nodes() + g.num_edges() + g.count_outNbrs(v) + g.count_inNbrs(v);
  b = g.is_an_edge(u, w);
  s = e.source + e.destination;
  helper(1, 2.0);
  g.nodes();
  t = true; t = false; m = INT_MAX;
  return x * (y + z);
}
function nothing() { return; }
function bfs(Graph g, node root) {
  iterateInBFS (v in g.nodes() from root).filter(v.p == 1) {
    v.level = 1;
  }
  iterateInReverse () { v.x = 1; }
  iterateInBFS (v in g.nodes() from root) { v.level = 2; }
  iterateInReverse { v.x = 2; }
  iterateInReverse (v != root) v.y = 3;
}
""",
    "comments": """// leading comment
/* block
   comment */ function f() { /* inline */ int x = 1; // trailing
  x = x + /* inside */ 2;
}
// last line without newline""",
    "alias_and_compat": """
function pr(Graph g, float beta, float delta, int maxIter, propNode<float> pageRank) {
  float num_nodes = g.num_nodes();
  propNode<float> pageRank_nxt;
  g.attachNodeProperty(pageRank = 1 / num_nodes, pageRank_nxt = 0);
  int iterCount = 0;
  float diff;
  do {
    diff = 0.0;
    forall (v in g.nodes()) {
      float sum = 0.0;
      for (nbr in g.nodes_to(v)) {
        sum = sum + nbr.pageRank / g.count_outNbrs(nbr);
      }
      float val = (1 - delta) / num_nodes + delta * sum;
      diff += val - v.pageRank;
      v.pageRank_nxt = val;
    }
    pageRank = pageRank_nxt;
    iterCount++;
  } while ((diff > beta) && (iterCount < maxIter));
}
""",
}
