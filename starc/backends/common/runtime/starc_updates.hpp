// Update batches merged into a Graph's forward and reverse CSR (issue 31): a batch's deletions
// or additions applied in place of a rebuild (docs/language-notes.md, "Issue 31: dynamic
// graphs", is the meaning; starc/graphs/updates.py the Python twin the tests hold it to). The
// update streams the batches come from are read by starc_update_stream.hpp, included here for
// the hosts that read and apply them.
//
// A batch of k updates costs O(m + n + k log k) sequential work: each array is compacted or
// widened once, spans between changed rows moved whole, where building the CSR again costs a
// counting sort by source, a sort of every row and a scatter by target.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "starc_graph.hpp"
#include "starc_update_stream.hpp"

namespace starc {

namespace detail {

/// The positions (ascending) of a Graph's edges `u -> v` for sorted, distinct (u, v) keys: the
/// runs [first, last) of equal targets in row u, which the sorted CSR keeps together.
inline std::vector<std::pair<int, int>> edge_runs(const Graph& g, std::vector<std::pair<int, int>> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::pair<int, int>> runs;
  for (const auto& key : keys) {
    auto row = g.targets.begin();
    auto first = std::lower_bound(row + g.offsets[static_cast<size_t>(key.first)],
                                  row + g.offsets[static_cast<size_t>(key.first) + 1], key.second);
    auto last = std::upper_bound(first, row + g.offsets[static_cast<size_t>(key.first) + 1], key.second);
    if (first != last) runs.emplace_back(static_cast<int>(first - row), static_cast<int>(last - row));
  }
  return runs;
}

/// Moves the elements of `a` outside the sorted, disjoint `runs` to the front, in order.
template <class T>
inline void drop_runs(std::vector<T>& a, const std::vector<std::pair<int, int>>& runs) {
  if (runs.empty()) return;
  size_t out = static_cast<size_t>(runs[0].first);
  for (size_t r = 0; r < runs.size(); ++r) {
    size_t from = static_cast<size_t>(runs[r].second);
    size_t to = r + 1 < runs.size() ? static_cast<size_t>(runs[r + 1].first) : a.size();
    std::copy(a.begin() + static_cast<std::ptrdiff_t>(from), a.begin() + static_cast<std::ptrdiff_t>(to),
              a.begin() + static_cast<std::ptrdiff_t>(out));
    out += to - from;
  }
  a.resize(out);
}

}  // namespace detail

/// What a change did to the edge ids, as the k places where it changed rather than an m-long
/// map: the deleted ids, or the old id before which each added edge went (ascending; equal
/// for edges added at one place), and the ids of the added edges in the order the updates
/// gave them. Old edges keep their order, so a property follows them in one streaming pass.
struct EdgeRenumbering {
  int old_count = 0;
  bool additions = false;
  std::vector<int> marks;
  std::vector<int> added;

  /// The new id of every old edge (-1: deleted); O(m), for tests and tools.
  std::vector<int> new_ids() const {
    std::vector<int> ids(static_cast<size_t>(old_count));
    size_t j = 0;
    for (int e = 0; e < old_count; ++e) {
      if (additions) {
        while (j < marks.size() && marks[j] <= e) ++j;
        ids[static_cast<size_t>(e)] = e + static_cast<int>(j);
      } else if (j < marks.size() && marks[j] == e) {
        ids[static_cast<size_t>(e)] = -1;
        ++j;
      } else {
        ids[static_cast<size_t>(e)] = e - static_cast<int>(j);
      }
    }
    return ids;
  }

