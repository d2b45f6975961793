// Hand-written OpenMP baseline for dsl/cc.sp (Compute_CC): weakly connected components, each
// vertex labelled with the smallest vertex id of its component.
//
// Lock-free parallel union-find over the edge list (in the style of ECL-CC / Shiloach-Vishkin
// hooking): every edge u->v joins the two trees, always hooking the larger root under the
// smaller one with compare-and-swap, so parent[x] <= x holds throughout and the root of every
// tree is the minimum id of its component; finds use path halving. A final pass points every
// vertex at its root. Direction does not matter for weak connectivity, so the forward CSR alone
// covers every edge.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime cc.cpp
//   run:   ./cc GRAPH [--undirected] [--out F] [--time]
#include <utility>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

inline int load(const int* slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }

/// The root of x's tree, halving the path on the way (benign races: parents only decrease).
inline int find_root(int* parent, int x) {
  int p = load(&parent[x]);
  while (p != x) {
    int grand = load(&parent[p]);
    if (grand != p) __atomic_store_n(&parent[x], grand, __ATOMIC_RELAXED);
    x = p;
    p = grand;
  }
  return x;
}

void unite(int* parent, int u, int v) {
  for (;;) {
    u = find_root(parent, u);
    v = find_root(parent, v);
    if (u == v) return;
    if (u < v) std::swap(u, v);  // hook the larger root u under the smaller root v
    int expected = u;
    if (__atomic_compare_exchange_n(&parent[u], &expected, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
  }
}

std::vector<int> components(const starc::Graph& g) {
  const int n = g.num_nodes;
  std::vector<int> parent(n);
  int* p = parent.data();
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int v = 0; v < n; ++v) p[v] = v;  // the implicit barrier publishes these
#pragma omp for schedule(dynamic, 256)
    for (int v = 0; v < n; ++v)
      for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
        int w = targets[e];
        if (find_root(p, w) != find_root(p, v)) unite(p, v, w);
      }
#pragma omp for schedule(static)
    for (int v = 0; v < n; ++v) __atomic_store_n(&p[v], find_root(p, v), __ATOMIC_RELAXED);
  }
  return parent;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {}, "Compute_CC");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<int> comp = starc::timed_trials(cl.trials, cl.time, [&] { return components(g); });
    starc::Results results(cl, "Compute_CC", "openmp-baseline");
    results.prop("comp", comp.data(), g.num_nodes);
    results.close();
  });
}
