// Rows with slack (issue 31, item 3): a Graph whose edge ids are slots, so that a batch of
// updates touches only the rows it changes instead of moving every later edge.
//
// Row v's edges are the slots [offsets[v], ends[v]) of targets / sources / weights (and of
// every edge property), sorted by target as in a compact CSR, with free room up to rooms[v];
// the reverse CSR likewise (rev_offsets, rev_ends, rev_rooms). offsets[n] is the slot count
// in use; the arrays themselves are `capacity` long. A deletion compacts its row in place; an
// addition merges into its row when the room holds it, else the row moves to fresh room at
// the end of the slot space with twice the edges' room (its old slots are dead); when the
// slot space runs out, every row is laid out again with fresh slack (amortised over the
// batches before it). A batch of k updates costs O(k log k + the degrees of the rows it
// touches), the reverse edge ids included (the moved edges' entries are rewritten by a search
// in their targets' reverse rows: starc_slack_reverse_ids.hpp), and says which slots it wrote
// (`SlotChange::slots`), so that a device copy is refreshed at those slots only.
//
// Rows in any order (`SlackRows::sorted` false: the plan found no kernel that reads a row as
// sorted, `batches.unsorted_rows`): a deletion fills each hole with one of the row's last
// live slots and an addition appends into the row's room, so a batch moves one slot per
// deleted edge instead of the spans between its holes and the row's end.
#pragma once

#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "starc_slot_change.hpp"
#include "starc_updates.hpp"

