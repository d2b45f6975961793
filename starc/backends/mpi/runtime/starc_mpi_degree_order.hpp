// starc MPI runtime: renumbering a distributed graph by degree, for the ordered triangle count.
//
// Included at the end of starc_mpi.hpp. The plan's OrderByDegree (starc/analysis/degree_order.py)
// is placed only where no result can tell the vertex ids, and MPI renumbers only where the
// kernels read no ghost rows or only their searched slices (Needs::ghost_row_slices). The
// decision is the shared one (starc_degree_order.hpp; its collective tests on the distributed
// graph: starc_mpi_degree_decision.hpp): the whole graph symmetric without repeated edges and,
// in Auto mode, skewed by the same 1000-vertex sample, so every backend renumbers the same
// graphs. The new ids are the same too: ascending degree, ties by id.
//
// order_by_degree(d, mode) replaces `d` by the distribution of the renumbered graph, built
// without any n-long array and without sorting the edges:
//   * the new id of a vertex is the number of vertices of smaller degree, plus those of its
//     degree with smaller ids: one Allgatherv of each rank's (degree, count) pairs (at most
//     about 2 sqrt(m) distinct degrees) gives every rank the ids of its own vertices, and the
//     owners tell the ranks holding ghosts theirs;
//   * the new vertex ranges are balanced by the count's work (work_splits);
//   * every rank sends each of its rows' edges (t, s), as s's entry t, to the new owner of s
//     (the graph is symmetric, so that is s's row), grouped by t; as only t's old owner sends
//     t, the receiver fills its rows in ascending order by taking the groups in ascending t;
//   * ghost rows are fetched again as searched slices only.
// The distribution of the file's ids is kept (Distribution::unordered) and the next call
// starts from it again, so each --trials run renumbers the file's graph, as the other
// backends do.
#ifndef STARC_MPI_DEGREE_ORDER_HPP
#define STARC_MPI_DEGREE_ORDER_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "starc_degree_order.hpp"
#include "starc_mpi.hpp"
#include "starc_mpi_degree_decision.hpp"  // own_degree, skewed, symmetric_and_simple

namespace starc_mpi {
namespace detail {

/// The degree groups of the whole graph: distinct degrees ascending, the first new id of
/// each, and (for this rank) the first new id of its own vertices of each degree.
struct DegreeGroups {
  std::vector<long long> degree, first, mine;

  /// The degree of new id x.
  int degree_of(long long x) const {
    size_t k = static_cast<size_t>(std::upper_bound(first.begin(), first.end(), x) - first.begin()) - 1;
    return static_cast<int>(degree[k]);
  }
  size_t group(int degree_value) const {
    return static_cast<size_t>(std::lower_bound(degree.begin(), degree.end(), degree_value) - degree.begin());
  }
};

/// Collective: every rank's (degree, count) pairs to every rank (their number is small: the
/// distinct degrees d_1 < d_2 < ... of a graph with m edges number at most about 2 sqrt(m)).
inline DegreeGroups degree_groups(const Distribution& d) {
  std::vector<int> own(static_cast<size_t>(d.owned()));
  for (int v = d.own_begin; v < d.own_end; ++v) own[static_cast<size_t>(v - d.own_begin)] = own_degree(d, v);
  std::sort(own.begin(), own.end());
  std::vector<long long> pairs;  // degree, count, ...
  for (size_t k = 0; k < own.size(); ++k) {
    if (k == 0 || own[k] != own[k - 1]) pairs.insert(pairs.end(), {own[k], 0});
    ++pairs.back();
  }
  int length = static_cast<int>(pairs.size());
  std::vector<int> lengths(static_cast<size_t>(d.ranks));
  std::vector<int> displs;
  std::vector<long long> all;
  {
    CollectiveCpu waiting;
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, d.comm);
    displs = displacements(lengths);
    all.resize(static_cast<size_t>(displs.back()));
    MPI_Allgatherv(pairs.data(), length, MPI_LONG_LONG, all.data(), lengths.data(), displs.data(), MPI_LONG_LONG, d.comm);
  }
  DegreeGroups groups;
  for (size_t k = 0; k < all.size(); k += 2) groups.degree.push_back(all[k]);
  std::sort(groups.degree.begin(), groups.degree.end());
  groups.degree.erase(std::unique(groups.degree.begin(), groups.degree.end()), groups.degree.end());
  std::vector<long long> total(groups.degree.size(), 0), below(groups.degree.size(), 0);
  for (int r = 0; r < d.ranks; ++r)
    for (int k = displs[static_cast<size_t>(r)]; k < displs[static_cast<size_t>(r) + 1]; k += 2) {
      size_t at = groups.group(static_cast<int>(all[static_cast<size_t>(k)]));
      total[at] += all[static_cast<size_t>(k) + 1];
      if (r < d.rank) below[at] += all[static_cast<size_t>(k) + 1];
    }
  groups.first.assign(groups.degree.size(), 0);
  for (size_t k = 1; k < total.size(); ++k) groups.first[k] = groups.first[k - 1] + total[k - 1];
  groups.mine.resize(total.size());
  for (size_t k = 0; k < total.size(); ++k) groups.mine[k] = groups.first[k] + below[k];
  return groups;
}

/// Sends each own vertex's `value` (indexed by local id) to the ranks holding it as a ghost,
/// where it lands at the ghost's local id (collective).
inline void tell_ghosts(const Distribution& d, std::vector<int>& value) {
  struct Told { int to, value; };
  std::vector<Told> out(d.mirrors.size());
  for (size_t r = 0; r < static_cast<size_t>(d.ranks); ++r)
    for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k)
      out[static_cast<size_t>(k)] = {static_cast<int>(r), value[static_cast<size_t>(d.mirrors[static_cast<size_t>(k)])]};
  std::vector<Told> in = exchange(d, out, [](const Told& x) { return x.to; });
  for (size_t k = 0; k < in.size(); ++k) value[static_cast<size_t>(d.ghost_local[k])] = in[k].value;
}

