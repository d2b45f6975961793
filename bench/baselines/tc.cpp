// Hand-written OpenMP baseline for dsl/tc.sp (Compute_TC): triangle counting on a symmetric
// graph, every triangle u < v < w counted once at its middle vertex v.
//
// The adjacency lists are sorted (the CSR is ordered by (src, dst)), so for every v and every
// neighbour u < v the count is |{w in N(v) : w > v} intersect N(u)|, found by a linear merge of
// the two sorted ranges, or by binary searches when N(u) is much longer (hubs of skewed graphs).
// Like the dsl program's loops, repeated edges count once per copy in N(v) and membership in
// N(u) counts once, so multigraphs give the same number too. Vertices are handed out
// dynamically and the count is an OpenMP reduction.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime tc.cpp
//   run:   ./tc GRAPH --undirected [--out F] [--time]
#include <algorithm>
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

/// How many elements of the sorted range a (with repeats) occur in the sorted range b.
inline long long count_members(const int* a, const int* a_end, const int* b, const int* b_end) {
  long long count = 0;
  long long a_len = a_end - a, b_len = b_end - b;
  if (a_len == 0 || b_len == 0) return 0;
  if (b_len > 32 * a_len) {  // galloping: a few binary searches beat walking a hub's list
    for (; a < a_end; ++a) {
      b = std::lower_bound(b, b_end, *a);
      if (b == b_end) break;
      count += *b == *a;
    }
    return count;
  }
  while (a < a_end && b < b_end) {
    if (*a < *b) {
      ++a;
    } else if (*a > *b) {
      ++b;
    } else {
      ++count;
      ++a;  // keep b: a repeated w in N(v) matches the same edge u-w again
    }
  }
  return count;
}

long long triangles(const starc::Graph& g) {
  const int n = g.num_nodes;
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  long long count = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : count)
  for (int v = 0; v < n; ++v) {
    const int* begin = targets + offsets[v];
    const int* end = targets + offsets[v + 1];
    const int* smaller_end = std::lower_bound(begin, end, v);   // u < v
    const int* larger = std::upper_bound(smaller_end, end, v);  // w > v
    if (larger == end) continue;
    for (const int* u = begin; u < smaller_end; ++u) {
      const int* u_begin = targets + offsets[*u];
      const int* u_end = targets + offsets[*u + 1];
      count += count_members(larger, end, std::upper_bound(u_begin, u_end, v), u_end);
    }
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv, {}, "Compute_TC");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    long long count = starc::timed_trials(cl.trials, cl.time, [&] { return triangles(g); });
    starc::Results results(cl, "Compute_TC", "openmp-baseline");
    results.ret(count);
    results.close();
  });
}
