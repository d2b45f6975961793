// Hand-written OpenMP baseline for dsl/bfs.sp (Compute_BFS): BFS levels from src.
//
// Direction-optimizing BFS (Beamer et al.): top-down steps push from the frontier over
// out-edges and claim unvisited vertices with compare-and-swap; once the frontier's out-edges
// outnumber the unexplored edges / ALPHA, bottom-up steps let every unvisited vertex look for a
// parent among its in-neighbours (reverse CSR) in a frontier bitmap, race-free and stopping at
// the first parent found; back to top-down when the frontier shrinks below n / BETA.
// Levels are unique, so both directions give exactly the dsl program's results (-1 unreached).
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime bfs.cpp
//   run:   ./bfs GRAPH --src 0 [--undirected] [--out F] [--time]
#include <algorithm>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

constexpr long long ALPHA = 15, BETA = 18;  // the switching thresholds of the GAP benchmark
// Frontiers smaller than this are expanded by one thread: a parallel region costs more than
// the work, especially when the cores are shared.
constexpr int PARALLEL_MIN = 256;

/// One top-down step; returns the out-degree sum of the new frontier (the "scout count").
long long top_down(const starc::Graph& g, std::vector<int>& level, const std::vector<int>& frontier,
                   int frontier_size, std::vector<int>& next, int& next_size, int depth) {
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  long long scout = 0;
  next_size = 0;
#pragma omp parallel reduction(+ : scout) if (frontier_size >= PARALLEL_MIN)
  {
    std::vector<int> local;
#pragma omp for schedule(dynamic, 64) nowait
    for (int i = 0; i < frontier_size; ++i) {
      int v = frontier[i];
      for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
        int w = targets[e];
        int unseen = -1;
        if (__atomic_load_n(&level[w], __ATOMIC_RELAXED) == -1 &&
            __atomic_compare_exchange_n(&level[w], &unseen, depth + 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
          local.push_back(w);
          scout += g.out_degree(w);
        }
      }
    }
    int at = __atomic_fetch_add(&next_size, static_cast<int>(local.size()), __ATOMIC_RELAXED);
    std::copy(local.begin(), local.end(), next.begin() + at);
  }
  return scout;
}

/// One bottom-up step from the bitmap `in_frontier` into `in_next`; returns the number awakened.
int bottom_up(const starc::Graph& g, std::vector<int>& level, const std::vector<unsigned char>& in_frontier,
              std::vector<unsigned char>& in_next, int depth) {
  const int n = g.num_nodes;
  const int* rev_offsets = g.rev_offsets.data();
  const int* rev_sources = g.rev_sources.data();
  int awake = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : awake)
  for (int v = 0; v < n; ++v) {
    in_next[v] = 0;
    if (level[v] != -1) continue;
    for (int e = rev_offsets[v]; e < rev_offsets[v + 1]; ++e) {
      if (in_frontier[rev_sources[e]]) {
        level[v] = depth + 1;
        in_next[v] = 1;
        ++awake;
        break;
      }
    }
  }
  return awake;
}

std::vector<int> bfs(const starc::Graph& g, int src) {
  const int n = g.num_nodes;
  std::vector<int> level(n, -1);
  std::vector<int> frontier(n), next(n);
  std::vector<unsigned char> in_frontier, in_next;
  level[src] = 0;
  frontier[0] = src;
  int frontier_size = 1, depth = 0;
  long long edges_to_check = g.num_edges, scout = g.out_degree(src);
  while (frontier_size > 0) {
    if (scout > edges_to_check / ALPHA) {
      if (in_frontier.empty()) {
        in_frontier.assign(n, 0);
        in_next.assign(n, 0);
      } else {
#pragma omp parallel for schedule(static)
        for (int v = 0; v < n; ++v) in_frontier[v] = 0;
      }
#pragma omp parallel for schedule(static)
      for (int i = 0; i < frontier_size; ++i) in_frontier[frontier[i]] = 1;
      int awake = frontier_size, previous;
      do {
        previous = awake;
        awake = bottom_up(g, level, in_frontier, in_next, depth++);
        in_frontier.swap(in_next);
      } while (awake > 0 && (awake >= previous || awake > n / BETA));
      // Back to a vertex list for the top-down steps.
      frontier_size = 0;
#pragma omp parallel
      {
        std::vector<int> local;
#pragma omp for schedule(static) nowait
        for (int v = 0; v < n; ++v)
          if (in_frontier[v]) local.push_back(v);
        int at = __atomic_fetch_add(&frontier_size, static_cast<int>(local.size()), __ATOMIC_RELAXED);
        std::copy(local.begin(), local.end(), frontier.begin() + at);
      }
      scout = 1;
    } else {
      edges_to_check -= scout;
      int next_size = 0;
      scout = top_down(g, level, frontier, frontier_size, next, next_size, depth++);
      frontier.swap(next);
      frontier_size = next_size;
    }
  }
  return level;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {{"src", starc::ParamKind::Node, true}}, "Compute_BFS");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
    int src = cl.get_node("src", g);
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<int> level = starc::timed_trials(cl.trials, cl.time, [&] { return bfs(g, src); });
    starc::Results results(cl, "Compute_BFS", "openmp-baseline");
    results.prop("level", level.data(), g.num_nodes);
    results.close();
  });
}