/// log2(x) for x >= 1 to within 0.09: the exponent plus the mantissa's fraction (linear
/// between powers of two), cheaper than std::log2 for the work model's millions of pairs. Read
/// from the bits (x = 1.f 2^e, normal): std::frexp is a library call.
inline double log2_approx(double x) {
  uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1023} << 52);  // 1.f
  double mantissa = 0;
  std::memcpy(&mantissa, &bits, sizeof bits);
  return exponent + (mantissa - 1);
}

/// The new id and the degree of the far end of each own row entry (`far[e - d.owned_begin]`),
/// gathered once: one random access per entry, after which the work model and the sending of
/// the rows read them in order.
struct FarEnd {
  int id, degree;
};

inline std::vector<FarEnd> far_ends(const Distribution& d, const std::vector<int>& new_id) {
  const starc::Graph& g = d.graph;
  std::vector<FarEnd> far(static_cast<size_t>(d.owned_edges));
  const int* targets = g.targets.data() + d.owned_begin;
  for (size_t e = 0; e < far.size(); ++e) {
    size_t u = static_cast<size_t>(targets[e]);
    far[e] = {new_id[u], d.out_degree[u]};  // the degree: the graph is symmetric
  }
  return far;
}

/// The new vertex ranges, balanced by the count's work. dsl/tc.sp's count at v reads v's
/// row and, for each lower neighbour u (a pair), searches u's row for v (a binary search over
/// u's entries above v, with its cache misses) and walks v's higher neighbours along u's row
/// (galloping), which stops when either list runs out: at most min(upper(v), above(u, v))
/// steps, where above(u, v) counts u's entries above v. above(u, v) is estimated without u's
/// row as degree(u) times the share of all row entries that lie at vertices above v (from the
/// degree groups every rank holds): a neighbour is picked in proportion to its degree. So v
/// weighs kVertexCost + the sum over its pairs of kSearchCost log2(2 + above) + min(upper(v),
/// above), in walk steps. The costs are fitted to the kernel's CPU time per rank (2 ranks x
/// 1 thread, 14 splits of three graphs: Kronecker 18, a uniform random graph and an R-MAT
/// with a = 0.45, b = 0.25, c = 0.15; bench/RESULTS.md). Balanced by edges, the last rank held
/// the hubs and most of the pairs (Kronecker 18: 4x the first rank's kernel time); balanced
/// by the earlier model (pairs x 16 + a full walk of upper(v) per pair that can walk), the
/// first rank took 1.4x the second's: the hubs' walks along short ghost slices cost less per
/// step than the light vertices' searches in cold rows. On the renumbered graph the count runs
/// with its rows swapped (analysis/row_swap.py: u's row walked above v, v's searched); the
/// model, fitted to the count as written, still splits that kernel's CPU time within 4% at 2
/// ranks (R-MAT 18, bench/RESULTS.md), so it stays. `new_id` holds the new ids of the rank's
/// own vertices and ghosts (collective).
inline std::vector<int> work_splits(const Distribution& d, const std::vector<int>& new_id, const std::vector<FarEnd>& far,
                                    const DegreeGroups& groups) {
  const double kVertexCost = 9, kSearchCost = 6;
  struct Weighted {
    long long weight;
    int id;
  };
  const starc::Graph& g = d.graph;
  int n = g.num_nodes, R = d.ranks;
  // entries_from[k]: the row entries of the vertices of degree groups k, k + 1, ...
  size_t G = groups.degree.size();
  std::vector<double> entries_from(G + 1, 0.0);
  for (size_t k = G; k-- > 0;) {
    long long end = k + 1 < G ? groups.first[k + 1] : n;
    entries_from[k] = entries_from[k + 1] + static_cast<double>(groups.degree[k]) * static_cast<double>(end - groups.first[k]);
  }
  const double all_entries = std::max(entries_from[0], 1.0);
  std::vector<Weighted> out;
  out.reserve(static_cast<size_t>(d.owned()));
  for (int v = d.own_begin; v < d.own_end; ++v) {
    int id = new_id[static_cast<size_t>(v)];
    size_t k = static_cast<size_t>(std::upper_bound(groups.first.begin(), groups.first.end(), id) - groups.first.begin()) - 1;
    long long group_end = k + 1 < G ? groups.first[k + 1] : n;
    double share_above = (entries_from[k + 1] + static_cast<double>(groups.degree[k]) * static_cast<double>(group_end - 1 - id)) / all_entries;
    const FarEnd* row = far.data() + (g.offsets[static_cast<size_t>(v)] - d.owned_begin);
    const FarEnd* row_end = far.data() + (g.offsets[static_cast<size_t>(v) + 1] - d.owned_begin);
    double upper = 0;
    for (const FarEnd* e = row; e < row_end; ++e) upper += e->id > id;
    double weight = kVertexCost;
    for (const FarEnd* e = row; e < row_end; ++e) {
      if (e->id >= id) continue;
      double above = e->degree * share_above;
      weight += kSearchCost * log2_approx(2 + above) + std::min(upper, above);
    }
    out.push_back({std::llround(weight), id});
  }
  int lo = static_cast<int>(static_cast<long long>(n) * d.rank / R);
  int hi = static_cast<int>(static_cast<long long>(n) * (d.rank + 1) / R);
  std::vector<long long> weight(static_cast<size_t>(hi - lo), 0);
  for (const Weighted& x : exchange(d, out, [&](const Weighted& x) { return block_of(n, R, x.id); }))
    weight[static_cast<size_t>(x.id - lo)] = x.weight;
  return splits_of_blocks(d, n, lo, weight);
}