namespace starc {

/// The slack rows of a Graph: where each row's edges end and where its room ends, in both
/// directions, and the length of the slot arrays. The Graph's offsets are the rows' starts
/// (offsets[n]: the slots in use), its num_edges the live edges.
struct SlackRows {
  std::vector<int> ends, rooms, rev_ends, rev_rooms;
  int capacity = 0, rev_capacity = 0;   // kept equal: the length of every slot array
  bool keep_rev_edge_ids = true;
  /// whether each row stays sorted by its key (a kernel searches it or scans it in order);
  /// false: its edges in any order, a batch moving O(1) slots per update
  bool sorted = true;
  /// with the reverse edge ids: the reverse CSR position of each forward slot's edge, so that
  /// a moved edge's reverse entry is rewritten without a search
  std::vector<int> twins;
  /// the room a row of `degree` edges gets beyond them when the rows are laid out (with
  /// max(4, degree/4), Kronecker 16's 1.05 M edges took 1.87 M slots, with this 1.59 M: the
  /// static kernels read sparser arrays, and a re-layout uploads more)
  static int slack(int degree) { return std::max(2, degree / 8); }
};

/// What a batch changed in the two directions: `forward` carries the edge properties.
struct SlackChange {
  SlotChange forward, reverse;
};

namespace detail {

/// One direction of the slack rows: the row bounds and the key each row is sorted by.
struct SlackSide {
  std::vector<int>& starts;   // n + 1: starts[n] is the slot count in use
  std::vector<int>& ends;
  std::vector<int>& rooms;
  int& capacity;
  const std::vector<int>& keys;
};

inline SlackSide forward_side(Graph& g, SlackRows& s) {
  return SlackSide{g.offsets, s.ends, s.rooms, s.capacity, g.targets};
}

inline SlackSide reverse_side(Graph& g, SlackRows& s) {
  return SlackSide{g.rev_offsets, s.rev_ends, s.rev_rooms, s.rev_capacity, g.rev_sources};
}

/// Every row laid out again in vertex order, with room for `extra[v]` more edges (none when
/// empty) and fresh slack; the slot space gets a quarter more for the rows that move later.
inline void relay_rows(SlackSide side, const std::vector<int>& extra, SlotChange& change) {
  size_t n = side.ends.size();
  long long next = 0;
  std::vector<int> starts(n + 1), ends(n), rooms(n);
  for (size_t v = 0; v < n; ++v) {
    int degree = side.ends[v] - side.starts[v], coming = extra.empty() ? 0 : extra[v];
    starts[v] = static_cast<int>(next);
    ends[v] = starts[v] + degree;
    if (degree > 0) change.relaid.push_back({side.starts[v], starts[v], degree});
    next += degree + coming + SlackRows::slack(degree + coming);
    rooms[v] = static_cast<int>(std::min<long long>(next, INT_MAX));
  }
  long long capacity = next + next / 4 + 16;
  if (capacity > INT_MAX - 1)
    throw InputError(std::to_string(capacity) + " edge slots (the edges and their rows' room) do not fit in "
                     "32-bit edge ids");
  starts[n] = static_cast<int>(next);
  side.starts.swap(starts);
  side.ends.swap(ends);
  side.rooms.swap(rooms);
  side.capacity = static_cast<int>(capacity);
}

/// Both directions laid out again (`extra`, `rev_extra`: the edges to come, per row); their
/// slot arrays get one length, so that every edge-extent array of a program has one.
inline void relay_both(Graph& g, SlackRows& s, const std::vector<int>& extra, const std::vector<int>& rev_extra,
                       SlackChange& change);

/// Deletes from row v every edge whose key is in the sorted, distinct `gone` (a missing one:
/// nothing). The holes close from the side that moves fewer edges: the edges after the first
/// hole move down, or the edges before the last one move up (the row then starts later).
/// Returns the edges deleted.
inline int delete_in_row(SlackSide side, size_t v, const std::vector<int>& gone, SlotChange& change) {
  auto row = side.keys.begin();
  int begin = side.starts[v], end = side.ends[v], deleted = 0;
  std::vector<std::pair<int, int>> holes;
  for (int key : gone) {
    auto range = std::equal_range(row + (holes.empty() ? begin : holes.back().second), row + end, key);
    if (range.first == range.second) continue;
    holes.emplace_back(static_cast<int>(range.first - row), static_cast<int>(range.second - row));
    deleted += holes.back().second - holes.back().first;
  }
  if (holes.empty()) return 0;
  change.rows.push_back(static_cast<int>(v));
  int after_first = end - holes.front().first - deleted, before_last = holes.back().second - begin - deleted;
  if (after_first <= before_last) {
    int out = holes.front().first;
    for (size_t h = 0; h < holes.size(); ++h) {
      int from = holes[h].second, to = h + 1 < holes.size() ? holes[h + 1].first : end;
      if (to > from) change.moves.push_back({from, out, to - from});
      out += to - from;
    }
    side.ends[v] = out;
  } else {
    int out = holes.back().second;
    for (size_t h = holes.size(); h-- > 0;) {
      int from = h > 0 ? holes[h - 1].second : begin, to = holes[h].first;
      out -= to - from;
      if (to > from) change.moves.push_back({from, out, to - from});
    }
    side.starts[v] = out;
  }
  return deleted;
}

/// Deletes the edges (row, key) of the pairs from one side (rows sorted by key).
inline int delete_from_side(SlackSide side, std::vector<std::pair<int, int>> pairs, SlotChange& change) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<int> gone;
  int removed = 0;
  for (size_t j = 0; j < pairs.size();) {
    size_t last = j;
    gone.clear();
    while (last < pairs.size() && pairs[last].first == pairs[j].first) gone.push_back(pairs[last++].second);
    size_t v = static_cast<size_t>(pairs[j].first);
    removed += delete_in_row(side, v, gone, change);
    j = last;
  }
  return removed;
}

/// The updates ordered by (row, key), stable: equal edges keep their update order.
inline std::vector<size_t> row_order(const std::vector<int>& rows, const std::vector<int>& keys) {
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rows[a] != rows[b] ? rows[a] < rows[b] : keys[a] < keys[b];
  });
  return order;
}

/// The room a row moved to fresh slots gets: twice its edges.
inline int moved_room(int degree) { return std::max(4, 2 * degree); }

