// starc runtime: SlotChange, the slots one change of a slot-addressed edge array moved and
// wrote, and how edge values and device copies follow it (carry, slots, move_records).
//
// Produced by the slack rows' batches (starc_slack_rows.hpp); read by the edge properties and
// by each backend's device-copy refresh, which never need to know how the rows were changed.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace starc {

/// Spans of slots moved by one change, and the slots of the added edges: what an edge
/// property (and the graph's own slot arrays) needs to follow it.
struct SlotChange {
  struct Move { int from, to, length; };
  /// first, a re-layout of every row into fresh arrays of `relaid_capacity` slots (0: none)
  std::vector<Move> relaid;
  int relaid_capacity = 0;
  /// then, in place and in this order, each with memmove's meaning
  std::vector<Move> moves;
  /// the slot of each added edge, in the order the updates gave them
  std::vector<int> added;
  /// ranges [first, last) written otherwise (the reverse edge ids of moved forward edges)
  std::vector<std::pair<int, int>> rewritten;
  /// the rows whose start or end changed (repeats allowed: bound_rows())
  std::vector<int> rows;

  /// The rows whose bounds changed, ascending, each once: what a device copy of the row
  /// starts and ends scatters instead of uploading them whole (the slot count in use,
  /// starts[n], is written apart). Meaningless when whole().
  std::vector<int> bound_rows() const {
    std::vector<int> out = rows;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// `values` (one per slot) carried to the new slots: kept edges keep their values, added
  /// ones get `fill` or the values given (in update order).
  template <class T>
  void carry(std::vector<T>& values, const T& fill = T(), const std::vector<T>* added_values = nullptr) const {
    relay(values, fill);
    move(values, fill, added_values);
  }

  /// The re-layout half of carry().
  template <class T>
  void relay(std::vector<T>& values, const T& fill = T()) const {
    if (relaid_capacity == 0) return;
    std::vector<T> fresh(static_cast<size_t>(relaid_capacity), fill);
    for (const Move& m : relaid)
      std::copy_n(values.begin() + m.from, m.length, fresh.begin() + m.to);
    values.swap(fresh);
  }

  /// The in-place half of carry(): the moves, then the added edges' values.
  template <class T>
  void move(std::vector<T>& values, const T& fill = T(), const std::vector<T>* added_values = nullptr) const {
    for (const Move& m : moves) {
      auto from = values.begin() + m.from, to = values.begin() + m.to;
      if (m.to < m.from) std::copy(from, from + m.length, to);
      else std::copy_backward(from, from + m.length, to + m.length);
    }
    for (size_t i = 0; i < added.size(); ++i)
      values[static_cast<size_t>(added[i])] = added_values ? (*added_values)[i] : fill;
  }

  /// Every slot written, ascending (what a device copy packs and scatters: on R-MAT a batch's
  /// ranges lie all over the slot space, and one copy per range costs more than copying the
  /// whole arrays). Meaningless when whole().
  std::vector<int> slots() const {
    std::vector<int> out;
    for (const auto& range : ranges())
      for (int slot = range.first; slot < range.second; ++slot) out.push_back(slot);
    return out;
  }

  /// Every slot a move reads, ascending (what a device copy that may differ from the host's
  /// must give back before the move). Meaningless when whole().
  std::vector<int> sources() const {
    std::vector<std::pair<int, int>> r;
    for (const Move& m : moves)
      if (m.length > 0) r.emplace_back(m.from, m.from + m.length);
    std::sort(r.begin(), r.end());
    std::vector<int> out;
    for (const auto& range : r)
      for (int slot = std::max(range.first, out.empty() ? range.first : out.back() + 1); slot < range.second; ++slot)
        out.push_back(slot);
    return out;
  }

  /// The moves as records for a device that applies them itself (`span_moves` in the plan):
  /// (from, to, length, first) per move of a non-empty span, `first` its first slot in a
  /// scratch array of `moved` slots. The device gathers every move's span into the scratch
  /// array and then writes each to its new place: every move reads the values before the
  /// change, as the host's in-order moves do when no move reads or writes a slot an earlier
  /// one wrote. That holds by construction (a deletion closes holes inside its own row, an
  /// addition shifts spans up from the row's back or copies the row to fresh room) and is
  /// checked here: false (no records) where it does not hold, and the device falls back to
  /// the slots() scatter. Meaningless when whole().
  bool move_records(std::vector<int>& records, int& moved) const {
    records.clear();
    moved = 0;
    std::map<int, int> written;   // the earlier moves' destinations: first -> last, disjoint
    auto meets = [&written](int first, int last) {
      auto next = written.lower_bound(last);
      return next != written.begin() && std::prev(next)->second > first;
    };
    for (const Move& m : moves) {
      if (m.length <= 0) continue;
      if (meets(m.from, m.from + m.length) || meets(m.to, m.to + m.length)) {
        records.clear();
        moved = 0;
        return false;
      }
      written[m.to] = m.to + m.length;   // disjoint from the others: met nothing just above
      records.insert(records.end(), {m.from, m.to, m.length, moved});
      moved += m.length;
    }
    return true;
  }

  /// The slots written other than by the moves, ascending: the added edges' and the
  /// rewritten ones (what a device that applies the moves itself still gets packed and
  /// scattered). Meaningless when whole().
  std::vector<int> written_besides_moves() const {
    std::vector<int> out(added.begin(), added.end());
    for (const auto& range : rewritten)
      for (int slot = range.first; slot < range.second; ++slot) out.push_back(slot);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  /// Whether every slot may have changed (a re-layout): the whole arrays are refreshed.
  bool whole() const { return relaid_capacity > 0; }

  /// The slots written, as sorted disjoint ranges [first, last): the moves' destinations, the
  /// added edges' slots and the rewritten ones. Meaningless when whole().
  std::vector<std::pair<int, int>> ranges() const {
    std::vector<std::pair<int, int>> r;
    for (const Move& m : moves)
      if (m.length > 0) r.emplace_back(m.to, m.to + m.length);
    for (int slot : added) r.emplace_back(slot, slot + 1);
    r.insert(r.end(), rewritten.begin(), rewritten.end());
    std::sort(r.begin(), r.end());
    std::vector<std::pair<int, int>> out;
    for (const auto& range : r) {
      if (!out.empty() && range.first <= out.back().second)
        out.back().second = std::max(out.back().second, range.second);
      else
        out.push_back(range);
    }
    return out;
  }
};

}  // namespace starc