  /// An edge property (old_count values) changed in place to the new edge ids: kept edges
  /// keep their values, added ones get `fill` (or the values given, in update order). No
  /// allocation once the vector has grown to the graph's largest edge count.
  template <class T>
  void carry(std::vector<T>& values, const T& fill = T(), const std::vector<T>* added_values = nullptr) const {
    auto at = [&](size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
    if (!additions) {   // the spans between deleted ids move down
      if (marks.empty()) return;
      size_t out = static_cast<size_t>(marks[0]);
      for (size_t r = 0; r < marks.size(); ++r) {
        size_t from = static_cast<size_t>(marks[r]) + 1;
        size_t to = r + 1 < marks.size() ? static_cast<size_t>(marks[r + 1]) : values.size();
        std::copy(at(from), at(to), at(out));
        out += to - from;
      }
      values.resize(out);
      return;
    }
    size_t end = values.size();   // from the back: each span moves up by the edges before it
    values.resize(end + marks.size());
    for (size_t j = marks.size(); j-- > 0;) {
      size_t place = static_cast<size_t>(marks[j]);
      std::copy_backward(at(place), at(end), at(end + j + 1));
      values[place + j] = fill;
      end = place;
    }
    if (added_values)
      for (size_t i = 0; i < added.size(); ++i) values[static_cast<size_t>(added[i])] = (*added_values)[i];
  }

  /// carry() on a copy (`num_edges`: the new edge count, which the copy reaches).
  template <class T>
  std::vector<T> carried(const std::vector<T>& old, int num_edges, const T& fill = T(),
                         const std::vector<T>* added_values = nullptr) const {
    std::vector<T> out = old;
    carry(out, fill, added_values);
    out.resize(static_cast<size_t>(num_edges), fill);
    return out;
  }
};

namespace detail {

/// How far an old edge id moves: down by the deleted edges before it, or up by the edges
/// added at or before its position. The reverse CSR renumbers every entry through this: a
/// table per block of 32 ids (cache-resident, unlike an m-long map read at random) and a scan
/// of the block's few changes. With batches of about 0.1% of the edges most blocks hold none,
/// so the scan's branch is predictable (blocks of 256 held one a quarter of the time: 20%
/// more CPU time for the whole update on Kronecker 16 and 18).
struct IdShift {
  static constexpr int kBlockBits = 5;
  std::vector<int> marks;        // ascending change positions: a deleted id, or an insertion point
  std::vector<int> first_mark;   // per block of ids: the first mark at or after its start
  bool additions = false;

  void index(size_t m) {
    size_t blocks = (m >> kBlockBits) + 2;
    first_mark.assign(blocks, 0);
    size_t j = 0;
    for (size_t b = 0; b < blocks; ++b) {
      while (j < marks.size() && (static_cast<size_t>(marks[j]) >> kBlockBits) < b) ++j;
      first_mark[b] = static_cast<int>(j);
    }
  }

  /// the marks before `id` (deletions: below it; additions: at or below it)
  int before(int id) const {
    size_t b = static_cast<size_t>(id) >> kBlockBits;
    int j = first_mark[b], end = first_mark[b + 1];
    while (j < end && (marks[static_cast<size_t>(j)] < id || (additions && marks[static_cast<size_t>(j)] == id))) ++j;
    return j;
  }

