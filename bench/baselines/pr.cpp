// Hand-written OpenMP baseline for dsl/pr.sp (Compute_PR): PageRank, pull formulation.
//
// float arithmetic exactly as the dsl program: every vertex sums rank/out-degree over its
// in-neighbours (reverse CSR, same order), val = (1 - delta) / n + delta * sum, diff is the sum of
// |val - rank| (an OpenMP reduction), and the loop runs until diff <= beta or maxIter rounds.
// What a careful hand-written version adds: each round first computes every vertex's
// contribution rank/out-degree once (n divisions instead of m, the same float quotient the dsl
// program computes per edge), and the two rank buffers are swapped instead of copied.
//   build: g++ -O3 -march=native -fopenmp -std=c++17 -I starc/backends/common/runtime pr.cpp
//   run:   ./pr GRAPH --beta 0.001 --delta 0.85 --maxIter 100 [--undirected] [--out F] [--time]
#include <vector>

#include <omp.h>

#include "starc_runtime.hpp"

namespace {

std::vector<float> pagerank(const starc::Graph& g, float beta, float delta, int max_iter) {
  const int n = g.num_nodes;
  const float num_nodes = static_cast<float>(n);
  std::vector<float> rank(n, 1 / num_nodes), next(n, 0.0f), contribution(n, 0.0f);
  const int* offsets = g.offsets.data();
  const int* rev_offsets = g.rev_offsets.data();
  const int* rev_sources = g.rev_sources.data();
  const float base = (1 - delta) / num_nodes;
  int iterations = 0;
  float diff;
  do {
    diff = 0;
    float* r = rank.data();
    float* nx = next.data();
    float* c = contribution.data();
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (int u = 0; u < n; ++u) {
        int degree = offsets[u + 1] - offsets[u];
        c[u] = degree > 0 ? r[u] / static_cast<float>(degree) : 0.0f;
      }
#pragma omp for schedule(dynamic, 256) reduction(+ : diff)
      for (int v = 0; v < n; ++v) {
        float sum = 0;
        for (int e = rev_offsets[v]; e < rev_offsets[v + 1]; ++e) sum = sum + c[rev_sources[e]];
        float val = base + delta * sum;
        diff += val > r[v] ? val - r[v] : r[v] - val;
        nx[v] = val;
      }
    }
    rank.swap(next);
    ++iterations;
  } while (diff > beta && iterations < max_iter);
  return rank;
}

}  // namespace

int main(int argc, char** argv) {
  return starc::guarded_main(argv[0], [&] {
    starc::CommandLine cl(argc, argv,
                          {{"beta", starc::ParamKind::Float, true},
                           {"delta", starc::ParamKind::Float, true},
                           {"maxIter", starc::ParamKind::Int, true}},
                          "Compute_PR");
    starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
    float beta = static_cast<float>(cl.get_double("beta"));
    float delta = static_cast<float>(cl.get_double("delta"));
    int max_iter = static_cast<int>(cl.get_int("maxIter"));
#pragma omp parallel
    { (void)omp_get_thread_num(); }  // start the thread pool outside the timed region
    std::vector<float> rank = starc::timed_trials(cl.trials, cl.time, [&] { return pagerank(g, beta, delta, max_iter); });
    starc::Results results(cl, "Compute_PR", "openmp-baseline");
    results.prop("pageRank", rank.data(), g.num_nodes);
    results.close();
  });
}
