// Hand-written OpenMP baseline for dsl/kcore.sp (Compute_KCore): k-core membership by peeling.
//
// Instead of rescanning every vertex each round as the dsl program does, the peeling is driven
// by a work queue: the first frontier is every vertex with out-degree < k; removing a vertex
// atomically decrements its out-neighbours' degrees, and the one decrement that takes a vertex
// from k to k - 1 puts it in the next frontier (exactly once, without a flag). Removal only
// ever lowers degrees, so the surviving set is the same whatever the order: inCore and the
// returned core size equal the dsl program's. Degrees count repeated edges, as
// g.count_outNbrs does.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime kcore.cpp
//   run:   ./kcore GRAPH --k 3 --undirected [--out F] [--time]
#include <algorithm>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

// Frontiers smaller than this are peeled by one thread: a parallel region costs more than
// the work, especially when the cores are shared.
constexpr int PARALLEL_MIN = 256;

int kcore(const starc::Graph& g, int k, std::vector<unsigned char>& in_core) {
  const int n = g.num_nodes;
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  std::vector<int> degree(n), frontier(n), next(n);
  in_core.assign(n, 1);
  int frontier_size = 0;
#pragma omp parallel
  {
    std::vector<int> local;
#pragma omp for schedule(static) nowait
    for (int v = 0; v < n; ++v) {
      degree[v] = offsets[v + 1] - offsets[v];
      if (degree[v] < k) local.push_back(v);
    }
    int at = __atomic_fetch_add(&frontier_size, static_cast<int>(local.size()), __ATOMIC_RELAXED);
    std::copy(local.begin(), local.end(), frontier.begin() + at);
  }
  int removed = 0;
  while (frontier_size > 0) {
    removed += frontier_size;
    int next_size = 0;
#pragma omp parallel if (frontier_size >= PARALLEL_MIN)
    {
      std::vector<int> local;
#pragma omp for schedule(dynamic, 64) nowait
      for (int i = 0; i < frontier_size; ++i) {
        int v = frontier[i];
        in_core[v] = 0;
        for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
          int w = targets[e];
          if (__atomic_fetch_sub(&degree[w], 1, __ATOMIC_RELAXED) == k) local.push_back(w);
        }
      }
      int at = __atomic_fetch_add(&next_size, static_cast<int>(local.size()), __ATOMIC_RELAXED);
      std::copy(local.begin(), local.end(), next.begin() + at);
    }
    frontier.swap(next);
    frontier_size = next_size;
  }
  return n - removed;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {{"k", starc::ParamKind::Int, true}}, "Compute_KCore");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
    int k = static_cast<int>(cl.get_int("k"));
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<unsigned char> in_core;
    int core_size = starc::timed_trials(cl.trials, cl.time, [&] { return kcore(g, k, in_core); });
    starc::Results results(cl, "Compute_KCore", "openmp-baseline");
    results.prop("inCore", in_core.data(), g.num_nodes);
    results.ret(core_size);
    results.close();
  });
}