  bool deleted(int id, int before_id) const {
    return static_cast<size_t>(before_id) < marks.size() && marks[static_cast<size_t>(before_id)] == id;
  }
};

}  // namespace detail

/// Deletes every edge src[i] -> dst[i] of `g` (a missing one changes nothing).
/// `keep_rev_edge_ids` false: the reverse CSR's edge ids are not kept (emptied), so its
/// rows change by moving spans, as the forward rows do, instead of renumbering every entry
/// (for a program whose device never reads them).
inline EdgeRenumbering delete_edges(Graph& g, const std::vector<int>& src, const std::vector<int>& dst,
                                   bool keep_rev_edge_ids = true) {
  std::vector<std::pair<int, int>> keys(src.size());
  for (size_t i = 0; i < src.size(); ++i) keys[i] = {src[i], dst[i]};
  auto runs = detail::edge_runs(g, std::move(keys));
  EdgeRenumbering change;
  size_t m = static_cast<size_t>(g.num_edges), n = static_cast<size_t>(g.num_nodes);
  change.old_count = g.num_edges;
  // each edge moves down by the edges deleted before it
  detail::IdShift shift;
  std::vector<int> removed_in_row(n, 0), removed_in_column(n, 0);
  for (const auto& run : runs) {
    for (int e = run.first; e < run.second; ++e) shift.marks.push_back(e);
    removed_in_row[static_cast<size_t>(g.sources[static_cast<size_t>(run.first)])] += run.second - run.first;
    removed_in_column[static_cast<size_t>(g.targets[static_cast<size_t>(run.first)])] += run.second - run.first;
  }
  change.marks = shift.marks;
  if (!keep_rev_edge_ids) g.rev_edge_ids.clear();
  if (runs.empty()) return change;
  g.edges_changed();
  std::vector<std::pair<int, int>> reverse_runs;   // without ids: the entries u -> v in row v
  if (keep_rev_edge_ids) {
    shift.index(m);
  } else {
    for (const auto& run : runs) {
      auto row = g.rev_sources.begin();
      int u = g.sources[static_cast<size_t>(run.first)], v = g.targets[static_cast<size_t>(run.first)];
      auto range = std::equal_range(row + g.rev_offsets[static_cast<size_t>(v)],
                                    row + g.rev_offsets[static_cast<size_t>(v) + 1], u);
      reverse_runs.emplace_back(static_cast<int>(range.first - row), static_cast<int>(range.second - row));
    }
    std::sort(reverse_runs.begin(), reverse_runs.end());
  }

  detail::drop_runs(g.targets, runs);
  detail::drop_runs(g.sources, runs);
  if (g.has_weights) detail::drop_runs(g.weights, runs);
  int gone = 0;
  for (size_t v = 0; v < n; ++v) {
    gone += removed_in_row[v];
    g.offsets[v + 1] -= gone;
  }

  // The reverse CSR: drop the deleted edges' entries, renumber the rest (their order, by
  // source then id, is unchanged).
  if (keep_rev_edge_ids) {
    size_t out = 0;
    for (size_t i = 0; i < m; ++i) {
      int id = g.rev_edge_ids[i], before = shift.before(id);
      if (shift.deleted(id, before)) continue;
      g.rev_edge_ids[out] = id - before;
      g.rev_sources[out] = g.rev_sources[i];
      ++out;
    }
    g.rev_edge_ids.resize(out);
    g.rev_sources.resize(out);
  } else {
    detail::drop_runs(g.rev_sources, reverse_runs);
  }
  gone = 0;
  for (size_t v = 0; v < n; ++v) {
    gone += removed_in_column[v];
    g.rev_offsets[v + 1] -= gone;
  }
  g.num_edges = static_cast<int>(g.targets.size());
  return change;
}

namespace detail {
inline void merge_reverse_entries(Graph& g, const EdgeRenumbering& change, const IdShift& shift,
                                  const std::vector<int>& dst);
inline void add_reverse_entries(Graph& g, const std::vector<int>& src, const std::vector<int>& dst);
}  // namespace detail

/// Adds an edge src[i] -> dst[i] (weight weights[i] when given) to `g` for every i, after the
/// equal edges it has, so the ids of equal edges keep their order (`keep_rev_edge_ids`: as
/// delete_edges').
inline EdgeRenumbering add_edges(Graph& g, const std::vector<int>& src, const std::vector<int>& dst,
                                 const std::vector<double>& weights = {}, bool keep_rev_edge_ids = true) {
  size_t k = src.size(), m = static_cast<size_t>(g.num_edges), n = static_cast<size_t>(g.num_nodes);
  if (m + k > static_cast<size_t>(INT_MAX) - 1)
    detail::input_error(g.path, 0, std::to_string(m + k) + " edges do not fit in 32-bit edge ids");
  EdgeRenumbering change;
  change.old_count = g.num_edges;
  change.additions = true;
  change.added.resize(k);
  if (!keep_rev_edge_ids) g.rev_edge_ids.clear();
  if (k == 0) return change;
  std::vector<size_t> order(k);
  for (size_t i = 0; i < k; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return src[a] != src[b] ? src[a] < src[b] : dst[a] < dst[b];
  });
  // where each new edge goes in the old arrays: after the equal old ones
  detail::IdShift shift;
  shift.additions = true;
  std::vector<int> added_in_row(n, 0), added_in_column(n, 0);
  for (size_t j = 0; j < k; ++j) {
    size_t i = order[j];
    auto row = g.targets.begin();
    shift.marks.push_back(static_cast<int>(std::upper_bound(row + g.offsets[static_cast<size_t>(src[i])],
                                                            row + g.offsets[static_cast<size_t>(src[i]) + 1], dst[i]) - row));
    change.added[i] = shift.marks.back() + static_cast<int>(j);
    ++added_in_row[static_cast<size_t>(src[i])];
    ++added_in_column[static_cast<size_t>(dst[i])];
  }
  if (keep_rev_edge_ids) shift.index(m);
  g.edges_changed();
  change.marks = shift.marks;

  // The forward arrays grow in place, from the back: each old span moves up by the new
  // edges before it, and each new edge lands in the gap left for it.
  auto widen = [&](auto& a, auto value_of) {
    a.resize(m + k);
    size_t end = m;
    for (size_t j = k; j-- > 0;) {
      size_t at = static_cast<size_t>(shift.marks[j]);
      std::copy_backward(a.begin() + static_cast<std::ptrdiff_t>(at), a.begin() + static_cast<std::ptrdiff_t>(end),
                         a.begin() + static_cast<std::ptrdiff_t>(end + j + 1));
      a[at + j] = value_of(order[j]);
      end = at;
    }
  };
  widen(g.targets, [&](size_t i) { return dst[i]; });
  widen(g.sources, [&](size_t i) { return src[i]; });
  if (g.has_weights) widen(g.weights, [&](size_t i) { return weights.empty() ? 0.0 : weights[i]; });
  for (size_t v = 0, grown = 0; v < n; ++v) {
    grown += static_cast<size_t>(added_in_row[v]);
    g.offsets[v + 1] += static_cast<int>(grown);
  }

