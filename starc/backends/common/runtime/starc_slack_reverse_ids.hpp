// Rows with slack (starc_slack_rows.hpp): the reverse edge ids kept right through a batch.
//
// A slack-row graph keeps, for every reverse entry, the forward slot of its edge
// (Graph::rev_edge_ids) and, for every forward slot, its reverse position (SlackRows::twins).
// A batch moves and adds edges in both directions, so both are rewritten afterwards: after a
// change that laid nothing out again, O(1) an edge through the twins (fix_reverse_ids); after
// a re-layout, every id renamed to its edge's new slot (relaid_reverse_ids: the first layout,
// and rows in any order) or, rows sorted, found again by a search in its target's reverse row
// (rewrite_moved_reverse_ids).
//
// starc_slack_rows.hpp comes first, outside the include guard: it includes this header after
// its types, so where this header is included on its own, that include then defines
// everything below before the entry points need it, and the rest of this file is skipped.
#include "starc_slack_rows.hpp"

#ifndef STARC_SLACK_REVERSE_IDS_HPP
#define STARC_SLACK_REVERSE_IDS_HPP

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "starc_slot_change.hpp"

namespace starc {
namespace detail {

/// `rev_edge_ids` of the reverse entries u -> t for every run of equal targets t of forward
/// row u with an edge in the slots [from, to): the entries of source u in reverse row t are
/// exactly row u's run of t, in the same order.
inline void rewrite_reverse_ids(Graph& g, const SlackRows& s, int u, int from, int to,
                                std::vector<std::pair<int, int>>* written) {
  auto row = g.targets.begin();
  auto rev = g.rev_sources.begin();
  int begin = g.offsets[static_cast<size_t>(u)], end = s.ends[static_cast<size_t>(u)];
  for (int e = from; e < to;) {
    int t = g.targets[static_cast<size_t>(e)];
    int run_begin = static_cast<int>(std::lower_bound(row + begin, row + e, t) - row);
    int run_end = static_cast<int>(std::upper_bound(row + e, row + end, t) - row);
    size_t r = static_cast<size_t>(t);
    auto first = std::lower_bound(rev + g.rev_offsets[r], rev + s.rev_ends[r], u) - rev;
    for (int id = run_begin; id < run_end; ++id) g.rev_edge_ids[static_cast<size_t>(first + (id - run_begin))] = id;
    if (written) written->emplace_back(static_cast<int>(first), static_cast<int>(first) + run_end - run_begin);
    e = run_end;
  }
}

/// The reverse edge ids of the forward edges `change` moved or added (all of them after a
/// re-layout), the ranges written kept in `reverse` (`g`'s arrays already carried).
inline void rewrite_moved_reverse_ids(Graph& g, const SlackRows& s, const SlotChange& change, SlotChange* reverse) {
  auto* written = reverse ? &reverse->rewritten : nullptr;
  if (change.whole()) {
    for (int u = 0; u < g.num_nodes; ++u)
      rewrite_reverse_ids(g, s, u, g.offsets[static_cast<size_t>(u)], s.ends[static_cast<size_t>(u)], nullptr);
    return;
  }
  for (const SlotChange::Move& m : change.moves)
    rewrite_reverse_ids(g, s, g.sources[static_cast<size_t>(m.to)], m.to, m.to + m.length, written);
  for (int slot : change.added)
    rewrite_reverse_ids(g, s, g.sources[static_cast<size_t>(slot)], slot, slot + 1, written);
}

/// After a re-layout of unsorted rows (the reverse edge ids, carried, still name the old
/// forward slots): each id renamed to its edge's new slot, and the twins indexed again, so
/// that the batch's in-place part fixes the ids as without a re-layout (a search in a row
/// needs it sorted).
inline void index_twins(Graph& g, SlackRows& s);
inline void relaid_reverse_ids(Graph& g, SlackRows& s, const SlotChange& forward) {
  size_t old_slots = 0;
  for (const SlotChange::Move& m : forward.relaid) old_slots = std::max(old_slots, static_cast<size_t>(m.from + m.length));
  std::vector<int> renamed(old_slots, -1);
  for (const SlotChange::Move& m : forward.relaid)
    for (int i = 0; i < m.length; ++i) renamed[static_cast<size_t>(m.from + i)] = m.to + i;
  for (size_t v = 0; v < s.rev_ends.size(); ++v)
    for (int p = g.rev_offsets[v]; p < s.rev_ends[v]; ++p) {
      int& id = g.rev_edge_ids[static_cast<size_t>(p)];
      id = renamed[static_cast<size_t>(id)];
    }
  index_twins(g, s);
}

/// Every forward slot's reverse position (`SlackRows::twins`), from the reverse edge ids.
inline void index_twins(Graph& g, SlackRows& s) {
  s.twins.assign(static_cast<size_t>(s.capacity), -1);
  for (size_t v = 0; v < s.rev_ends.size(); ++v)
    for (int p = g.rev_offsets[v]; p < s.rev_ends[v]; ++p)
      s.twins[static_cast<size_t>(g.rev_edge_ids[static_cast<size_t>(p)])] = p;
}

/// The reverse edge ids after a change that laid nothing out again, the slot arrays already
/// carried through it (the reverse edge ids still name the old forward slots): the moved
/// reverse entries' twins first, then the twins carried to the new forward slots, the added
/// edges paired with their reverse entries (both in update order), and the moved forward
/// edges' reverse entries rewritten, O(1) each; the positions written kept in `change.reverse`.
inline void fix_reverse_ids(Graph& g, SlackRows& s, SlackChange& change) {
  for (const SlotChange::Move& m : change.reverse.moves)
    for (int q = m.to; q < m.to + m.length; ++q) {
      int old = g.rev_edge_ids[static_cast<size_t>(q)];
      if (old >= 0) s.twins[static_cast<size_t>(old)] = q;
    }
  change.forward.move(s.twins, -1);
  auto& written = change.reverse.rewritten;
  for (size_t i = 0; i < change.forward.added.size(); ++i) {
    int e = change.forward.added[i], q = change.reverse.added[i];
    s.twins[static_cast<size_t>(e)] = q;
    g.rev_edge_ids[static_cast<size_t>(q)] = e;
  }
  for (const SlotChange::Move& m : change.forward.moves)
    for (int e = m.to; e < m.to + m.length; ++e) {
      int q = s.twins[static_cast<size_t>(e)];
      g.rev_edge_ids[static_cast<size_t>(q)] = e;
      written.emplace_back(q, q + 1);
    }
}

}  // namespace detail
}  // namespace starc

#endif  // STARC_SLACK_REVERSE_IDS_HPP
