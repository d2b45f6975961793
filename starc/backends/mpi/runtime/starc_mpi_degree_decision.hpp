// starc MPI runtime: whether to renumber a distributed graph by degree (its collective tests).
//
// Part of the header-only runtime of starc-generated MPI programs (included by
// starc_mpi_degree_order.hpp, whose order_by_degree asks these before renumbering). The
// decision is the shared one (starc_degree_order.hpp), taken on the distributed graph: the
// whole graph symmetric without repeated edges (symmetric_and_simple) and, in Auto mode,
// skewed by the same 1000-vertex sample (skewed), so every backend renumbers the same graphs.
//
// starc_mpi.hpp comes first, outside the include guard: it includes
// starc_mpi_degree_order.hpp at its end, so where this header is included on its own, that
// file's include of it then defines everything below before order_by_degree needs it, and
// the rest of this file is skipped.
#include "starc_mpi.hpp"

#ifndef STARC_MPI_DEGREE_DECISION_HPP
#define STARC_MPI_DEGREE_DECISION_HPP

#include <algorithm>
#include <cstddef>
#include <vector>

namespace starc_mpi {
namespace detail {

inline int own_degree(const Distribution& d, int v) {  // v: a local id with its row held
  return d.graph.offsets[static_cast<size_t>(v) + 1] - d.graph.offsets[static_cast<size_t>(v)];
}

inline bool everywhere(const Distribution& d, bool mine) {
  int flag = mine ? 1 : 0, all = 0;
  CollectiveCpu waiting;
  MPI_Allreduce(&flag, &all, 1, MPI_INT, MPI_LAND, d.comm);
  return all != 0;
}

/// starc::skewed on the distributed graph: the same average and the same sample (collective).
inline bool skewed(const Distribution& d) {
  long long n = d.graph.num_nodes;
  if (n == 0 || d.global_edges / n < 10) return false;
  int count = static_cast<int>(std::min<long long>(n, 1000));
  std::vector<int> degrees(static_cast<size_t>(count), 0);
  for (int k = 0; k < count; ++k) {
    int v = static_cast<int>(static_cast<long long>(k) * n / count);
    if (d.owns(v)) degrees[static_cast<size_t>(k)] = own_degree(d, d.local_of(v));
  }
  {
    CollectiveCpu waiting;
    MPI_Allreduce(MPI_IN_PLACE, degrees.data(), count, MPI_INT, MPI_SUM, d.comm);
  }
  double total = 0;
  for (int x : degrees) total += x;
  std::nth_element(degrees.begin(), degrees.begin() + count / 2, degrees.end());
  return total / count > 1.3 * degrees[static_cast<size_t>(count / 2)];
}

/// Whether every row is strictly increasing (no repeated edge) and, unless the reader mirrored
/// every edge, every edge u -> v has its v -> u (collective). Rows without repeats are
/// symmetric when each upward edge (u < v) has its reverse and there are as many downward
/// edges: each upward one is sent to the owner of v, which looks for u in v's row.
inline bool symmetric_and_simple(const Distribution& d) {
  const starc::Graph& g = d.graph;
  bool simple = true;
  long long up = 0, down = 0;
  struct Pair { int from, to; };  // global ids: the edge from -> to, whose reverse is looked for
  std::vector<Pair> asked;
  for (int v = d.own_begin; v < d.own_end && simple; ++v)
    for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e) {
      int u = g.targets[static_cast<size_t>(e)];
      if (e > g.offsets[static_cast<size_t>(v)] && g.targets[static_cast<size_t>(e) - 1] >= u) simple = false;
      if (u > v) {
        ++up;
        if (!d.mirrored) asked.push_back({d.global_id[static_cast<size_t>(v)], d.global_id[static_cast<size_t>(u)]});
      } else if (u < v) {
        ++down;
      }
    }
  if (!everywhere(d, simple)) return false;
  if (d.mirrored) return true;
  long long counts[2] = {up, down};
  {
    CollectiveCpu waiting;
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, d.comm);
  }
  std::vector<Pair> mine = exchange(d, asked, [&](const Pair& p) { return d.owner(p.to); });
  bool found = counts[0] == counts[1];
  for (const Pair& p : mine) {
    int v = d.local_of(p.to), u = d.local_of(p.from);
    const int* row = g.targets.data();
    if (u < 0 || !std::binary_search(row + g.offsets[static_cast<size_t>(v)], row + g.offsets[static_cast<size_t>(v) + 1], u)) {
      found = false;
      break;
    }
  }
  return everywhere(d, found);
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_DEGREE_DECISION_HPP