  if (!keep_rev_edge_ids) {
    detail::add_reverse_entries(g, src, dst);
  } else {
    detail::merge_reverse_entries(g, change, shift, dst);
  }
  for (size_t v = 0, grown = 0; v < n; ++v) {
    grown += static_cast<size_t>(added_in_column[v]);
    g.rev_offsets[v + 1] += static_cast<int>(grown);
  }
  g.num_edges = static_cast<int>(m + k);
  return change;
}

namespace detail {

/// The reverse CSR grows in place, from the last row back: each row's old entries,
/// renumbered, merged by id with its new edges (a row is ordered by source, then id, which
/// is the order of the ids). `g`'s forward arrays are the new ones, its reverse ones the old.
inline void merge_reverse_entries(Graph& g, const EdgeRenumbering& change, const IdShift& shift,
                                  const std::vector<int>& dst) {
  size_t k = dst.size(), m = g.rev_sources.size(), n = static_cast<size_t>(g.num_nodes);
  std::vector<std::pair<int, int>> incoming(k);  // (target, new id), sorted
  for (size_t i = 0; i < k; ++i) incoming[i] = {dst[i], change.added[i]};
  std::sort(incoming.begin(), incoming.end());
  g.rev_sources.resize(m + k);
  g.rev_edge_ids.resize(m + k);
  size_t out = m + k, next = k;
  for (size_t v = n; v-- > 0;) {
    size_t first = static_cast<size_t>(g.rev_offsets[v]), i = static_cast<size_t>(g.rev_offsets[v + 1]);
    while (i > first || (next > 0 && static_cast<size_t>(incoming[next - 1].first) == v)) {
      bool take_new = next > 0 && static_cast<size_t>(incoming[next - 1].first) == v &&
                      (i == first || incoming[next - 1].second > g.rev_edge_ids[i - 1] + shift.before(g.rev_edge_ids[i - 1]));
      --out;
      if (take_new) {
        --next;
        g.rev_edge_ids[out] = incoming[next].second;
        g.rev_sources[out] = g.sources[static_cast<size_t>(incoming[next].second)];
      } else {
        --i;
        g.rev_edge_ids[out] = g.rev_edge_ids[i] + shift.before(g.rev_edge_ids[i]);
        g.rev_sources[out] = g.rev_sources[i];
      }
    }
  }
}

/// The reverse CSR without edge ids grows as the forward rows do: each new entry u -> v goes
/// after row v's entries of sources up to u (new ones of a row in source, then update order,
/// which is their ids' order), old spans moved up whole.
inline void add_reverse_entries(Graph& g, const std::vector<int>& src, const std::vector<int>& dst) {
  size_t k = src.size(), m = g.rev_sources.size();
  struct Place { int at, row, source; size_t update; };
  std::vector<Place> places(k);
  for (size_t i = 0; i < k; ++i) {
    auto row = g.rev_sources.begin();
    auto at = std::upper_bound(row + g.rev_offsets[static_cast<size_t>(dst[i])],
                               row + g.rev_offsets[static_cast<size_t>(dst[i]) + 1], src[i]);
    places[i] = {static_cast<int>(at - row), dst[i], src[i], i};
  }
  std::sort(places.begin(), places.end(), [](const Place& a, const Place& b) {
    return std::tie(a.at, a.row, a.source, a.update) < std::tie(b.at, b.row, b.source, b.update);
  });
  g.rev_sources.resize(m + k);
  size_t end = m;
  for (size_t j = k; j-- > 0;) {
    size_t at = static_cast<size_t>(places[j].at);
    std::copy_backward(g.rev_sources.begin() + static_cast<std::ptrdiff_t>(at),
                       g.rev_sources.begin() + static_cast<std::ptrdiff_t>(end),
                       g.rev_sources.begin() + static_cast<std::ptrdiff_t>(end + j + 1));
    g.rev_sources[at + j] = places[j].source;
    end = at;
  }
}

}  // namespace detail

}  // namespace starc