/// Whether the rows that must move to fresh room do not fit the slot space left.
inline bool out_of_room(SlackSide side, const std::vector<int>& rows, const std::vector<size_t>& order) {
  size_t k = order.size(), n = side.ends.size();
  long long needed = 0;
  for (size_t j = 0; j < k;) {
    size_t last = j;
    while (last < k && rows[order[last]] == rows[order[j]]) ++last;
    size_t v = static_cast<size_t>(rows[order[j]]);
    int coming = static_cast<int>(last - j);
    if (side.ends[v] + coming > side.rooms[v]) needed += moved_room(side.ends[v] - side.starts[v] + coming);
    j = last;
  }
  return side.starts[n] + needed > side.capacity;
}

/// Adds to row v the edges of keys[order[j]], j in [first, last) (sorted), each after the
/// row's equal keys: in place when its room holds them, else in fresh room at the end of the
/// slot space (out_of_room, and relay_both where it was out, saw to it that it is there).
inline void add_in_row(SlackSide side, size_t v, const std::vector<int>& keys, const std::vector<size_t>& order,
                       size_t first, size_t last, SlotChange& change) {
  auto row = side.keys.begin();
  int begin = side.starts[v], end = side.ends[v], c = static_cast<int>(last - first);
  change.rows.push_back(static_cast<int>(v));
  std::vector<int> at(static_cast<size_t>(c));
  for (int j = 0; j < c; ++j)
    at[static_cast<size_t>(j)] =
        static_cast<int>(std::upper_bound(row + begin, row + end, keys[order[first + static_cast<size_t>(j)]]) - row);
  if (end + c <= side.rooms[v]) {   // from the back: each span moves up by the edges before it
    int span_end = end;
    for (int j = c; j-- > 0;) {
      int place = at[static_cast<size_t>(j)];
      if (span_end > place) change.moves.push_back({place, place + j + 1, span_end - place});
      change.added[order[first + static_cast<size_t>(j)]] = place + j;
      span_end = place;
    }
    side.ends[v] = end + c;
    return;
  }
  int degree = end - begin + c, fresh = side.starts.back();
  int span_start = begin;
  for (int j = 0; j < c; ++j) {
    int place = at[static_cast<size_t>(j)];
    if (place > span_start) change.moves.push_back({span_start, fresh + span_start - begin + j, place - span_start});
    change.added[order[first + static_cast<size_t>(j)]] = fresh + place - begin + j;
    span_start = place;
  }
  if (end > span_start) change.moves.push_back({span_start, fresh + span_start - begin + c, end - span_start});
  side.starts[v] = fresh;
  side.ends[v] = fresh + degree;
  side.rooms[v] = fresh + moved_room(degree);
  side.starts.back() = side.rooms[v];
}

inline void append_in_row(SlackSide side, size_t v, const std::vector<size_t>& order, size_t first, size_t last,
                          SlotChange& change);

/// Adds the edges (rows[i], keys[i]), in `order` (row_order's), to one side (its rows
/// `sorted` or not).
inline void add_to_side(SlackSide side, const std::vector<int>& rows, const std::vector<int>& keys,
                        const std::vector<size_t>& order, SlotChange& change, bool sorted) {
  change.added.assign(rows.size(), -1);
  for (size_t j = 0; j < order.size();) {
    size_t last = j;
    while (last < order.size() && rows[order[last]] == rows[order[j]]) ++last;
    if (sorted)
      add_in_row(side, static_cast<size_t>(rows[order[j]]), keys, order, j, last, change);
    else
      append_in_row(side, static_cast<size_t>(rows[order[j]]), order, j, last, change);
    j = last;
  }
}

/// Closes the holes (slots, ascending, distinct) of the unsorted row v: each hole below the
/// row's new end takes one of the live edges above it (a one-slot move: the moves read only
/// slots at or above the new end and write only below it, so none reads what another wrote).
inline void fill_holes(SlackSide side, size_t v, const std::vector<int>& holes, SlotChange& change) {
  int end = side.ends[v], kept_end = end - static_cast<int>(holes.size());
  change.rows.push_back(static_cast<int>(v));
  size_t low = 0, high = holes.size();
  for (int from = end - 1; from >= kept_end && low < high && holes[low] < kept_end; --from) {
    if (high > 0 && holes[high - 1] == from) {   // a hole itself: nothing to keep
      --high;
      continue;
    }
    change.moves.push_back({from, holes[low++], 1});
  }
  side.ends[v] = kept_end;
}

