// starc MPI runtime: the ghosts a batch's additions bring, inserted into the local index space in place (issue 31).
//
// Included by starc_mpi_update_rows.hpp, for programs without ghost rows (so every vertex a
// rank knows is owned or a ghost: `remote` is `ghosts`). An added edge (u, v) gives u's owner
// v as a ghost and, with in-rows, v's owner u; a pair (rank, vertex) is new where the rank
// does not know the vertex, which its owner tells from its mirror list for that rank (the
// very list of that rank's ghosts it owns). Every rank reads the whole part, so both sides
// find the same new pairs without an exchange. Where the plan allows (Needs::appended_ghosts)
// the new ghosts take the next local ids and no old local id moves: `remote` and `ghosts`
// stay ascending by global id (the exchanges' order), with each one's local id beside it.
// Otherwise they take their places in global-id order (ids in global order, owned ids
// contiguous, ghosts grouped by owner) and every local id an array holds moves by the new
// ghosts below it (one pass over the slots). Either way the owners insert the matching
// mirrors at the same places in their lists. Only the new ghosts' values and degrees cross the
// network (one exchange each, of what the owners send in the order of the holders' new
// ghosts); the derived indexes (ghost runs, mirror set) are rebuilt on first use, the peers'
// communicator only where a new pair of communicating ranks appears.
#ifndef STARC_MPI_NEW_GHOSTS_HPP
#define STARC_MPI_NEW_GHOSTS_HPP

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_updates.hpp"