/// With --stats, the work of a collective phase outside the supersteps (order_by_degree) as
/// Stats::phase_work_ns: the process's CPU time over its scope less that of its collectives
/// (collective_cpu_sink), as a superstep's work leaves out its MPI calls'. `d` may be replaced
/// within the scope (its counters carried over): the scope ends on the one it then holds.
class Phase {
 public:
  explicit Phase(Distribution& d) : d_(d) {
    if (!d_.stats_enabled) return;
    collective_cpu_sink() = &d_.stats.mpi_cpu_ns;
    from_ = process_cpu_ns() - d_.stats.mpi_cpu_ns;
  }
  ~Phase() {
    if (!d_.stats_enabled) return;
    collective_cpu_sink() = nullptr;
    d_.stats.phase_work_ns.push_back(process_cpu_ns() - d_.stats.mpi_cpu_ns - from_);
  }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  Distribution& d_;
  long long from_ = 0;
};

/// The run's counters go on in the distribution that replaces another; the cut stays the
/// partition's own.
inline void carry_counters(Stats& to, const Stats& from) {
  long long cut_edges = to.cut_edges;
  to = from;
  to.cut_edges = cut_edges;
}

/// The distribution of the graph of `d` renumbered by degree (collective; see the file comment).
inline Distribution renumbered(const Distribution& d) {
  const starc::Graph& g = d.graph;
  size_t R = static_cast<size_t>(d.ranks);
  DegreeGroups groups = degree_groups(d);
  Distribution o;
  o.comm = d.comm;
  o.rank = d.rank;
  o.ranks = d.ranks;
  o.everyone = d.everyone;
  o.peers = d.everyone;  // the count exchanges nothing but its sum; every rank is a superset
  o.stats_enabled = d.stats_enabled;
  o.needs = d.needs;
  o.mirrored = d.mirrored;
  o.global_edges = d.global_edges;

  // New ids of the own vertices (in id order within a degree) and of the ghosts (from owners).
  std::vector<int> new_id(static_cast<size_t>(d.local_nodes), -1);
  {
    std::vector<long long> next = groups.mine;
    for (int v = d.own_begin; v < d.own_end; ++v)
      new_id[static_cast<size_t>(v)] = static_cast<int>(next[groups.group(own_degree(d, v))]++);
    tell_ghosts(d, new_id);
  }
  std::vector<FarEnd> far = far_ends(d, new_id);
  o.splits = work_splits(d, new_id, far, groups);
  o.first = o.splits[static_cast<size_t>(d.rank)];
  o.last = o.splits[static_cast<size_t>(d.rank) + 1];
  int nown = o.last - o.first;

  // Every own row's edge (t, s) as an entry of s's row, to s's new owner, grouped by t: each
  // rank gets from each sender groups [t, count, s_1 .. s_count] (new ids). Only t's old owner
  // sends t, and all its entries for one rank at once, so each t has at most one group on a
  // rank: taking the groups in ascending t appends to every row in ascending order, with no
  // sort or merge of the rows, whatever order they came in.
  std::vector<int> got;
  {
    auto new_owner = [&](int s) -> size_t {  // o.owner(s), branch-free for the usual few ranks
      if (R > 16) return static_cast<size_t>(o.owner(s));
      size_t r = 0;
      for (size_t k = 1; k < R; ++k) r += s >= o.splits[k];
      return r;
    };
    // Two passes over the rows: the size of each rank's groups, then the groups in place.
    std::vector<long long> sizes(R, 0);
    std::vector<int> last(R, -1);
    auto each_entry = [&](auto&& visit) {
      std::fill(last.begin(), last.end(), -1);
      for (int v = d.own_begin; v < d.own_end; ++v) {
        int t = new_id[static_cast<size_t>(v)];
        for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e) {
          int s = far[static_cast<size_t>(e - d.owned_begin)].id;
          size_t to = new_owner(s);
          visit(to, t, s, last[to] != t);
          last[to] = t;
        }
      }
    };
    each_entry([&](size_t to, int, int, bool opens) { sizes[to] += opens ? 3 : 1; });
    std::vector<long long> next = prefix(sizes);
    std::vector<int> packed(static_cast<size_t>(next.back()));
    std::vector<long long> header(R, 0);
    each_entry([&](size_t to, int t, int s, bool opens) {
      if (opens) {
        header[to] = next[to];
        packed[static_cast<size_t>(next[to]++)] = t;
        packed[static_cast<size_t>(next[to]++)] = 0;
      }
      ++packed[static_cast<size_t>(header[to]) + 1];
      packed[static_cast<size_t>(next[to]++)] = s;
    });
    release(far);
    got = exchange_grouped(d, packed, sizes);
  }

  // The own rows' places (a row is as long as its vertex's degree), and the ghosts: the t of
  // the groups that another rank owns (each t in one group).
  std::vector<int> row_begin(static_cast<size_t>(nown) + 1, 0);
  for (size_t v = 0, k = 0; v < static_cast<size_t>(nown); ++v) {
    long long id = o.first + static_cast<long long>(v);
    while (k + 1 < groups.first.size() && groups.first[k + 1] <= id) ++k;
    row_begin[v + 1] = row_begin[v] + static_cast<int>(groups.degree[k]);
  }
  for (size_t at = 0; at < got.size(); at += 2 + static_cast<size_t>(got[at + 1]))
    if (!o.owns(got[at])) o.ghosts.push_back(got[at]);
  std::sort(o.ghosts.begin(), o.ghosts.end());
  o.ghost_displs.resize(R + 1);
  for (size_t r = 0; r <= R; ++r)
    o.ghost_displs[r] = static_cast<int>(std::lower_bound(o.ghosts.begin(), o.ghosts.end(), o.splits[r]) - o.ghosts.begin());
  o.remote = o.ghosts;
  o.own_begin = o.ghost_displs[static_cast<size_t>(d.rank)];
  o.own_end = o.own_begin + nown;
  o.local_nodes = static_cast<int>(o.ghosts.size()) + nown;

  // The own rows in local ids, filled from the groups in ascending t (local ids keep the order
  // of global ones). Written straight to the rows, each entry was a cache miss; so the entries
  // go first, in that order, to blocks of at most 2^shift rows (bucket b: rows b 2^shift ...,
  // at their own place in `columns`, as its rows' lengths are known), a few hundred streams
  // written in order, then each block's to its rows, whose cursors and entries stay in cache.
  struct Entry { int row, column; };
  std::vector<int> columns(static_cast<size_t>(row_begin.back()));
  {
    std::vector<Entry> bucketed(columns.size());
    {
      int shift = 12;
      while ((nown >> shift) >= 512) ++shift;
      std::vector<int> bucket_next;
      for (int v = 0; v < nown; v += 1 << shift) bucket_next.push_back(row_begin[static_cast<size_t>(v)]);
      std::vector<size_t> group_of(static_cast<size_t>(o.local_nodes), SIZE_MAX);
      for (size_t at = 0; at < got.size(); at += 2 + static_cast<size_t>(got[at + 1]))
        group_of[static_cast<size_t>(o.local_of(got[at]))] = at;
      for (int t = 0; t < o.local_nodes; ++t) {
        size_t at = group_of[static_cast<size_t>(t)];
        if (at == SIZE_MAX) continue;
        for (size_t k = at + 2; k < at + 2 + static_cast<size_t>(got[at + 1]); ++k) {
          int v = got[k] - o.first;
          bucketed[static_cast<size_t>(bucket_next[static_cast<size_t>(v >> shift)]++)] = {v, t};
        }
      }
    }
    release(got);
    std::vector<int> next(row_begin.begin(), row_begin.end() - 1);
    for (const Entry& x : bucketed) columns[static_cast<size_t>(next[static_cast<size_t>(x.row)]++)] = x.column;
  }
  // The rest of the local index space.
  o.global_id.resize(static_cast<size_t>(o.local_nodes));
  for (int k = 0; k < o.local_nodes; ++k)
    o.global_id[static_cast<size_t>(k)] = k < o.own_begin ? o.ghosts[static_cast<size_t>(k)]
                                          : k < o.own_end ? o.first + (k - o.own_begin)
                                                          : o.ghosts[static_cast<size_t>(k - nown)];
  o.ghost_local.resize(o.ghosts.size());
  for (size_t k = 0; k < o.ghosts.size(); ++k) o.ghost_local[k] = k < static_cast<size_t>(o.own_begin) ? static_cast<int>(k) : static_cast<int>(k) + nown;
  std::vector<int> mirror_ids = tell_owners(o, o.ghosts, o.mirror_displs);
  o.mirrors.resize(mirror_ids.size());
  for (size_t k = 0; k < mirror_ids.size(); ++k) o.mirrors[k] = o.own_begin + (mirror_ids[k] - o.first);
  o.out_degree.resize(static_cast<size_t>(o.local_nodes));
  for (int k = 0; k < o.local_nodes; ++k) o.out_degree[static_cast<size_t>(k)] = groups.degree_of(o.global_id[static_cast<size_t>(k)]);
  o.in_degree = o.out_degree;  // symmetric
  // The renumbered partition's cut (--stats): own row entries another rank owns (in-rows,
  // when read, are the same edges reversed: the graph is symmetric).
  for (int t : columns)
    if (t < o.own_begin || t >= o.own_end) ++o.stats.cut_edges;
  if (d.needs.reverse) o.stats.cut_edges *= 2;

  // The searched slices of the rows of ghosts below (Needs::ghost_row_slices): the entries in
  // the rank's own range are the own vertices whose rows hold the ghost (the graph is
  // symmetric), found here; only those above it come from the ghost's owner.
  std::vector<int> slice_count(static_cast<size_t>(o.own_begin) + 1, 0);
  std::vector<Entry> above;  // (ghost's local id, entry's local id)
  if (d.needs.ghost_rows) {
    for (int t : columns)
      if (t < o.own_begin) ++slice_count[static_cast<size_t>(t)];
    // Only ranks above get slices, grouped by rank (as the mirrors are) and by row: [row,
    // count, entries ...] in global ids, sized by a first pass; the rows' entries are compared
    // as local ids, which keep the global order. (Each entry had gone as a (rank, row, entry)
    // triple packed three times and was looked up by three binary searches where it arrived:
    // at 8 ranks on R-MAT 18 the first rank sent 5.4 M entries, and packing or unpacking them
    // took 0.2 s a trial, more than the rest of the renumbering; bench/RESULTS.md, session 57.)
    std::vector<long long> counts(R, 0);
    std::vector<int> beyond(R + 1, o.local_nodes);  // the first local id past rank r's range
    for (size_t r = static_cast<size_t>(d.rank) + 1; r < R; ++r)
      beyond[r] = static_cast<int>(std::lower_bound(o.ghosts.begin(), o.ghosts.end(), o.splits[r + 1]) - o.ghosts.begin()) + nown;
    auto each_slice = [&](auto&& visit) {
      for (size_t r = static_cast<size_t>(d.rank) + 1; r < R; ++r)
        for (int k = o.mirror_displs[r]; k < o.mirror_displs[r + 1]; ++k) {
          int u = o.mirrors[static_cast<size_t>(k)];
          const int* row = columns.data() + row_begin[static_cast<size_t>(u - o.own_begin)];
          const int* end = columns.data() + row_begin[static_cast<size_t>(u - o.own_begin) + 1];
          const int* from = std::lower_bound(row, end, beyond[r]);
          if (from < end) visit(r, u, from, end);
        }
    };
    each_slice([&](size_t r, int, const int* from, const int* end) { counts[r] += 2 + (end - from); });
    std::vector<int> out(static_cast<size_t>(prefix(counts).back()));
    {
      int* at = out.data();
      each_slice([&](size_t, int u, const int* from, const int* end) {
        *at++ = o.global_id[static_cast<size_t>(u)];
        *at++ = static_cast<int>(end - from);
        for (; from < end; ++from) *at++ = o.global_id[static_cast<size_t>(*from)];
      });
    }
    std::vector<int> in = exchange_grouped(d, out, counts);
    long long rows = 0;
    for (size_t at = 0; at < in.size(); at += 2 + static_cast<size_t>(in[at + 1])) ++rows;
    o.stats.ghost_row_edges = static_cast<long long>(in.size()) - 2 * rows;  // (--stats)
    // Each row's entries come ascending: each is found among the ghosts above the own range by
    // galloping from where the row's previous one was. Only those the rank holds are kept.
    const auto ghosts_end = o.ghosts.end();
    above.reserve(in.size());
    for (size_t at = 0; at < in.size(); at += 2 + static_cast<size_t>(in[at + 1])) {
      int row = o.local_of(in[at]);
      auto cursor = o.ghosts.begin() + o.own_begin;  // every id before it is below the entry
      for (size_t k = at + 2; k < at + 2 + static_cast<size_t>(in[at + 1]); ++k) {
        int column = in[k];
        auto probe = cursor;
        for (std::ptrdiff_t step = 1; probe != ghosts_end && *probe < column; step *= 2) {
          cursor = probe + 1;
          probe = ghosts_end - probe > step ? probe + step : ghosts_end;
        }
        cursor = std::lower_bound(cursor, probe, column);
        if (cursor != ghosts_end && *cursor == column) {
          above.push_back({row, static_cast<int>(cursor - o.ghosts.begin()) + nown});
          ++slice_count[static_cast<size_t>(row)];
        }
      }
    }
  }

  // The local CSR: the slices of ghosts below, then the own rows (ghosts above: empty rows).
  starc::Graph& og = o.graph;
  og.path = g.path;
  og.num_nodes = g.num_nodes;
  og.has_weights = g.has_weights;  // (an id-free count reads no weights: none are kept)
  og.weights_integral = g.weights_integral;
  og.mirrored = g.mirrored;
  og.offsets.assign(static_cast<size_t>(o.local_nodes) + 1, 0);
  for (int u = 0; u < o.own_begin; ++u) og.offsets[static_cast<size_t>(u) + 1] = slice_count[static_cast<size_t>(u)];
  for (int v = 0; v < nown; ++v)
    og.offsets[static_cast<size_t>(o.own_begin + v) + 1] = row_begin[static_cast<size_t>(v) + 1] - row_begin[static_cast<size_t>(v)];
  for (size_t v = 0; v < static_cast<size_t>(o.local_nodes); ++v) og.offsets[v + 1] += og.offsets[v];
  o.owned_begin = og.offsets[static_cast<size_t>(o.own_begin)];
  o.owned_edges = static_cast<int>(columns.size());
  long long owned_count = o.owned_edges;
  {
    CollectiveCpu waiting;
    MPI_Exscan(&owned_count, &o.edge_base, 1, MPI_LONG_LONG, MPI_SUM, d.comm);
  }
  if (d.rank == 0) o.edge_base = 0;
  og.targets.resize(static_cast<size_t>(og.offsets.back()));
  if (d.needs.ghost_rows) {
    // own vertices w in ascending order append to their ghosts' slices, then what came from
    // above (ascending too, and above every own vertex)
    std::vector<int> next(og.offsets.begin(), og.offsets.begin() + o.own_begin);
    for (int v = 0; v < nown; ++v)
      for (int e = row_begin[static_cast<size_t>(v)]; e < row_begin[static_cast<size_t>(v) + 1]; ++e) {
        int t = columns[static_cast<size_t>(e)];
        if (t < o.own_begin) og.targets[static_cast<size_t>(next[static_cast<size_t>(t)]++)] = o.own_begin + v;
      }
    for (const Entry& x : above) og.targets[static_cast<size_t>(next[static_cast<size_t>(x.row)]++)] = x.column;
  }
  std::copy(columns.begin(), columns.end(), og.targets.begin() + o.owned_begin);
  og.num_edges = static_cast<int>(og.targets.size());
  if (d.needs.sources) {
    og.sources.resize(og.targets.size());
    for (int v = 0; v < o.local_nodes; ++v)
      for (int e = og.offsets[static_cast<size_t>(v)]; e < og.offsets[static_cast<size_t>(v) + 1]; ++e)
        og.sources[static_cast<size_t>(e)] = v;
  }
  return o;
}

}  // namespace detail

