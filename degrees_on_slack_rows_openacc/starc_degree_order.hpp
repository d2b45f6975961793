// starc runtime: renumbering the vertices by degree, for the ordered triangle count.
//
// The plan's OrderByDegree (starc/analysis/degree_order.py) is placed only in programs whose
// results cannot tell the vertex ids; it runs inside the timed span, as GAPBS times its
// relabelling inside its kernel. order_by_degree(g, mode) returns the forward CSR renumbered
// by ascending degree (ties by id), rows sorted, when
//   * the graph is symmetric without repeated edges (then every triangle is counted once
//     under any numbering; a directed or multi-edge graph keeps the file's ids), and
//   * mode is Always, or Auto and the graph is skewed (skewed()).
// Ascending order (hubs last) suits the count of dsl/tc.sp at its middle vertex v: the pairs
// a vertex checks are its lower-numbered (lower-degree) neighbours times its higher-numbered
// ones, at most about sqrt(2m) of them, and each edge test gallops along the short row of
// the lower neighbour.
#ifndef STARC_DEGREE_ORDER_HPP
#define STARC_DEGREE_ORDER_HPP

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "starc_cli.hpp"
#include "starc_graph.hpp"

namespace starc {

enum class DegreeOrderMode { Auto, Always, Never };

/// The program option --degree-order auto|always|never (default auto).
inline DegreeOrderMode degree_order_mode(const CommandLine& cl) {
  std::string mode = cl.get_extra("degree-order", "auto");
  if (mode == "auto") return DegreeOrderMode::Auto;
  if (mode == "always") return DegreeOrderMode::Always;
  if (mode == "never") return DegreeOrderMode::Never;
  throw UsageError("--degree-order expects auto, always or never, got '" + mode + "'");
}

/// A renumbered forward CSR; `applied` false when the graph keeps its ids.
struct DegreeOrder {
  bool applied = false;
  std::vector<int> offsets, targets;
  std::vector<int> sources;  // filled by fill_sources, for kernels over the edges
};

namespace detail {

inline int degree_of(const std::vector<int>& offsets, int v) {
  return offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)];
}

/// Whether every row is strictly increasing (no repeated edge) and every edge u -> v has its
/// v -> u. One pass: visiting v in ascending order, each edge v -> u with u > v must be the
/// next unmatched entry below u in u's sorted row; at the end no row may keep an unmatched
/// entry below its own vertex.
inline bool symmetric_and_simple(const std::vector<int>& offsets, const std::vector<int>& targets, int n) {
  std::vector<int> unmatched(offsets.begin(), offsets.end() - 1);
  for (int v = 0; v < n; ++v) {
    int begin = offsets[static_cast<size_t>(v)], end = offsets[static_cast<size_t>(v) + 1];
    for (int e = begin; e < end; ++e) {
      int u = targets[static_cast<size_t>(e)];
      if (e > begin && targets[static_cast<size_t>(e) - 1] >= u) return false;
      if (u <= v) continue;
      int& next = unmatched[static_cast<size_t>(u)];
      if (next >= offsets[static_cast<size_t>(u) + 1] || targets[static_cast<size_t>(next)] != v) return false;
      ++next;
    }
  }
  for (int u = 0; u < n; ++u) {
    int next = unmatched[static_cast<size_t>(u)];
    if (next < offsets[static_cast<size_t>(u) + 1] && targets[static_cast<size_t>(next)] < u) return false;
  }
  return true;
}

/// Whether every row is strictly increasing (no repeated edge): all that is left to check
/// when the reader mirrored every edge itself (Graph::mirrored), in one sequential pass.
inline bool rows_strictly_increasing(const std::vector<int>& offsets, const std::vector<int>& targets, int n) {
  for (int v = 0; v < n; ++v)
    for (int e = offsets[static_cast<size_t>(v)] + 1; e < offsets[static_cast<size_t>(v) + 1]; ++e)
      if (targets[static_cast<size_t>(e) - 1] >= targets[static_cast<size_t>(e)]) return false;
  return true;
}

}  // namespace detail

