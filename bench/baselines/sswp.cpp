// Hand-written OpenMP baseline for dsl/sswp.sp (Compute_SSWP): single-source widest paths.
//
// Frontier-based label correction, as in the dsl program: vertices whose width grew in the last
// round offer min(width, weight) to their out-neighbours through a lock-free compare-and-swap
// maximum; improved vertices are gathered in per-thread buffers (deduplicated with a flag) and
// concatenated into the next frontier.
// Same results as the dsl program: src gets INF (2147483647), unreachable vertices 0.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime sswp.cpp
//   run:   ./sswp GRAPH --src 0 [--undirected] [--out F] [--time]
#include <algorithm>
#include <climits>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

// Frontiers smaller than this are relaxed by one thread: a parallel region costs more than
// the work, especially when the cores are shared.
constexpr int PARALLEL_MIN = 256;

/// width[v] = max(width[v], value) atomically; true when this call raised it.
inline bool atomic_max(int* slot, int value) {
  int old = __atomic_load_n(slot, __ATOMIC_RELAXED);
  while (value > old)
    if (__atomic_compare_exchange_n(slot, &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return true;
  return false;
}

std::vector<int> sswp(const starc::Graph& g, const std::vector<int>& weight, int src) {
  const int n = g.num_nodes;
  std::vector<int> width(n, 0);
  std::vector<unsigned char> queued(n, 0);
  std::vector<int> frontier(n), next(n);
  width[src] = INT_MAX;
  frontier[0] = src;
  int frontier_size = 1;
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  while (frontier_size > 0) {
    int next_size = 0;
#pragma omp parallel if (frontier_size >= PARALLEL_MIN)
    {
      std::vector<int> local;
#pragma omp for schedule(dynamic, 64) nowait
      for (int i = 0; i < frontier_size; ++i) {
        int v = frontier[i];
        int wv = __atomic_load_n(&width[v], __ATOMIC_RELAXED);
        for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
          int w = targets[e];
          if (atomic_max(&width[w], std::min(wv, weight[e])) && !__atomic_exchange_n(&queued[w], 1, __ATOMIC_RELAXED))
            local.push_back(w);
        }
      }
      int at = __atomic_fetch_add(&next_size, static_cast<int>(local.size()), __ATOMIC_RELAXED);
      std::copy(local.begin(), local.end(), next.begin() + at);
    }
#pragma omp parallel for schedule(static) if (next_size >= 16 * PARALLEL_MIN)
    for (int i = 0; i < next_size; ++i) queued[next[i]] = 0;
    frontier.swap(next);
    frontier_size = next_size;
  }
  return width;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {{"src", starc::ParamKind::Node, true}}, "Compute_SSWP");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
    if (!g.has_weights)
      throw starc::InputError(g.path + ": Compute_SSWP needs edge weights (propEdge<int> weight), the file has none");
    int src = cl.get_node("src", g);
    std::vector<int> weight(g.weights.size());
    for (size_t e = 0; e < weight.size(); ++e) weight[e] = static_cast<int>(g.weights[e]);
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<int> width = starc::timed_trials(cl.trials, cl.time, [&] { return sswp(g, weight, src); });
    starc::Results results(cl, "Compute_SSWP", "openmp-baseline");
    results.prop("width", width.data(), g.num_nodes);
    results.close();
  });
}
