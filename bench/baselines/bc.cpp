// Hand-written OpenMP baseline for dsl/bc.sp (Compute_BC): betweenness centrality from a set of
// sources (Brandes), as the dsl program: double path counts and dependencies, float scores.
//
// Per source: a level-synchronous top-down BFS (vertices claimed with compare-and-swap, levels
// recorded as slices of one vertex order array); then path counts level by level, each vertex
// pulling sigma from its BFS parents over the reverse CSR; then dependencies deepest level
// first, each vertex pulling (sigma_v / sigma_w) * (1 + delta_w) from its BFS children. Both
// sweeps are race-free pulls that add in the same order as the dsl program's loops (parents in
// reverse-CSR order, children in CSR order), and only the reached vertices are reset between
// sources.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime bc.cpp
//   run:   ./bc GRAPH --sourceSet 0,5,9 [--undirected] [--out F] [--time]
#include <algorithm>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

// Levels smaller than this are handled by one thread: a parallel region costs more than the
// work, especially when the cores are shared.
constexpr int PARALLEL_MIN = 256;

struct Workspace {
  std::vector<int> level;              // -1 = not reached from the current source
  std::vector<double> sigma, delta;
  std::vector<int> order;              // reached vertices, level by level
  std::vector<int> level_start;        // level d is order[level_start[d] .. level_start[d+1])
};

void bfs_levels(const starc::Graph& g, int src, Workspace& w) {
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  int* level = w.level.data();
  w.level_start.assign(1, 0);
  level[src] = 0;
  w.order[0] = src;
  int begin = 0, end = 1, depth = 0;
  while (begin < end) {
    w.level_start.push_back(end);
    int tail = end;
#pragma omp parallel if (end - begin >= PARALLEL_MIN)
    {
      std::vector<int> local;
#pragma omp for schedule(dynamic, 64) nowait
      for (int i = begin; i < end; ++i) {
        int v = w.order[i];
        for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
          int t = targets[e];
          int unseen = -1;
          if (__atomic_load_n(&level[t], __ATOMIC_RELAXED) == -1 &&
              __atomic_compare_exchange_n(&level[t], &unseen, depth + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            local.push_back(t);
        }
      }
      int at = __atomic_fetch_add(&tail, static_cast<int>(local.size()), __ATOMIC_RELAXED);
      std::copy(local.begin(), local.end(), w.order.begin() + at);
    }
    begin = end;
    end = tail;
    ++depth;
  }
  // level_start now has one entry per level plus the end.
}

void accumulate_source(const starc::Graph& g, int src, Workspace& w, float* bc) {
  bfs_levels(g, src, w);
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  const int* rev_offsets = g.rev_offsets.data();
  const int* rev_sources = g.rev_sources.data();
  const int* level = w.level.data();
  double* sigma = w.sigma.data();
  double* delta = w.delta.data();
  const int levels = static_cast<int>(w.level_start.size()) - 1;
  sigma[src] = 1;
  for (int d = 1; d < levels; ++d) {
#pragma omp parallel for schedule(dynamic, 64) if (w.level_start[d + 1] - w.level_start[d] >= PARALLEL_MIN)
    for (int i = w.level_start[d]; i < w.level_start[d + 1]; ++i) {
      int v = w.order[i];
      double s = 0;
      for (int e = rev_offsets[v]; e < rev_offsets[v + 1]; ++e) {
        int u = rev_sources[e];
        if (level[u] == d - 1) s = s + sigma[u];
      }
      sigma[v] = s;
    }
  }
  for (int d = levels - 1; d >= 1; --d) {
#pragma omp parallel for schedule(dynamic, 64) if (w.level_start[d + 1] - w.level_start[d] >= PARALLEL_MIN)
    for (int i = w.level_start[d]; i < w.level_start[d + 1]; ++i) {
      int v = w.order[i];
      double dv = 0, sv = sigma[v];
      for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
        int t = targets[e];
        if (level[t] == d + 1) dv = dv + (sv / sigma[t]) * (1 + delta[t]);
      }
      delta[v] = dv;
      bc[v] = bc[v] + dv;
    }
  }
  // Reset only what this source touched.
  const int reached = w.level_start[levels];
#pragma omp parallel for schedule(static) if (reached >= 16 * PARALLEL_MIN)
  for (int i = 0; i < reached; ++i) {
    int v = w.order[i];
    w.level[v] = -1;
    sigma[v] = 0;
    delta[v] = 0;
  }
}

std::vector<float> betweenness(const starc::Graph& g, const std::vector<int>& sources) {
  const int n = g.num_nodes;
  std::vector<float> bc(n, 0.0f);
  Workspace w;
  w.level.assign(n, -1);
  w.sigma.assign(n, 0.0f);
  w.delta.assign(n, 0.0f);
  w.order.assign(n, 0);
  for (int src : sources) accumulate_source(g, src, w, bc.data());
  return bc;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {{"sourceSet", starc::ParamKind::NodeSet, true}}, "Compute_BC");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
    std::vector<int> sources = cl.get_node_set("sourceSet", g);
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<float> bc = starc::timed_trials(cl.trials, cl.time, [&] { return betweenness(g, sources); });
    starc::Results results(cl, "Compute_BC", "openmp-baseline");
    results.prop("BC", bc.data(), g.num_nodes);
    results.close();
  });
}