/// The plan's OrderByDegree on MPI (collective): `d` becomes the distribution of the graph
/// renumbered by degree when the graph is symmetric and simple and, unless `mode` is Always,
/// skewed; returns whether it did. Each call starts from the file's ids (a previous call's
/// renumbering is undone first), as each trial of the other backends renumbers the file's
/// graph. Only for id-free programs whose kernels read no whole ghost rows (the plan's
/// decision): ghost rows are fetched again as searched slices.
inline bool order_by_degree(Distribution& d, starc::DegreeOrderMode mode) {
  detail::Phase phase(d);
  if (d.unordered) {
    std::shared_ptr<Distribution> original = std::move(d.unordered);
    detail::carry_counters(original->stats, d.stats);
    d = std::move(*original);
  }
  if (mode == starc::DegreeOrderMode::Never) return false;
  if (d.needs.ghost_rows && !d.needs.ghost_row_slices) return false;  // (never planned)
  if (mode == starc::DegreeOrderMode::Auto && !detail::skewed(d)) return false;
  if (!detail::symmetric_and_simple(d)) return false;
  Distribution ordered = detail::renumbered(d);
  long long fetched = ordered.stats.ghost_row_edges;  // the slices' entries (--stats)
  detail::carry_counters(ordered.stats, d.stats);
  ordered.stats.ghost_row_edges += fetched;
  ordered.unordered = std::make_shared<Distribution>(std::move(d));
  d = std::move(ordered);
  return true;
}

}  // namespace starc_mpi

#endif  // STARC_MPI_DEGREE_ORDER_HPP
