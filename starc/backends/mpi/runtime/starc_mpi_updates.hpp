// starc MPI runtime: a batch of graph updates applied to the distributed graph (issue 31).
//
// Included at the end of starc_mpi.hpp. Every rank reads the whole update stream (so a bad
// line stops every rank alike, with the reference's message) and keeps, of each batch, the
// updates of the rows it owns: the deletions and additions of edges whose source it owns (an
// --undirected run's stream holds both directions of each update). apply_updates applies a
// part in place unless the program holds ghost rows (starc_mpi_update_rows.hpp; the ghosts
// additions bring are inserted in place, starc_mpi_new_ghosts.hpp); otherwise it changes
// those rows as starc::delete_edges / add_edges change a whole graph's (every copy of a deleted edge
// goes; an added edge goes after the equal edges its row has, rows stay sorted by target), then
// lays the rank's part out again on the same partition (detail::lay_out): its in-rows are sent
// again by their sources' owners (whole ghost rows of a program without in-rows are brought up
// to date from the stream instead, detail::kept_rows: only new ghosts' rows are sent), the
// ghosts new edges reach come in and those no edge reaches
// any more go (local ids stay in global-id order), mirrors, degrees and the peers'
// communicator (kept while the peers are the same ranks) follow. The local ids change with the
// ghosts: carry_local moves a per-vertex array's own vertices' values to their new local ids
// and gives every ghost its owner's value (one exchange per array).
#ifndef STARC_MPI_UPDATES_HPP
#define STARC_MPI_UPDATES_HPP

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_updates.hpp"
#include "starc_mpi_update_rows.hpp"

namespace starc_mpi {

/// Where a rank's own vertices sat in its local index space before a batch.
struct LocalChange {
  int own_begin = 0;
  bool moved = true;  // false: applied in place, every local id where it was or in `growth`
  detail::Growth growth;  // in place: the new ghosts inserted (growth.grew on every rank)
  // Laid out again: for each new owned slot (from owned_begin), the old slot of its edge, or
  // -1 for an added edge (carry_edges).
  std::vector<int> slot_from;
};

namespace detail {

/// `rows` (global ids, by source, target, then key; every key below `key`) with a batch's
/// deletions `deleted` then its additions `added` (either may be null) of the rows whose
/// source `mine` accepts applied, as starc::delete_edges / add_edges change a whole graph's:
/// every copy of a deleted edge goes; an added edge goes after the equal edges its row has
/// (a larger key), additions in stream order, rows stay sorted by target.
template <class Mine>
void apply_to_rows(std::vector<Edge>& rows, const starc::BatchPart* deleted, const starc::BatchPart* added,
                   long long key, Mine mine) {
  if (deleted != nullptr) {
    std::vector<std::pair<int, int>> gone;
    for (size_t i = 0; i < deleted->src.size(); ++i)
      if (mine(deleted->src[i])) gone.emplace_back(deleted->src[i], deleted->dst[i]);
    std::sort(gone.begin(), gone.end());
    if (!gone.empty())
      rows.erase(std::remove_if(rows.begin(), rows.end(),
                                [&](const Edge& e) { return std::binary_search(gone.begin(), gone.end(), std::make_pair(e.src, e.dst)); }),
                 rows.end());
  }
  if (added != nullptr) {
    auto old_end = static_cast<std::ptrdiff_t>(rows.size());
    for (size_t i = 0; i < added->src.size(); ++i)
      if (mine(added->src[i])) rows.push_back({added->src[i], added->dst[i], key++, added->weights.empty() ? 0.0 : added->weights[i]});
    // the rows are in order already: the additions sorted, then merged in
    std::sort(rows.begin() + old_end, rows.end(), by_source);
    std::inplace_merge(rows.begin(), rows.begin() + old_end, rows.end(), by_source);
  }
}

/// The whole ghost rows d holds, with a batch's deletions `deleted` then its additions `added`
/// applied to them as their owners apply them to their own rows (apply_to_rows). lay_out
/// takes these rows for the ghosts the rank keeps instead of the owners sending them again.
inline KeptRows kept_rows(const Distribution& d, const starc::BatchPart* deleted, const starc::BatchPart* added) {
  KeptRows kept;
  const starc::Graph& g = d.graph;
  kept.ghosts = d.ghosts;
  long long key = 0;  // the rows' order, which equal edges keep
  for (size_t k = 0; k < d.ghosts.size(); ++k) {
    int v = d.ghost_local[k];
    for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e)
      kept.rows.push_back({d.ghosts[k], d.global_id[static_cast<size_t>(g.targets[static_cast<size_t>(e)])], key++,
                           g.has_weights ? g.weights[static_cast<size_t>(e)] : 0.0});
  }
  apply_to_rows(kept.rows, deleted, added, key, [&](int v) { return kept.held(v); });
  kept.starts.assign(kept.ghosts.size() + 1, 0);
  for (size_t k = 0, at = 0; k < kept.ghosts.size(); ++k) {
    while (at < kept.rows.size() && kept.rows[at].src == kept.ghosts[k]) ++at;
    kept.starts[k + 1] = at;
  }
  kept.mirror_displs = d.mirror_displs;
  kept.mirrors.resize(d.mirrors.size());
  for (size_t k = 0; k < d.mirrors.size(); ++k) kept.mirrors[k] = d.global_id[static_cast<size_t>(d.mirrors[k])];
  return kept;
}

}  // namespace detail

