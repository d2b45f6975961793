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
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "starc_cli.hpp"
#include "starc_graph.hpp"

// The passes over the edges share the OpenMP threads where the build enables OpenMP (every
// backend's host build but a real SYCL compiler's: the backends' toolchain.py); elsewhere the
// pragmas expand to nothing and the same loops run on one thread.
#if defined(_OPENMP)
#include <omp.h>
#define STARC_OMP(directive) _Pragma(#directive)
#else
#define STARC_OMP(directive)
#endif

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

/// Whether every row is strictly increasing (no repeated edge): all that is left to check
/// when the reader mirrored every edge itself (Graph::mirrored).
inline bool rows_strictly_increasing(const std::vector<int>& offsets, const std::vector<int>& targets, int n) {
  bool increasing = true;
  STARC_OMP(omp parallel for reduction(&& : increasing) schedule(dynamic, 4096))
  for (int v = 0; v < n; ++v)
    for (int e = offsets[static_cast<size_t>(v)] + 1; e < offsets[static_cast<size_t>(v) + 1]; ++e)
      if (targets[static_cast<size_t>(e) - 1] >= targets[static_cast<size_t>(e)]) increasing = false;
  return increasing;
}

/// The calling thread's index among `count` in an OpenMP team (0 of 1 without OpenMP).
inline void thread_share(int& index, int& count) {
#if defined(_OPENMP)
  index = omp_get_thread_num();
  count = omp_get_num_threads();
#else
  index = 0;
  count = 1;
#endif
}

/// Whether every row is strictly increasing (no repeated edge) and every edge u -> v has its
/// v -> u. Visiting v in ascending order, each edge v -> u with u > v must be the next
/// unmatched entry below u in u's sorted row; at the end no row may keep an unmatched entry
/// below its own vertex. Each thread checks the rows u of its own range (an equal share of the
/// edges), finding in every lower row the entries that point into it by a binary search.
inline bool symmetric_and_simple(const std::vector<int>& offsets, const std::vector<int>& targets, int n) {
  if (!rows_strictly_increasing(offsets, targets, n)) return false;
  std::vector<int> unmatched(offsets.begin(), offsets.end() - 1);
  bool mirrored = true;
  STARC_OMP(omp parallel reduction(&& : mirrored))
  {
    int part = 0, parts = 1;
    thread_share(part, parts);
    auto vertex_at_share = [&](int k) {
      long long edge = static_cast<long long>(offsets[static_cast<size_t>(n)]) * k / parts;
      return static_cast<int>(std::lower_bound(offsets.begin(), offsets.end() - 1, edge) - offsets.begin());
    };
    // the last range ends at n: vertices of degree 0 after the last edge can still be targets
    const int lo = vertex_at_share(part), hi = part + 1 == parts ? n : vertex_at_share(part + 1);
    for (int v = 0; v + 1 < hi && mirrored; ++v) {
      auto row_end = targets.begin() + offsets[static_cast<size_t>(v) + 1];
      auto entry = std::lower_bound(targets.begin() + offsets[static_cast<size_t>(v)], row_end, std::max(lo, v + 1));
      for (; entry != row_end && *entry < hi; ++entry) {
        int u = *entry;
        int& next = unmatched[static_cast<size_t>(u)];
        if (next >= offsets[static_cast<size_t>(u) + 1] || targets[static_cast<size_t>(next)] != v) mirrored = false;
        ++next;
      }
    }
    for (int u = lo; u < hi; ++u) {
      int next = unmatched[static_cast<size_t>(u)];
      if (next < offsets[static_cast<size_t>(u) + 1] && targets[static_cast<size_t>(next)] < u) mirrored = false;
    }
  }
  return mirrored;
}

/// The new ids: ascending degree, ties by id (a stable counting sort; O(n), the edges' passes
/// are what the threads share).
inline void number_by_degree(const std::vector<int>& offsets, int n, std::vector<int>& new_id, std::vector<int>& old_id) {
  int max_degree = 0;
  for (int v = 0; v < n; ++v) max_degree = std::max(max_degree, degree_of(offsets, v));
  std::vector<int> first(static_cast<size_t>(max_degree) + 2, 0);
  for (int v = 0; v < n; ++v) ++first[static_cast<size_t>(degree_of(offsets, v)) + 1];
  for (size_t d = 1; d < first.size(); ++d) first[d] += first[d - 1];
  new_id.assign(static_cast<size_t>(n), 0);
  old_id.assign(static_cast<size_t>(n), 0);
  for (int v = 0; v < n; ++v) {
    int id = first[static_cast<size_t>(degree_of(offsets, v))]++;
    new_id[static_cast<size_t>(v)] = id;
    old_id[static_cast<size_t>(id)] = v;
  }
}

