// starc MPI runtime: a batch of graph updates applied to a rank's rows in place (issue 31).
//
// Included by starc_mpi_updates.hpp. When the rank's local index space can hold a batch part
// as it is, apply_in_place rewrites the rank's slots in one linear pass instead of laying its
// part out again: no edge or in-row crosses the network, no ghost, mirror, run or peer moves,
// so the per-vertex arrays keep their local ids (carry_local has nothing to do). It holds when
// the program holds no ghost rows (Needs::ghost_rows: a ghost's row belongs to another rank,
// which alone sees it change, and the vertices it reaches get local ids; those programs lay
// their part out again). An addition may give this rank an endpoint it does not know (the
// target of an owned source; with in-rows, the source of an owned target): every rank reads
// the whole stream, so each tells whether it would need a new ghost; if any rank would, all
// insert their new ghosts first (starc_mpi_new_ghosts.hpp, collective): the local ids move,
// and carry_local moves the arrays and fetches the new ghosts' values.
// Deletions always fit: a deleted edge's ghost stays (its values are still exchanged, which is
// harmless) until a relayout (a ghost-row program's) compacts the index space.
//
// Degrees follow without an exchange of rows: an addition adds one edge; a deletion removes
// every copy, which only the source's owner can count, so the counts of one part are summed
// over the ranks (one Allreduce of the part's length) and every rank applies them to the
// vertices it knows (and to the n-long degrees of Needs::global_degrees).
#ifndef STARC_MPI_UPDATE_ROWS_HPP
#define STARC_MPI_UPDATE_ROWS_HPP

#include <algorithm>
#include <climits>
#include <cstddef>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_mpi_new_ghosts.hpp"
#include "starc_updates.hpp"