/// A batch's deletions `deleted` then its additions `added` (either may be null) applied to
/// the rows this rank owns, in place or by laying the rank's part out again once for both
/// (collective; see the file comment): the plan fuses a program's adjacent updateCSRDel and
/// updateCSRAdd into one call (batches.FUSED_WHY). `in_place` false: always laid out again
/// (an edge property carried by slot needs the slot map, LocalChange::slot_from).
inline LocalChange apply_updates(Distribution& d, const starc::BatchPart* deleted, const starc::BatchPart* added, bool in_place = true) {
  using detail::Edge;
  if (in_place) {
    // (apply_in_place answers alike for both parts: false only where ghost rows are held)
    LocalChange change{d.own_begin, false, {}, {}};
    if ((deleted == nullptr || detail::apply_in_place(d, *deleted, 'd', change.growth)) &&
        (added == nullptr || detail::apply_in_place(d, *added, 'a', change.growth)))
      return change;
  }
  LocalChange before{d.own_begin, true, {}, {}};
  // Whole ghost rows are brought up to date here from the stream, not sent again (their
  // owners send only new ghosts' rows); with in-rows, lay_out's slots need the rows' global
  // edge ids, which only the owners know.
  detail::KeptRows kept;
  const bool keep = d.needs.ghost_rows && !d.needs.ghost_row_slices && !d.needs.reverse;
  if (keep) kept = detail::kept_rows(d, deleted, added);
  const int old_owned_begin = d.owned_begin;
  const starc::Graph& g = d.graph;
  std::vector<Edge> owned;
  owned.reserve(static_cast<size_t>(d.owned_edges) + (added != nullptr ? added->src.size() : 0));
  long long key = 0;  // the rows' order, which equal edges keep
  for (int v = d.own_begin; v < d.own_end; ++v)
    for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e)
      owned.push_back({d.global_id[static_cast<size_t>(v)], d.global_id[static_cast<size_t>(g.targets[static_cast<size_t>(e)])],
                       key++, g.has_weights ? g.weights[static_cast<size_t>(e)] : 0.0});
  detail::apply_to_rows(owned, deleted, added, key, [&](int v) { return d.owns(v); });
  // (the keys of kept edges are their old places among the owned slots: see above)
  before.slot_from.resize(owned.size());
  for (size_t i = 0; i < owned.size(); ++i)
    before.slot_from[i] = owned[i].key < d.owned_edges ? old_owned_begin + static_cast<int>(owned[i].key) : -1;
  long long mine = static_cast<long long>(owned.size());
  MPI_Allreduce(&mine, &d.global_edges, 1, MPI_LONG_LONG, MPI_SUM, d.comm);
  // The same partition and run state; everything lay_out builds starts empty.
  Distribution next;
  next.comm = d.comm;
  next.rank = d.rank;
  next.ranks = d.ranks;
  next.everyone = d.everyone;
  next.splits = d.splits;
  next.first = d.first;
  next.last = d.last;
  next.global_edges = d.global_edges;
  next.stats_enabled = d.stats_enabled;
  next.stats = d.stats;
  next.needs = d.needs;
  next.mirrored = d.mirrored;
  next.graph.num_nodes = g.num_nodes;
  next.graph.path = g.path;
  next.graph.has_weights = g.has_weights;
  next.graph.weights_integral = g.weights_integral;
  detail::lay_out(next, std::move(owned), &d.peers, keep ? &kept : nullptr);
  d = std::move(next);
  return before;
}

/// The batch part `part` (deletions for `kind` 'd', additions for 'a') alone (see above).
inline LocalChange apply_updates(Distribution& d, const starc::BatchPart& part, char kind, bool in_place = true) {
  return kind == 'd' ? apply_updates(d, &part, nullptr, in_place) : apply_updates(d, nullptr, &part, in_place);
}