/// Whether renumbering pays: an average degree of at least 10 and a sample mean degree above
/// 1.3 times the sample median (GAPBS's rule of thumb for power-law graphs). The sample is
/// 1000 evenly spaced vertices, so a run is repeatable.
inline bool skewed(const std::vector<int>& offsets, int n) {
  if (n == 0 || offsets[static_cast<size_t>(n)] / n < 10) return false;
  int count = std::min(n, 1000);
  std::vector<int> degrees(static_cast<size_t>(count));
  double total = 0;
  for (int k = 0; k < count; ++k) {
    int v = static_cast<int>(static_cast<long long>(k) * n / count);
    degrees[static_cast<size_t>(k)] = detail::degree_of(offsets, v);
    total += degrees[static_cast<size_t>(k)];
  }
  std::nth_element(degrees.begin(), degrees.begin() + count / 2, degrees.end());
  return total / count > 1.3 * degrees[static_cast<size_t>(count / 2)];
}

/// The source vertex of every edge of the renumbered rows (a kernel over the graph's edges
/// finds its vertex there).
inline void fill_sources(DegreeOrder& order) {
  const int n = static_cast<int>(order.offsets.size()) - 1;
  order.sources.assign(order.targets.size(), 0);
  for (int v = 0; v < n; ++v)
    for (int e = order.offsets[static_cast<size_t>(v)]; e < order.offsets[static_cast<size_t>(v) + 1]; ++e)
      order.sources[static_cast<size_t>(e)] = v;
}

/// The forward CSR of `g` renumbered by ascending degree, ties by id (see the file comment).
inline DegreeOrder order_by_degree(const Graph& g, DegreeOrderMode mode) {
  DegreeOrder order;
  int n = g.num_nodes;
  if (mode == DegreeOrderMode::Never) return order;
  if (mode == DegreeOrderMode::Auto && !skewed(g.offsets, n)) return order;
  if (g.mirrored ? !detail::rows_strictly_increasing(g.offsets, g.targets, n)
                 : !detail::symmetric_and_simple(g.offsets, g.targets, n))
    return order;
  // New ids: a counting sort by degree, stable, so equal degrees keep their id order.
  int max_degree = 0;
  for (int v = 0; v < n; ++v) max_degree = std::max(max_degree, detail::degree_of(g.offsets, v));
  std::vector<int> first(static_cast<size_t>(max_degree) + 2, 0);
  for (int v = 0; v < n; ++v) ++first[static_cast<size_t>(detail::degree_of(g.offsets, v)) + 1];
  for (size_t d = 1; d < first.size(); ++d) first[d] += first[d - 1];
  std::vector<int> new_id(static_cast<size_t>(n)), old_id(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) {
    int id = first[static_cast<size_t>(detail::degree_of(g.offsets, v))]++;
    new_id[static_cast<size_t>(v)] = id;
    old_id[static_cast<size_t>(id)] = v;
  }
  order.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (int id = 0; id < n; ++id)
    order.offsets[static_cast<size_t>(id) + 1] = order.offsets[static_cast<size_t>(id)] + detail::degree_of(g.offsets, old_id[static_cast<size_t>(id)]);
  // Rows without sorting: the graph is symmetric, so visiting the vertices t in new-id order
  // and appending t to the row of each of its neighbours fills every row in ascending order.
  order.targets.resize(g.targets.size());
  std::vector<int> next(order.offsets.begin(), order.offsets.end() - 1);
  for (int t = 0; t < n; ++t) {
    int old = old_id[static_cast<size_t>(t)];
    for (int e = g.offsets[static_cast<size_t>(old)]; e < g.offsets[static_cast<size_t>(old) + 1]; ++e) {
      int s = new_id[static_cast<size_t>(g.targets[static_cast<size_t>(e)])];
      order.targets[static_cast<size_t>(next[static_cast<size_t>(s)]++)] = t;
    }
  }
  order.applied = true;
  return order;
}

}  // namespace starc

#endif  // STARC_DEGREE_ORDER_HPP