namespace starc_mpi {
namespace detail {

/// What insert_ghosts changed, for the per-vertex arrays to follow (carry_local).
struct Growth {
  bool grew = false;             // some rank got new ghosts: every rank exchanges (collective)
  std::vector<int> remap;        // old local id -> new local id; empty: appended (ids kept)
  size_t old_nodes = 0;          // the local ids before (appended: the arrays' old length)
  std::vector<int> send;         // new local ids of the new mirrors, by the rank that holds them
  std::vector<long long> send_counts;  // ranks: how many of `send` each rank holds
  std::vector<int> receive;      // new local ids of the new ghosts (ascending: by owner)
};

/// The new ghosts' values from their owners: get(local id) on the owners' side, put(local id,
/// value) on the holders' (collective).
template <class T, class Get, class Put>
void fill_new_ghosts(const Distribution& d, const Growth& growth, Get get, Put put) {
  std::vector<T> out(growth.send.size());
  for (size_t k = 0; k < out.size(); ++k) out[k] = get(growth.send[k]);
  std::vector<T> in = exchange_grouped(d, out, growth.send_counts);
  if (in.size() != growth.receive.size()) throw std::logic_error("fill_new_ghosts: owners and holders disagree");
  for (size_t k = 0; k < in.size(); ++k) put(growth.receive[k], in[k]);
}

/// The local ids of `ids` (old local ids, below `count` of them) moved by `remap`.
inline void remap_ids(std::vector<int>& ids, size_t count, const std::vector<int>& remap) {
  for (size_t k = 0; k < count; ++k) ids[k] = remap[static_cast<size_t>(ids[k])];
}

/// CSR offsets (old local ids) for the new local ids: a new ghost has an empty row.
inline std::vector<int> spread_offsets(const std::vector<int>& offsets, const std::vector<int>& remap, size_t nodes) {
  std::vector<int> out(nodes + 1);
  size_t x = 0;
  for (size_t y = 0; y < nodes; ++y) {
    out[y] = offsets[x];  // the start of the next old row
    if (x < remap.size() && static_cast<size_t>(remap[x]) == y) ++x;
  }
  out[nodes] = offsets[remap.size()];
  return out;
}

/// The new ghosts `fresh` (global ids, ascending) at their places in global-id order: every
/// old local id moves up by the new ghosts below it; returns the old -> new local ids.
inline std::vector<int> renumber_ghosts(Distribution& d, const std::vector<int>& fresh, Growth& growth) {
  const size_t L = static_cast<size_t>(d.local_nodes), nodes = L + fresh.size();
  std::vector<int> remap(L);
  for (size_t x = 0, f = 0; x < L; ++x) {
    while (f < fresh.size() && fresh[f] < d.global_id[x]) ++f;
    remap[x] = static_cast<int>(x + f);
  }
  std::vector<int> global_id(nodes, -1);
  for (size_t x = 0; x < L; ++x) global_id[static_cast<size_t>(remap[x])] = d.global_id[x];
  for (size_t y = 0, f = 0; y < nodes; ++y)
    if (global_id[y] < 0) {
      global_id[y] = fresh[f++];
      growth.receive.push_back(static_cast<int>(y));
    }
  std::vector<int> remote(d.remote.size() + fresh.size());
  std::merge(d.remote.begin(), d.remote.end(), fresh.begin(), fresh.end(), remote.begin());
  d.remote = std::move(remote);
  d.global_id = std::move(global_id);
  d.own_begin = static_cast<int>(std::lower_bound(d.remote.begin(), d.remote.end(), d.first) - d.remote.begin());
  d.own_end = d.own_begin + (d.last - d.first);
  d.ghost_local.resize(d.remote.size());
  for (size_t k = 0; k < d.remote.size(); ++k) d.ghost_local[k] = d.remote_local_id(k);
  return remap;
}

/// The new ghosts `fresh` (global ids, ascending) at the next local ids, in their order: no
/// old local id moves (what the slots hold stays), `remote` stays ascending with each
/// entry's local id beside it (Distribution::remote_local). O(ghosts + fresh), where the
/// renumbering was a pass over every slot and in-row entry (Kronecker 18, 2 ranks: ~450 new
/// ghosts a batch renumbered ~1.1 M slots per rank).
inline void append_ghosts(Distribution& d, const std::vector<int>& fresh, Growth& growth) {
  const size_t L = static_cast<size_t>(d.local_nodes);
  if (d.remote_local.empty()) {  // (the local ids were in global-id order until now)
    std::vector<int> ordered(d.remote.size());
    for (size_t k = 0; k < d.remote.size(); ++k) ordered[k] = d.remote_local_id(k);
    d.remote_local = std::move(ordered);
  }
  std::vector<int> remote, local;
  remote.reserve(d.remote.size() + fresh.size());
  local.reserve(remote.capacity());
  for (size_t k = 0, f = 0; k < d.remote.size() || f < fresh.size();) {
    if (f < fresh.size() && (k == d.remote.size() || fresh[f] < d.remote[k])) {
      remote.push_back(fresh[f]);
      local.push_back(static_cast<int>(L + f++));
    } else {
      remote.push_back(d.remote[k]);
      local.push_back(d.remote_local[k++]);
    }
  }
  d.remote = std::move(remote);
  d.remote_local = std::move(local);
  d.ghost_local = d.remote_local;  // (remote is ghosts: no far vertices here)
  d.global_id.insert(d.global_id.end(), fresh.begin(), fresh.end());
  for (size_t f = 0; f < fresh.size(); ++f) growth.receive.push_back(static_cast<int>(L + f));
}

/// Inserts the ghosts the additions of `part` bring (see the file comment); growth.grew is set
/// on every rank (collective: call it on every rank where any rank needs a new ghost).
inline void insert_ghosts(Distribution& d, const starc::BatchPart& part, Growth& growth) {
  const size_t R = static_cast<size_t>(d.ranks), L = static_cast<size_t>(d.local_nodes);
  if (d.needs.ghost_rows || d.remote.size() != d.ghosts.size()) throw std::logic_error("insert_ghosts: far vertices");
  std::vector<int> fresh;                 // this rank's new ghosts (global ids)
  std::vector<std::vector<int>> to(R);    // the new mirrors each rank holds (global ids)
  auto note = [&](int holder_of, int x) {  // the owner of `holder_of` holds x
    if (d.owns(holder_of)) {
      if (!d.owns(x) && d.local_of(x) < 0) fresh.push_back(x);
    } else if (d.owns(x)) {
      size_t r = static_cast<size_t>(d.owner(holder_of));
      int lx = d.own_begin + (x - d.first);
      auto begin = d.mirrors.begin() + d.mirror_displs[r], end = d.mirrors.begin() + d.mirror_displs[r + 1];
      if (!std::binary_search(begin, end, lx)) to[r].push_back(x);  // (a rank's mirrors ascend)
    }
  };
  for (size_t i = 0; i < part.src.size(); ++i) {
    note(part.src[i], part.dst[i]);
    if (d.needs.reverse) note(part.dst[i], part.src[i]);
  }
  sort_unique(fresh);
  d.stats.new_ghosts += static_cast<long long>(fresh.size());
  const int old_own_begin = d.own_begin;
  const size_t nodes = L + fresh.size();
  growth.receive.clear();
  growth.old_nodes = L;
  std::vector<int> remap;
  if (d.needs.appended_ghosts) {
    append_ghosts(d, fresh, growth);
  } else {
    remap = renumber_ghosts(d, fresh, growth);
  }
  d.ghosts = d.remote;
  d.local_nodes = static_cast<int>(nodes);
  for (size_t r = 0; r <= R; ++r)
    d.ghost_displs[r] = static_cast<int>(std::lower_bound(d.ghosts.begin(), d.ghosts.end(), d.splits[r]) - d.ghosts.begin());
  // Mirrors: each rank's list with its new ones merged in (own local ids shift alike).
  {
    const int shift = d.own_begin - old_own_begin;
    std::vector<int> mirrors, displs(R + 1, 0);
    growth.send.clear();
    growth.send_counts.assign(R, 0);
    for (size_t r = 0; r < R; ++r) {
      sort_unique(to[r]);
      for (int& x : to[r]) x = d.own_begin + (x - d.first);
      size_t at = mirrors.size();
      for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) mirrors.push_back(d.mirrors[static_cast<size_t>(k)] + shift);
      mirrors.insert(mirrors.end(), to[r].begin(), to[r].end());
      std::inplace_merge(mirrors.begin() + static_cast<std::ptrdiff_t>(at), mirrors.end() - static_cast<std::ptrdiff_t>(to[r].size()), mirrors.end());
      displs[r + 1] = static_cast<int>(mirrors.size());
      growth.send.insert(growth.send.end(), to[r].begin(), to[r].end());
      growth.send_counts[r] = static_cast<long long>(to[r].size());
    }
    d.mirrors = std::move(mirrors);
    d.mirror_displs = std::move(displs);
  }
  // Derived indexes: rebuilt on first use (index_ghost_runs, index_mirrors).
  d.ghost_runs.clear();
  d.ghost_runs_cover = 0;
  d.mirror_set.clear();
  d.mirror_slot.clear();
  d.mirror_bit_displs.clear();
  // The graph's local ids: rows and in-rows of new ghosts are empty.
  starc::Graph& g = d.graph;
  if (remap.empty()) {  // appended: the old ids stay, the new rows go at the end
    const int rows_end = g.offsets[L], in_end = g.rev_offsets[L];
    g.offsets.resize(nodes + 1, rows_end);
    g.rev_offsets.resize(nodes + 1, in_end);
    d.out_degree.resize(nodes, 0);
    d.in_degree.resize(nodes, 0);
  } else {
    const size_t in_entries = static_cast<size_t>(g.rev_offsets[L]);
    g.offsets = spread_offsets(g.offsets, remap, nodes);
    g.rev_offsets = spread_offsets(g.rev_offsets, remap, nodes);
    remap_ids(g.targets, g.targets.size(), remap);
    remap_ids(g.sources, g.sources.size(), remap);
    remap_ids(g.rev_sources, in_entries, remap);
    d.stats.renumbered_ids += static_cast<long long>(g.targets.size() + g.sources.size() + in_entries);
    // Degrees: the old ones move, the new ghosts' come from their owners (before this part).
    for (std::vector<int>* degrees : {&d.out_degree, &d.in_degree}) {
      std::vector<int> moved(nodes, 0);
      for (size_t x = 0; x < L; ++x) moved[static_cast<size_t>(remap[x])] = (*degrees)[x];
      *degrees = std::move(moved);
    }
  }
  struct Degrees {
    int out, in;
  };
  fill_new_ghosts<Degrees>(
      d, growth, [&](int v) { return Degrees{d.out_degree[static_cast<size_t>(v)], d.in_degree[static_cast<size_t>(v)]}; },
      [&](int v, const Degrees& x) {
        d.out_degree[static_cast<size_t>(v)] = x.out;
        d.in_degree[static_cast<size_t>(v)] = x.in;
      });
  growth.remap = std::move(remap);
  growth.grew = true;
  refresh_peers(d, &d.peers);
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_NEW_GHOSTS_HPP