/// Writes the row of new vertex `id` (the new ids of its old row's targets, ascending) at
/// `out`. A long row is sorted by marking its entries in `marks`, a bitmap over the new ids
/// (no entry repeats), and reading them back in order: d + n/64 steps against d log d for a
/// comparison sort, so the bitmap is taken where d log2 d exceeds about an eighth of the
/// bitmap's words (measured on R-MAT 20: 1.3 s -> 1.0 s on one thread).
inline void renumbered_row(const Graph& g, const std::vector<int>& new_id, int old, int* out,
                           std::vector<unsigned long long>& marks) {
  const int begin = g.offsets[static_cast<size_t>(old)], end = g.offsets[static_cast<size_t>(old) + 1];
  const int degree = end - begin;
  const size_t words = (static_cast<size_t>(g.num_nodes) + 63) / 64;
  const double log_degree = degree > 1 ? std::log2(static_cast<double>(degree)) : 0;
  if (8 * static_cast<double>(degree) * log_degree < static_cast<double>(words)) {
    for (int e = begin; e < end; ++e) out[e - begin] = new_id[static_cast<size_t>(g.targets[static_cast<size_t>(e)])];
    std::sort(out, out + degree);
    return;
  }
  if (marks.empty()) marks.assign(words, 0);
  for (int e = begin; e < end; ++e) {
    int t = new_id[static_cast<size_t>(g.targets[static_cast<size_t>(e)])];
    marks[static_cast<size_t>(t) >> 6] |= 1ULL << (t & 63);
  }
  for (size_t w = 0; w < words; ++w) {
    unsigned long long bits = marks[w];
    if (bits == 0) continue;
    marks[w] = 0;  // left clear for the thread's next long row
    for (; bits != 0; bits &= bits - 1) *out++ = static_cast<int>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
  }
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
  STARC_OMP(omp parallel for schedule(dynamic, 4096))
  for (int v = 0; v < n; ++v)
    for (int e = order.offsets[static_cast<size_t>(v)]; e < order.offsets[static_cast<size_t>(v) + 1]; ++e)
      order.sources[static_cast<size_t>(e)] = v;
}

/// The forward CSR of `g` renumbered by ascending degree, ties by id (see the file comment).
/// The passes over the edges run on the OpenMP threads where the build has them.
inline DegreeOrder order_by_degree(const Graph& g, DegreeOrderMode mode) {
  DegreeOrder order;
  int n = g.num_nodes;
  if (mode == DegreeOrderMode::Never) return order;
  if (mode == DegreeOrderMode::Auto && !skewed(g.offsets, n)) return order;
  if (g.mirrored ? !detail::rows_strictly_increasing(g.offsets, g.targets, n)
                 : !detail::symmetric_and_simple(g.offsets, g.targets, n))
    return order;
  std::vector<int> new_id, old_id;
  detail::number_by_degree(g.offsets, n, new_id, old_id);
  order.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (int id = 0; id < n; ++id)
    order.offsets[static_cast<size_t>(id) + 1] = order.offsets[static_cast<size_t>(id)] + detail::degree_of(g.offsets, old_id[static_cast<size_t>(id)]);
  order.targets.resize(g.targets.size());
  STARC_OMP(omp parallel)
  {
    std::vector<unsigned long long> marks;  // this thread's bitmap, for long rows
    STARC_OMP(omp for schedule(dynamic, 256))
    for (int id = 0; id < n; ++id)
      detail::renumbered_row(g, new_id, old_id[static_cast<size_t>(id)],
                             order.targets.data() + order.offsets[static_cast<size_t>(id)], marks);
  }
  order.applied = true;
  return order;
}

}  // namespace starc

#endif  // STARC_DEGREE_ORDER_HPP