/// The holes (row, slot) of one side, grouped by row, each row's closed (fill_holes).
inline void fill_side(SlackSide side, std::vector<std::pair<int, int>>& holes, SlotChange& change) {
  std::sort(holes.begin(), holes.end());
  std::vector<int> slots;
  for (size_t j = 0; j < holes.size();) {
    slots.clear();
    size_t last = j;
    while (last < holes.size() && holes[last].first == holes[j].first) slots.push_back(holes[last++].second);
    fill_holes(side, static_cast<size_t>(holes[j].first), slots, change);
    j = last;
  }
}

/// Deletes every edge src[i] -> dst[i] from rows in any order (both directions, the reverse
/// edge ids kept: `SlackRows::sorted` false keeps them): each distinct edge is found by a scan
/// of the shorter of its forward row and its reverse row, its other direction's slot through
/// the twins (forward slot -> reverse position) or the reverse edge ids (R-MAT: the shorter
/// row is ~1/5 of the two rows' slots a scan of each would read). Returns the edges deleted.
inline int delete_unsorted(Graph& g, SlackRows& s, const std::vector<int>& src, const std::vector<int>& dst,
                           SlackChange& change) {
  std::vector<std::pair<int, int>> pairs(src.size()), forward, reverse;
  for (size_t i = 0; i < src.size(); ++i) pairs[i] = {src[i], dst[i]};
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  forward.reserve(pairs.size());
  reverse.reserve(pairs.size());
  // Each pair reaches two random rows (a batch's ~2,000 at Kronecker 18 cost more in cache
  // misses than in the slots scanned): first every pair's row to scan, found by independent
  // loads the CPU overlaps, then the scans, the next pair's row prefetched.
  struct Scan { int first, last; bool reverse; };
  std::vector<Scan> scans(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    size_t a = static_cast<size_t>(pairs[i].first), b = static_cast<size_t>(pairs[i].second);
    int begin = g.offsets[a], end = s.ends[a], rev_begin = g.rev_offsets[b], rev_end = s.rev_ends[b];
    scans[i] = end - begin <= rev_end - rev_begin ? Scan{begin, end, false} : Scan{rev_begin, rev_end, true};
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i + 1 < pairs.size())
      __builtin_prefetch((scans[i + 1].reverse ? g.rev_sources : g.targets).data() + scans[i + 1].first);
    const auto [u, v] = pairs[i];
    const Scan& scan = scans[i];
    const int* row = (scan.reverse ? g.rev_sources : g.targets).data();
    const int key = scan.reverse ? u : v;
    for (const int* at = std::find(row + scan.first, row + scan.last, key); at != row + scan.last;
         at = std::find(at + 1, row + scan.last, key)) {
      int slot = static_cast<int>(at - row);
      if (scan.reverse) {
        reverse.emplace_back(v, slot);
        forward.emplace_back(u, g.rev_edge_ids[static_cast<size_t>(slot)]);
      } else {
        forward.emplace_back(u, slot);
        reverse.emplace_back(v, s.twins[static_cast<size_t>(slot)]);
      }
    }
  }
  fill_side(forward_side(g, s), forward, change.forward);
  fill_side(reverse_side(g, s), reverse, change.reverse);
  return static_cast<int>(forward.size());
}