/// A per-vertex array of the local index space after apply_updates: reallocated for the new
/// local ids, its own vertices' values carried, its ghosts' taken from their owners
/// (collective).
template <class T>
void carry_local(const Distribution& d, const LocalChange& before, T*& array) {
  struct Value {  // (bytes: T may be bool)
    T value;
  };
  // In place, the ghosts kept their values (the supersteps keep every ghost its owner's value,
  // as they do between any two loops of a static program); only new ghosts fetch theirs.
  if (!before.moved) {
    const detail::Growth& growth = before.growth;
    if (!growth.grew) return;
    T* moved = new T[static_cast<size_t>(std::max(d.local_nodes, 1))]();
    if (growth.remap.empty())  // appended: every old local id stays
      std::copy(array, array + growth.old_nodes, moved);
    for (size_t x = 0; x < growth.remap.size(); ++x) moved[growth.remap[x]] = array[x];
    delete[] array;
    array = moved;
    detail::fill_new_ghosts<Value>(
        d, growth, [&](int v) { return Value{array[v]}; }, [&](int v, const Value& x) { array[v] = x.value; });
    return;
  }
  T* next = new T[static_cast<size_t>(std::max(d.local_nodes, 1))]();
  std::copy(array + before.own_begin, array + before.own_begin + d.owned(), next + d.own_begin);
  delete[] array;
  array = next;
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<long long> counts(R, 0);
  std::vector<Value> out(d.mirrors.size());
  for (size_t r = 0; r < R; ++r) {  // each rank's mirrors in the order of its ghosts
    counts[r] = d.mirror_displs[r + 1] - d.mirror_displs[r];
    for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k)
      out[static_cast<size_t>(k)].value = array[d.mirrors[static_cast<size_t>(k)]];
  }
  std::vector<Value> in = detail::exchange_grouped(d, out, counts);
  for (size_t k = 0; k < in.size(); ++k)  // by owner, as the ghosts are listed
    array[d.ghost_local[k]] = in[k].value;
}

/// The copies of an edge property on the rows of this rank's ghosts (Needs::ghost_rows, whole
/// rows) refreshed from their owners: each owner sends its mirrors' rows' values, in the order
/// of the ghosts of the rank that holds them, each row in its order (collective).
template <class T>
void refresh_ghost_edges(const Distribution& d, T* array) {
  struct Value {  // (bytes: T may be bool)
    T value;
  };
  if (!d.needs.ghost_rows || d.needs.ghost_row_slices) throw std::logic_error("refresh_ghost_edges: no whole ghost rows");
  const starc::Graph& g = d.graph;
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<long long> counts(R, 0);
  std::vector<Value> out;
  for (size_t r = 0; r < R; ++r)
    for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) {
      int v = d.mirrors[static_cast<size_t>(k)];
      for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e) out.push_back({array[e]});
      counts[r] += g.offsets[static_cast<size_t>(v) + 1] - g.offsets[static_cast<size_t>(v)];
    }
  std::vector<Value> in = detail::exchange_grouped(d, out, counts);
  size_t at = 0;
  for (int v : d.ghost_local)  // by owner, as the ghosts are listed
    for (int e = g.offsets[static_cast<size_t>(v)]; e < g.offsets[static_cast<size_t>(v) + 1]; ++e) array[e] = in.at(at++).value;
  if (at != in.size()) throw std::logic_error("refresh_ghost_edges: rows differ from their owners'");
}

/// An edge property after apply_updates(..., false): reallocated for the rank's new slots,
/// each kept owned edge's value carried from its old slot, an added edge's its update's
/// weight where `added` (the rebuilt rows' weights, by slot) is given, else 0 / false (the
/// language's rule), the ghost rows' copies taken from their owners (collective). The host's
/// edge arrays are `capacity` long, which only grows (a trial restores the input's values
/// into them): the new array is too, `capacity` raised to the slots where they outgrow it.
template <class T>
void carry_edges(const Distribution& d, const LocalChange& before, T*& array, int& capacity,
                 const std::vector<T>* added = nullptr) {
  if (!before.moved) throw std::logic_error("carry_edges: applied in place");
  capacity = std::max({capacity, d.graph.num_edges, 1});
  T* next = new T[static_cast<size_t>(capacity)]();
  for (size_t i = 0; i < before.slot_from.size(); ++i) {
    size_t slot = static_cast<size_t>(d.owned_begin) + i;
    if (before.slot_from[i] >= 0) next[slot] = array[before.slot_from[i]];
    else if (added != nullptr) next[slot] = (*added)[slot];
  }
  delete[] array;
  array = next;
  // (a program that reads an edge property on ghost rows holds them whole: Distribution's
  // ghost_edges turn the slices off)
  if (d.needs.ghost_rows && !d.needs.ghost_row_slices) refresh_ghost_edges(d, array);
}

}  // namespace starc_mpi

#endif  // STARC_MPI_UPDATES_HPP