namespace starc_mpi {
namespace detail {

/// One update of a part in a row this rank holds: the row's and the other endpoint's local
/// ids, and the update's place in the part (which orders equal edges, as the stream does).
struct RowChange {
  int row, other, index;
  bool operator<(const RowChange& o) const { return std::tie(row, other, index) < std::tie(o.row, o.other, o.index); }
};

/// `spare` with room for n elements, its contents unspecified (the caller writes every one):
/// it grows, with headroom for the batches to come, only when it is too short (counted in
/// `allocations`).
template <class T>
std::vector<T>& reuse(std::vector<T>& spare, size_t n, long long& allocations) {
  if (spare.capacity() < n) {
    std::vector<T>().swap(spare);  // (nothing to keep: no copy)
    spare.reserve(n + n / 16);
    ++allocations;
  }
  spare.resize(n);
  return spare;
}

/// The batch part (`kind` 'd' or 'a') applied to d's slots in place, with the new ghosts its
/// additions bring (`growth`); false, with d unchanged, where the program holds ghost rows
/// (collective: every rank answers alike; see the file comment).
inline bool apply_in_place(Distribution& d, const starc::BatchPart& part, char kind, Growth& growth) {
  if (d.needs.ghost_rows) return false;
  starc::Graph& g = d.graph;
  const bool reverse = d.needs.reverse, add = kind == 'a';
  const size_t K = part.src.size();
  std::vector<int> lsrc(K), ldst(K);
  int fresh = 0;  // an addition this rank cannot hold without a new ghost
  for (size_t i = 0; i < K; ++i) {
    lsrc[i] = d.local_of(part.src[i]);
    ldst[i] = d.local_of(part.dst[i]);
    if (add && ((d.owns(part.src[i]) && ldst[i] < 0) || (reverse && d.owns(part.dst[i]) && lsrc[i] < 0))) fresh = 1;
  }
  if (add) {
    int anyone = 0;
    MPI_Allreduce(&fresh, &anyone, 1, MPI_INT, MPI_LOR, d.comm);
    if (anyone) {
      insert_ghosts(d, part, growth);
      for (size_t i = 0; i < K; ++i) {
        lsrc[i] = d.local_of(part.src[i]);
        ldst[i] = d.local_of(part.dst[i]);
      }
    }
  }
  // The rows this rank holds that change (out-rows of owned sources; in-rows of owned targets).
  std::vector<RowChange> out_rows, in_rows;
  for (size_t i = 0; i < K; ++i) {
    if (add || ldst[i] >= 0) {  // (a deleted edge to a vertex the rank does not know is not here)
      if (d.owns(part.src[i])) out_rows.push_back({lsrc[i], ldst[i], static_cast<int>(i)});
      if (reverse && d.owns(part.dst[i])) in_rows.push_back({ldst[i], lsrc[i], static_cast<int>(i)});
    }
  }
  std::sort(out_rows.begin(), out_rows.end());
  std::sort(in_rows.begin(), in_rows.end());
  // Edges each update adds (+1) or removes (-copies, on the first of equal deletions).
  std::vector<int> delta(K, add ? 1 : 0);
  if (!add) {
    for (size_t j = 0; j < out_rows.size(); ++j) {
      const RowChange& c = out_rows[j];
      if (j > 0 && out_rows[j - 1].row == c.row && out_rows[j - 1].other == c.other) continue;
      auto begin = g.targets.begin() + g.offsets[static_cast<size_t>(c.row)];
      auto end = g.targets.begin() + g.offsets[static_cast<size_t>(c.row) + 1];
      auto range = std::equal_range(begin, end, c.other);  // rows are sorted by target
      delta[static_cast<size_t>(c.index)] = -static_cast<int>(range.second - range.first);
    }
    if (K > 0) MPI_Allreduce(MPI_IN_PLACE, delta.data(), static_cast<int>(K), MPI_INT, MPI_SUM, d.comm);
  }

  // Forward slots: the owned rows (slots [0, rows): no ghost rows precede), then the copy
  // slots of in-edges whose source another rank owns. A slot of an unchanged row moves with
  // its row (the two offsets tell where); moved[] holds the new slots of the changed rows'
  // only: an in-row names slots all over the rows, and looking each up in an array as long as
  // the slots missed the cache (most of a part's time, perf).
  const size_t L = static_cast<size_t>(d.local_nodes), rows = static_cast<size_t>(g.offsets[L]);
  const size_t slots = static_cast<size_t>(g.num_edges);
  long long grow = 0;
  for (const RowChange& c : out_rows) grow += delta[static_cast<size_t>(c.index)];
  long long copies_grow = 0;
  for (const RowChange& c : in_rows)
    if (!d.owns(part.src[static_cast<size_t>(c.index)])) copies_grow += delta[static_cast<size_t>(c.index)];
  const long long new_slots = static_cast<long long>(slots) + grow + copies_grow;
  detail::check_local_edges(d, g.path, new_slots);
  const bool sources = d.needs.sources, weights = g.has_weights;
  long long& allocations = d.stats.update_allocations;
  Distribution::Spare& spare = d.spare;
  std::vector<int>& moved = reuse(spare.moved, slots, allocations);  // (not cleared: see above)
  std::vector<int> added(K, -1);  // the slot of an added edge
  std::vector<char> changed(L, 0);
  for (const RowChange& c : out_rows) changed[static_cast<size_t>(c.row)] = 1;
  // every element of these is written below (the counts are checked)
  std::vector<int>& offsets = reuse(spare.offsets, L + 1, allocations);
  std::vector<int>& targets = reuse(spare.targets, static_cast<size_t>(new_slots), allocations);
  std::vector<int>& srcs = reuse(spare.sources, sources ? targets.size() : 0, allocations);
  std::vector<double>& wts = reuse(spare.weights, weights ? targets.size() : 0, allocations);
  size_t out = 0;
  auto keep = [&](size_t from, size_t count, bool track = false) {  // old slots [from, from + count) to `out`
    std::copy_n(g.targets.begin() + static_cast<std::ptrdiff_t>(from), count, targets.begin() + static_cast<std::ptrdiff_t>(out));
    if (sources) std::copy_n(g.sources.begin() + static_cast<std::ptrdiff_t>(from), count, srcs.begin() + static_cast<std::ptrdiff_t>(out));
    if (weights) std::copy_n(g.weights.begin() + static_cast<std::ptrdiff_t>(from), count, wts.begin() + static_cast<std::ptrdiff_t>(out));
    if (track)
      for (size_t s = 0; s < count; ++s) moved[from + s] = static_cast<int>(out + s);
    out += count;
  };
  auto put = [&](int src, int dst, size_t index) {  // an added edge at `out`
    targets[out] = dst;
    if (sources) srcs[out] = src;
    if (weights) wts[out] = part.weights.empty() ? 0.0 : part.weights[index];
    added[index] = static_cast<int>(out++);
  };
  size_t j = 0, done = 0;  // done: old row slots up to here are placed
  for (int v = 0; v < static_cast<int>(L); ++v) {
    size_t b = static_cast<size_t>(g.offsets[static_cast<size_t>(v)]), e = static_cast<size_t>(g.offsets[static_cast<size_t>(v) + 1]);
    if (j == out_rows.size() || out_rows[j].row != v) {  // unchanged: copied with its neighbours
      offsets[static_cast<size_t>(v)] = static_cast<int>(out + (b - done));
      continue;
    }
    keep(done, b - done);
    offsets[static_cast<size_t>(v)] = static_cast<int>(out);
    size_t end = j;
    while (end < out_rows.size() && out_rows[end].row == v) ++end;
    size_t s = b;
    if (add) {  // merged by target, an added edge after the equal ones the row has
      for (; j < end; ++j) {
        size_t upto = static_cast<size_t>(std::upper_bound(g.targets.begin() + static_cast<std::ptrdiff_t>(s),
                                                           g.targets.begin() + static_cast<std::ptrdiff_t>(e), out_rows[j].other) -
                                          g.targets.begin());
        keep(s, upto - s, true);
        s = upto;
        put(v, out_rows[j].other, static_cast<size_t>(out_rows[j].index));
      }
      keep(s, e - s, true);
    } else {  // every copy of a deleted edge goes
      for (; s < e; ++s) {
        while (j < end && out_rows[j].other < g.targets[s]) ++j;
        if (j < end && out_rows[j].other == g.targets[s]) continue;
        keep(s, 1, true);
      }
      j = end;
    }
    done = e;
  }
  keep(done, rows - done);
  offsets[L] = static_cast<int>(out);
  if (out != rows + static_cast<size_t>(grow)) throw std::logic_error("apply_in_place: the rows miscounted");
  // Copy slots: a deleted in-edge's copy goes with its in-row entry (below), an added one
  // whose source another rank owns gets a new copy slot at the end.
  std::vector<int> gone;  // old copy slots, ascending
  if (!add) {
    for (const RowChange& c : in_rows) {
      if (c.other < 0 || d.owns(part.src[static_cast<size_t>(c.index)])) continue;
      for (int x = g.rev_offsets[static_cast<size_t>(c.row)]; x < g.rev_offsets[static_cast<size_t>(c.row) + 1]; ++x)
        if (g.rev_sources[static_cast<size_t>(x)] == c.other) gone.push_back(g.rev_edge_ids[static_cast<size_t>(x)]);
    }
  }
  std::sort(gone.begin(), gone.end());  // (an edge deleted twice in one part is gone once)
  gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
  const size_t new_rows = out;
  {
    size_t from = rows;
    for (int s : gone) {
      keep(from, static_cast<size_t>(s) - from);
      from = static_cast<size_t>(s) + 1;
    }
    keep(from, slots - from);
  }
  if (add)
    for (const RowChange& c : in_rows)
      if (!d.owns(part.src[static_cast<size_t>(c.index)])) put(c.other, c.row, static_cast<size_t>(c.index));
  if (out != static_cast<size_t>(new_slots)) throw std::logic_error("apply_in_place: the copy slots miscounted");

  // In-rows of owned vertices: by source, an added edge after the equal ones (its id is
  // larger); every entry names its edge's new slot.
  if (reverse) {
    // The new slot of an in-edge in old slot `s` from `u`: by the shift of u's row, unless
    // that row changed (then moved[s]); a copy slot by moved[s] too, which the rows leave
    // free past `rows`: filled here in one pass (the copy slots gone before each counted),
    // where a search in `gone` per in-row entry was a tenth of a part (perf). The in-rows
    // read the copy slots in about the order they were laid out in (by target).
    const int changed_row = INT_MIN, irows = static_cast<int>(rows);
    std::vector<int> shift(L, changed_row);
    for (size_t u = static_cast<size_t>(d.own_begin); u < static_cast<size_t>(d.own_end); ++u)
      if (!changed[u]) shift[u] = offsets[u] - g.offsets[u];
    for (size_t s = rows, k = 0; s < slots; ++s) {
      while (k < gone.size() && static_cast<size_t>(gone[k]) < s) ++k;
      moved[s] = static_cast<int>(s - rows + new_rows - k);
    }
    auto new_slot = [&](int s, int u) {
      if (s < irows && shift[static_cast<size_t>(u)] != changed_row) return s + shift[static_cast<size_t>(u)];
      return moved[static_cast<size_t>(s)];
    };
    std::vector<int>& rev_offsets = reuse(spare.rev_offsets, L + 1, allocations);
    std::vector<int>& rev_sources = reuse(spare.rev_sources, static_cast<size_t>(new_slots), allocations);
    std::vector<int>& rev_ids = reuse(spare.rev_edge_ids, static_cast<size_t>(new_slots), allocations);
    size_t w = 0, pending = 0;  // pending: the first row whose offset is not written
    int done = 0;               // old entries before it are written
    auto copy_to = [&](size_t row) {  // unchanged in-rows [pending, row) and their entries
      for (size_t x = pending; x < row; ++x) rev_offsets[x] = g.rev_offsets[x] - done + static_cast<int>(w);
      int upto = g.rev_offsets[row];
      for (int x = done; x < upto; ++x) {
        int u = g.rev_sources[static_cast<size_t>(x)];
        rev_sources[w] = u;
        rev_ids[w++] = new_slot(g.rev_edge_ids[static_cast<size_t>(x)], u);
      }
      done = upto;
      pending = row;
    };
    auto emit = [&](int u, int slot) {
      rev_sources[w] = u;
      rev_ids[w++] = slot;
    };
    for (size_t k = 0; k < in_rows.size();) {  // the changed in-rows
      const size_t v = static_cast<size_t>(in_rows[k].row);
      copy_to(v);
      rev_offsets[v] = static_cast<int>(w);
      for (int x = g.rev_offsets[v]; x < g.rev_offsets[v + 1]; ++x) {
        int u = g.rev_sources[static_cast<size_t>(x)];
        for (; k < in_rows.size() && static_cast<size_t>(in_rows[k].row) == v && in_rows[k].other < u + (add ? 0 : 1); ++k)
          if (add) emit(in_rows[k].other, added[static_cast<size_t>(in_rows[k].index)]);
        if (!add && k > 0 && static_cast<size_t>(in_rows[k - 1].row) == v && in_rows[k - 1].other == u) continue;
        emit(u, new_slot(g.rev_edge_ids[static_cast<size_t>(x)], u));
      }
      for (; k < in_rows.size() && static_cast<size_t>(in_rows[k].row) == v; ++k)
        if (add) emit(in_rows[k].other, added[static_cast<size_t>(in_rows[k].index)]);
      done = g.rev_offsets[v + 1];
      pending = v + 1;
    }
    copy_to(L);
    rev_offsets[L] = static_cast<int>(w);
    // as long as the slots, as lay_out leaves them (the entries past the in-rows are 0)
    std::fill(rev_sources.begin() + static_cast<std::ptrdiff_t>(w), rev_sources.end(), 0);
    std::fill(rev_ids.begin() + static_cast<std::ptrdiff_t>(w), rev_ids.end(), 0);
    g.rev_offsets.swap(rev_offsets);
    g.rev_sources.swap(rev_sources);
    g.rev_edge_ids.swap(rev_ids);
  }
  g.offsets.swap(offsets);
  g.targets.swap(targets);
  if (sources) g.sources.swap(srcs);
  if (weights) g.weights.swap(wts);
  g.num_edges = static_cast<int>(new_slots);
  g.edges_changed();

  // Counts and degrees, from the deltas every rank holds alike.
  const bool in_degrees = reverse || d.needs.in_degrees;
  for (size_t i = 0; i < K; ++i) {
    int x = delta[i];
    if (x == 0) continue;
    d.global_edges += x;
    if (lsrc[i] >= 0) d.out_degree[static_cast<size_t>(lsrc[i])] += x;
    if (ldst[i] >= 0 && in_degrees) d.in_degree[static_cast<size_t>(ldst[i])] += x;
    if (d.needs.global_degrees) {
      d.global_out_degree[static_cast<size_t>(part.src[i])] += x;
      d.global_in_degree[static_cast<size_t>(part.dst[i])] += x;
    }
    bool own_src = d.owns(part.src[i]), own_dst = d.owns(part.dst[i]);  // --stats' cut edges
    if (own_src != own_dst && (own_src || reverse)) d.stats.cut_edges += x;
  }
  d.owned_edges = static_cast<int>(rows + static_cast<size_t>(grow));
  long long mine = d.owned_edges;
  MPI_Exscan(&mine, &d.edge_base, 1, MPI_LONG_LONG, MPI_SUM, d.comm);
  if (d.rank == 0) d.edge_base = 0;
  return true;
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_UPDATE_ROWS_HPP