/// Adds to the unsorted row v the edges of order[j], j in [first, last), after its edges: in
/// its room when it holds them, else the row moves whole to fresh room (one move).
inline void append_in_row(SlackSide side, size_t v, const std::vector<size_t>& order, size_t first, size_t last,
                          SlotChange& change) {
  int begin = side.starts[v], end = side.ends[v], c = static_cast<int>(last - first);
  change.rows.push_back(static_cast<int>(v));
  if (end + c > side.rooms[v]) {
    int degree = end - begin, fresh = side.starts.back();
    if (degree > 0) change.moves.push_back({begin, fresh, degree});
    side.starts[v] = fresh;
    side.ends[v] = end = fresh + degree;
    side.rooms[v] = fresh + moved_room(degree + c);
    side.starts.back() = side.rooms[v];
  }
  for (int j = 0; j < c; ++j) change.added[order[first + static_cast<size_t>(j)]] = end + j;
  side.ends[v] = end + c;
}

/// The forward slot arrays carried through (a part of) a change: targets, sources, weights.
inline void carry_forward(Graph& g, const SlotChange& change, bool relay_part,
                          const std::vector<int>& src = {}, const std::vector<int>& dst = {},
                          const std::vector<double>* weights = nullptr) {
  if (relay_part) {
    change.relay(g.targets, -1);
    change.relay(g.sources, -1);
    if (g.has_weights) change.relay(g.weights, 0.0);
    return;
  }
  change.move(g.targets, -1, &dst);
  change.move(g.sources, -1, &src);
  if (g.has_weights) change.move(g.weights, 0.0, weights);
}

/// (`ids`: the reverse edge ids are kept, `SlackRows::keep_rev_edge_ids`; not "non-empty": a
/// graph without edges has none yet, and its first re-layout must size them)
inline void carry_reverse(Graph& g, const SlotChange& change, bool relay_part, bool ids,
                          const std::vector<int>& src = {}) {
  if (relay_part) {
    change.relay(g.rev_sources, -1);
    if (ids) change.relay(g.rev_edge_ids, -1);
    return;
  }
  change.move(g.rev_sources, -1, &src);
  if (ids) change.move(g.rev_edge_ids, -1);
}

inline void relay_both(Graph& g, SlackRows& s, const std::vector<int>& extra, const std::vector<int>& rev_extra,
                       SlackChange& change) {
  relay_rows(forward_side(g, s), extra, change.forward);
  relay_rows(reverse_side(g, s), rev_extra, change.reverse);
  s.capacity = s.rev_capacity = std::max(s.capacity, s.rev_capacity);
  change.forward.relaid_capacity = change.reverse.relaid_capacity = s.capacity;
  carry_forward(g, change.forward, true);
  carry_reverse(g, change.reverse, true, s.keep_rev_edge_ids);
}

}  // namespace detail

}  // namespace starc

// The reverse edge ids kept right through a batch (rewrite_moved_reverse_ids, relaid_reverse_ids,
// index_twins, fix_reverse_ids): here, after the slack rows' types they take and before the
// entry points below that call them.
#include "starc_slack_reverse_ids.hpp"

