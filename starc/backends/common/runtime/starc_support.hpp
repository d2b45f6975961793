// starc runtime: host helpers the generated algorithm calls (edge-weight parameters, minWt/maxWt).
//
// Part of the shared, header-only C++17 runtime of starc-generated programs (CUDA, SYCL,
// OpenACC and MPI hosts), included through starc_runtime.hpp. Everything is a template, so a
// program pays only for what it calls.
#ifndef STARC_SUPPORT_HPP
#define STARC_SUPPORT_HPP

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "starc_graph.hpp"

namespace starc {

/// The file's edge weights as the elements of propEdge parameter `name` (of DSL type `type`,
/// e.g. "propEdge<int>"), in CSR order, written into `weights` (in the memory it holds where
/// that is enough: MPI's ranks convert their weights again after every batch part, where a
/// fresh vector each time cost page faults). Throws InputError when the file has no weights,
/// or, for an integer element type, when a weight is not an integer or does not fit.
template <typename T>
void assign_edge_weights(std::vector<T>& weights, const Graph& g, const char* name, const char* type) {
  if (!g.has_weights)
    throw InputError(g.path + ": the program reads edge weights (" + type + " " + name +
                     ") but the file has none");
  weights.resize(g.weights.size());
  for (std::size_t e = 0; e < weights.size(); ++e) {
    double w = g.weights[e];
    // bool elements are stored as unsigned char: any weight converts, as in C.
    if constexpr (std::is_integral<T>::value && !std::is_same<T, unsigned char>::value) {
      if (!g.weights_integral)
        throw InputError(g.path + ": " + type + " " + name +
                         " needs integer weights but the file has non-integer ones");
      if (w < static_cast<double>(std::numeric_limits<T>::lowest()) ||
          w > static_cast<double>(std::numeric_limits<T>::max()))
        throw InputError(g.path + ": edge weight " + std::to_string(w) + " does not fit in " +
                         type);
    }
    weights[e] = static_cast<T>(w);
  }
}

/// assign_edge_weights into a new vector.
template <typename T>
std::vector<T> edge_weights(const Graph& g, const char* name, const char* type) {
  std::vector<T> weights;
  assign_edge_weights(weights, g, name, type);
  return weights;
}

/// minWt: the smallest edge weight, or `empty` when there are no edges.
template <typename T>
T min_weight(const std::vector<T>& w, T empty) {
  return w.empty() ? empty : *std::min_element(w.begin(), w.end());
}

/// maxWt: the largest edge weight, or `empty` when there are no edges.
template <typename T>
T max_weight(const std::vector<T>& w, T empty) {
  return w.empty() ? empty : *std::max_element(w.begin(), w.end());
}

/// minWt / maxWt of a graph in rows with slack: only the slots in use, row v's being
/// offsets[v]..ends[v] (a free slot holds a stale or default weight); `empty` without edges.
template <typename T, typename Better>
T live_weight_bound(const std::vector<T>& w, const std::vector<int>& offsets,
                    const std::vector<int>& ends, T empty, Better better) {
  T bound = empty;
  for (size_t v = 0; v < ends.size(); ++v)
    for (int e = offsets[v]; e < ends[v]; ++e)
      if (better(w[static_cast<size_t>(e)], bound)) bound = w[static_cast<size_t>(e)];
  return bound;
}

template <typename T>
T min_weight(const std::vector<T>& w, const std::vector<int>& offsets,
             const std::vector<int>& ends, T empty) {
  return live_weight_bound(w, offsets, ends, empty, [](T a, T b) { return a < b; });
}

template <typename T>
T max_weight(const std::vector<T>& w, const std::vector<int>& offsets,
             const std::vector<int>& ends, T empty) {
  return live_weight_bound(w, offsets, ends, empty, [](T a, T b) { return a > b; });
}

/// The width of a worklist's priority window (analysis/priority_window.py): `scale` times the
/// mean absolute weight over the mean out-degree, at least 1. The mean is taken over up to
/// 4,096 weights spread evenly over `w` (a scale estimate: in rows with slack a free slot's
/// stale weight may be among them), so it costs nothing beside a round.
template <typename T>
int window_delta(const std::vector<T>& w, long long edges, long long nodes, int scale) {
  const long long count = static_cast<long long>(w.size());
  if (count == 0 || edges <= 0) return 1;
  const long long samples = std::min<long long>(count, 4096);
  double sum = 0;
  for (long long i = 0; i < samples; ++i) {
    const double x = static_cast<double>(w[static_cast<size_t>(i * count / samples)]);
    sum += x < 0 ? -x : x;
  }
  const double delta = scale * (sum / samples) * static_cast<double>(nodes) / edges;
  return delta < 1 ? 1 : delta > 1e9 ? 1000000000 : static_cast<int>(delta);
}

}  // namespace starc

#endif  // STARC_SUPPORT_HPP