namespace starc {

/// Lays a compact Graph out in slack rows (its edge ids become slots); the returned change
/// carries edge properties from the compact ids to the slots. `keep_rev_edge_ids` false: the
/// reverse edge ids are dropped (a program whose device never reads them); `sorted` false:
/// the batches leave the rows in any order (`SlackRows::sorted`), and the host keeps the
/// reverse edge ids whatever `keep_rev_edge_ids` says.
inline SlotChange make_slack_rows(Graph& g, SlackRows& s, bool keep_rev_edge_ids = true, bool sorted = true) {
  keep_rev_edge_ids = keep_rev_edge_ids || !sorted;   // (delete_unsorted finds edges through them)
  s.keep_rev_edge_ids = keep_rev_edge_ids;
  s.sorted = sorted;
  s.ends.assign(g.offsets.begin() + 1, g.offsets.end());
  s.rooms = s.ends;
  s.rev_ends.assign(g.rev_offsets.begin() + 1, g.rev_offsets.end());
  s.rev_rooms = s.rev_ends;
  if (!keep_rev_edge_ids) g.rev_edge_ids.clear();
  SlackChange change;
  detail::relay_both(g, s, {}, {}, change);
  if (keep_rev_edge_ids) {
    // the compact graph's reverse edge ids renamed to the slots, O(m) (a search per run of
    // equal targets, rewrite_moved_reverse_ids, took 43% of dyn_sssp's process at K18)
    detail::relaid_reverse_ids(g, s, change.forward);
  }
  g.edges_changed();
  return change.forward;
}

/// Deletes every edge src[i] -> dst[i] of the slack-row graph `g` (a missing one changes
/// nothing).
inline SlackChange delete_edges(Graph& g, SlackRows& s, const std::vector<int>& src, const std::vector<int>& dst) {
  size_t k = src.size();
  SlackChange change;
  int removed = 0;
  if (s.sorted) {
    std::vector<std::pair<int, int>> forward(k), reverse(k);
    for (size_t i = 0; i < k; ++i) {
      forward[i] = {src[i], dst[i]};
      reverse[i] = {dst[i], src[i]};
    }
    removed = detail::delete_from_side(detail::forward_side(g, s), std::move(forward), change.forward);
    detail::delete_from_side(detail::reverse_side(g, s), std::move(reverse), change.reverse);
  } else {
    removed = detail::delete_unsorted(g, s, src, dst, change);
  }
  if (removed == 0) return change;
  detail::carry_forward(g, change.forward, false);
  detail::carry_reverse(g, change.reverse, false, s.keep_rev_edge_ids);
  if (s.keep_rev_edge_ids) detail::fix_reverse_ids(g, s, change);
  g.num_edges -= removed;
  g.edges_changed();
  return change;
}

/// Adds an edge src[i] -> dst[i] (weight weights[i] when given) to the slack-row graph `g`
/// for every i, after the equal edges it has.
inline SlackChange add_edges(Graph& g, SlackRows& s, const std::vector<int>& src, const std::vector<int>& dst,
                             const std::vector<double>& weights = {}) {
  size_t k = src.size();
  SlackChange change;
  if (k == 0) return change;
  if (static_cast<size_t>(g.num_edges) + k > static_cast<size_t>(INT_MAX) - 1)
    detail::input_error(g.path, 0, std::to_string(static_cast<size_t>(g.num_edges) + k) +
                                       " edges do not fit in 32-bit edge ids");
  std::vector<size_t> order = detail::row_order(src, dst), rev_order = detail::row_order(dst, src);
  if (detail::out_of_room(detail::forward_side(g, s), src, order) ||
      detail::out_of_room(detail::reverse_side(g, s), dst, rev_order)) {
    std::vector<int> extra(static_cast<size_t>(g.num_nodes), 0), rev_extra = extra;
    for (size_t i = 0; i < k; ++i) {
      ++extra[static_cast<size_t>(src[i])];
      ++rev_extra[static_cast<size_t>(dst[i])];
    }
    detail::relay_both(g, s, extra, rev_extra, change);
    if (s.keep_rev_edge_ids && !s.sorted) detail::relaid_reverse_ids(g, s, change.forward);
  }
  detail::add_to_side(detail::forward_side(g, s), src, dst, order, change.forward, s.sorted);
  detail::add_to_side(detail::reverse_side(g, s), dst, src, rev_order, change.reverse, s.sorted);
  std::vector<double> given = weights;
  given.resize(k, 0.0);   // additions without weights: 0
  detail::carry_forward(g, change.forward, false, src, dst, &given);
  detail::carry_reverse(g, change.reverse, false, s.keep_rev_edge_ids, src);
  if (s.keep_rev_edge_ids && change.forward.whole() && s.sorted) {   // every id again, by searches
    detail::rewrite_moved_reverse_ids(g, s, change.forward, &change.reverse);
    detail::index_twins(g, s);
  } else if (s.keep_rev_edge_ids) {
    detail::fix_reverse_ids(g, s, change);
  }
  g.num_edges += static_cast<int>(k);
  g.edges_changed();
  return change;
}

}  // namespace starc
