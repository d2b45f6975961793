// starc MPI runtime: laying out a rank's part of the graph in its local index space.
//
// Included at the end of starc_mpi.hpp (which describes the local index space and the slot
// layout). lay_out() builds a rank's local ids, CSR rows, ghosts, mirrors, degrees and peers
// from the edges it owns, on the partition the distribution holds: distribute() calls it once,
// and a batch of updates calls it again to rebuild a changed part (starc_mpi_updates.hpp).
#ifndef STARC_MPI_LAYOUT_HPP
#define STARC_MPI_LAYOUT_HPP

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "starc_mpi.hpp"

namespace starc_mpi {
namespace detail {

/// d.peers, the ranks d shares ghosts with (either way), from its ghosts and mirrors
/// (collective). A rebuilt part keeps its communicator `reuse` (the previous peers) while every
/// rank's peers stay the same ones (creating one is collective: all ranks decide alike); a
/// replaced one is freed with its last copy (Neighbours::owner: the input distribution of
/// --trials may still hold it).
inline void refresh_peers(Distribution& d, const Neighbours* reuse) {
  std::vector<int> peers;
  for (int r = 0; r < d.ranks; ++r)
    if (r != d.rank && (d.ghost_displs[static_cast<size_t>(r) + 1] > d.ghost_displs[static_cast<size_t>(r)] ||
                        d.mirror_displs[static_cast<size_t>(r) + 1] > d.mirror_displs[static_cast<size_t>(r)]))
      peers.push_back(r);
  int same = reuse != nullptr && reuse->sources == peers && reuse->destinations == peers, all_same = 0;
  if (reuse != nullptr) MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, d.comm);
  if (!all_same)
    d.peers = detail::neighbourhood(d.comm, peers, peers);
  else if (reuse != &d.peers)
    d.peers = *reuse;
}

/// The rank's local index space, CSR, ghosts, mirrors, degrees and peers built from its owned
/// edges `owned` (global ids, in read_graph's order: by source, target, then key), on the
/// partition d.splits (collective). Used by distribute() and, after a batch of updates, to
/// rebuild the rank's part from its changed rows (starc_mpi_updates.hpp); `reuse`: the
/// previous peers, kept when the set of peers is the same; `kept`: the whole ghost rows held
/// before the batch, brought up to date (KeptRows; whole rows, no in-rows).
inline void lay_out(Distribution& d, std::vector<Edge> owned, const Neighbours* reuse, const KeptRows* kept) {
  const Needs& needs = d.needs;
  const std::string& path = d.graph.path;
  MPI_Comm comm = d.comm;
  size_t R = static_cast<size_t>(d.ranks);
  int n = d.graph.num_nodes;
  int nown = d.last - d.first;
  // Every vertex's degrees when the program asks for them (n each: one Allreduce).
  if (needs.global_degrees) {
    d.global_out_degree.assign(static_cast<size_t>(n), 0);
    d.global_in_degree.assign(static_cast<size_t>(n), 0);
    for (const Edge& e : owned) {
      ++d.global_out_degree[static_cast<size_t>(e.src)];
      ++d.global_in_degree[static_cast<size_t>(e.dst)];
    }
    MPI_Allreduce(MPI_IN_PLACE, d.global_out_degree.data(), n, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, d.global_in_degree.data(), n, MPI_INT, MPI_SUM, comm);
  }
  // In-degrees of owned vertices: every edge's target to its owner (from the in-edges below
  // when those are fetched anyway).
  std::vector<int> own_in(static_cast<size_t>(nown), 0);
  if (!needs.reverse && needs.in_degrees) {
    std::vector<int> targets(owned.size());
    for (size_t k = 0; k < owned.size(); ++k) targets[k] = owned[k].dst;
    std::vector<int> mine_in = detail::exchange(d, targets, [&](int v) { return d.owner(v); });
    for (int v : mine_in) ++own_in[static_cast<size_t>(v - d.first)];
  }
  long long owned_count = static_cast<long long>(owned.size());
  MPI_Exscan(&owned_count, &d.edge_base, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (d.rank == 0) d.edge_base = 0;
  for (size_t i = 0; i < owned.size(); ++i) owned[i].key = d.edge_base + static_cast<long long>(i);  // global ids
  detail::check_local_edges(d, path, owned_count);
  d.owned_edges = static_cast<int>(owned.size());
  std::vector<long long> own_row(static_cast<size_t>(nown) + 1, 0);  // owned rows in `owned`
  for (const Edge& e : owned) ++own_row[static_cast<size_t>(e.src - d.first) + 1];
  for (size_t v = 0; v < static_cast<size_t>(nown); ++v) own_row[v + 1] += own_row[v];

  // In-edges of owned vertices: every owned edge to the owner of its target.
  std::vector<Edge> incoming;
  if (needs.reverse) {
    std::vector<Edge> copy(owned);
    std::vector<Edge> arrived = detail::exchange(d, copy, [&](const Edge& e) { return d.owner(e.dst); });
    // by target, then key: a counting sort over the owned targets, stable, as the edges of one
    // target arrive in ascending keys (by sender, each sender's in global-id order)
    std::vector<long long> at(static_cast<size_t>(nown) + 1, 0);
    for (const Edge& e : arrived) ++at[static_cast<size_t>(e.dst - d.first) + 1];
    for (size_t v = 0; v < static_cast<size_t>(nown); ++v) at[v + 1] += at[v];
    incoming.resize(arrived.size());
    for (const Edge& e : arrived) incoming[static_cast<size_t>(at[static_cast<size_t>(e.dst - d.first)]++)] = e;
    for (const Edge& e : incoming) ++own_in[static_cast<size_t>(e.dst - d.first)];
  }

  // Ghosts, then mirrors: each rank tells every owner which of its vertices it holds.
  for (const Edge& e : owned)
    if (!d.owns(e.dst)) d.ghosts.push_back(e.dst);
  for (const Edge& e : incoming)
    if (!d.owns(e.src)) d.ghosts.push_back(e.src);
  d.stats.cut_edges = static_cast<long long>(d.ghosts.size());  // before duplicates go
  detail::sort_unique(d.ghosts);
  d.ghost_displs.resize(R + 1);
  for (size_t r = 0; r <= R; ++r)
    d.ghost_displs[r] = static_cast<int>(std::lower_bound(d.ghosts.begin(), d.ghosts.end(), d.splits[r]) - d.ghosts.begin());
  std::vector<int> mirror_ids = detail::tell_owners(d, d.ghosts, d.mirror_displs);

  // Ghost rows: every owner sends the rows of its mirrors to the ranks that hold them (and,
  // with in-rows too, their in-rows: count_inNbrs or nodes_to of a neighbour); with
  // Needs::ghost_row_slices only what a search from below can find (see Needs).
  std::vector<Edge> ghost_edges, ghost_in;
  bool slices = needs.ghost_row_slices && !needs.reverse;
  if (needs.ghost_rows) {
    std::vector<Edge> out;
    std::vector<int> to;
    for (size_t r = 0; r < R; ++r)
      for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) {
        int mirror = mirror_ids[static_cast<size_t>(k)];
        if (kept != nullptr && kept->held_by(r, mirror)) continue;  // rank r has it up to date
        size_t v = static_cast<size_t>(mirror - d.first);
        long long begin = own_row[v];
        if (slices) {
          if (mirror >= d.splits[r]) continue;  // never below rank r's vertices
          Edge probe{mirror, d.splits[r], LLONG_MIN, 0.0};
          begin = std::lower_bound(owned.begin() + begin, owned.begin() + own_row[v + 1], probe, detail::by_source) - owned.begin();
        }
        for (long long e = begin; e < own_row[v + 1]; ++e) {
          out.push_back(owned[static_cast<size_t>(e)]);
          to.push_back(static_cast<int>(r));
        }
      }
    // (each row keeps its order: exchange keeps the order of the items for one rank)
    std::vector<detail::Addressed> tagged(out.size());
    for (size_t k = 0; k < out.size(); ++k) tagged[k] = {to[k], out[k]};
    release(out);
    release(to);
    std::vector<detail::Addressed> got = detail::exchange(d, tagged, [](const detail::Addressed& x) { return x.to; });
    d.stats.ghost_row_edges += static_cast<long long>(got.size());
    if (kept != nullptr) {  // each ghost's row: kept if held before, else the next one got
      size_t at = 0;
      for (int ghost : d.ghosts) {
        auto k = static_cast<size_t>(std::lower_bound(kept->ghosts.begin(), kept->ghosts.end(), ghost) - kept->ghosts.begin());
        if (k < kept->ghosts.size() && kept->ghosts[k] == ghost)
          ghost_edges.insert(ghost_edges.end(), kept->rows.begin() + static_cast<std::ptrdiff_t>(kept->starts[k]),
                             kept->rows.begin() + static_cast<std::ptrdiff_t>(kept->starts[k + 1]));
        else
          for (; at < got.size() && got[at].edge.src == ghost; ++at) ghost_edges.push_back(got[at].edge);
      }
      if (at != got.size()) throw std::logic_error("lay_out: a ghost row came for no new ghost");
    } else {
      ghost_edges.reserve(got.size());
      for (const auto& x : got)  // ascending ghosts, each row in order
        if (!slices || d.owns(x.edge.dst) || std::binary_search(d.ghosts.begin(), d.ghosts.end(), x.edge.dst))
          ghost_edges.push_back(x.edge);
    }
    if (needs.reverse) {
      std::vector<detail::Addressed> in_out;
      for (size_t r = 0; r < R; ++r)
        for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) {
          Edge probe{0, mirror_ids[static_cast<size_t>(k)], LLONG_MIN, 0.0};
          for (auto it = std::lower_bound(incoming.begin(), incoming.end(), probe, detail::by_target);
               it != incoming.end() && it->dst == probe.dst; ++it)
            in_out.push_back({static_cast<int>(r), *it});
        }
      std::vector<detail::Addressed> in_got = detail::exchange(d, in_out, [](const detail::Addressed& x) { return x.to; });
      for (const auto& x : in_got) ghost_in.push_back(x.edge);
    }
  }

  // The local index space: owned vertices and every other vertex the rows reach, in order.
  d.remote = d.ghosts;
  for (const Edge& e : ghost_edges) d.remote.push_back(e.dst);
  for (const Edge& e : ghost_in) d.remote.push_back(e.src);
  if (!ghost_edges.empty() || !ghost_in.empty()) {
    d.remote.erase(std::remove_if(d.remote.begin(), d.remote.end(), [&](int v) { return d.owns(v); }), d.remote.end());
    detail::sort_unique(d.remote);
  }
  d.own_begin = static_cast<int>(std::lower_bound(d.remote.begin(), d.remote.end(), d.first) - d.remote.begin());
  d.own_end = d.own_begin + nown;
  d.local_nodes = static_cast<int>(d.remote.size()) + nown;
  d.global_id.resize(static_cast<size_t>(d.local_nodes));
  for (int k = 0; k < d.own_begin; ++k) d.global_id[static_cast<size_t>(k)] = d.remote[static_cast<size_t>(k)];
  for (int v = 0; v < nown; ++v) d.global_id[static_cast<size_t>(d.own_begin + v)] = d.first + v;
  for (size_t k = static_cast<size_t>(d.own_begin); k < d.remote.size(); ++k)
    d.global_id[k + static_cast<size_t>(nown)] = d.remote[k];
  d.ghost_local.resize(d.ghosts.size());
  for (size_t k = 0; k < d.ghosts.size(); ++k) d.ghost_local[k] = d.local_of(d.ghosts[k]);
  d.mirrors.resize(mirror_ids.size());
  for (size_t k = 0; k < mirror_ids.size(); ++k) d.mirrors[k] = d.own_begin + (mirror_ids[k] - d.first);
  refresh_peers(d, reuse);

  // Degrees of owned vertices and ghosts: owners send their mirrors' (out, in) pairs.
  d.out_degree.assign(static_cast<size_t>(d.local_nodes), 0);
  d.in_degree.assign(static_cast<size_t>(d.local_nodes), 0);
  for (int v = 0; v < nown; ++v) {
    d.out_degree[static_cast<size_t>(d.own_begin + v)] = static_cast<int>(own_row[static_cast<size_t>(v) + 1] - own_row[static_cast<size_t>(v)]);
    d.in_degree[static_cast<size_t>(d.own_begin + v)] = own_in[static_cast<size_t>(v)];
  }
  release(own_in);
  {
    struct Degrees { int to, out, in; };
    std::vector<Degrees> out(d.mirrors.size());
    for (size_t r = 0; r < R; ++r)
      for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) {
        int v = d.mirrors[static_cast<size_t>(k)];
        out[static_cast<size_t>(k)] = {static_cast<int>(r), d.out_degree[static_cast<size_t>(v)], d.in_degree[static_cast<size_t>(v)]};
      }
    std::vector<Degrees> in = detail::exchange(d, out, [](const Degrees& x) { return x.to; });
    for (size_t k = 0; k < in.size(); ++k) {  // in ghost order: by owner, then as we listed them
      size_t at = static_cast<size_t>(d.ghost_local[k]);
      d.out_degree[at] = in[k].out;
      d.in_degree[at] = in[k].in;
    }
  }

  // The local CSR: rows in local-id order (owned rows, and ghost rows when asked for).
  starc::Graph& g = d.graph;
  g.offsets.assign(static_cast<size_t>(d.local_nodes) + 1, 0);
  long long rows = static_cast<long long>(owned.size()) + static_cast<long long>(ghost_edges.size());
  detail::check_local_edges(d, path, rows + static_cast<long long>(incoming.size() + ghost_in.size()));
  for (int v = 0; v < nown; ++v)
    g.offsets[static_cast<size_t>(d.own_begin + v) + 1] = static_cast<int>(own_row[static_cast<size_t>(v) + 1] - own_row[static_cast<size_t>(v)]);
  for (const Edge& e : ghost_edges) ++g.offsets[static_cast<size_t>(d.local_of(e.src)) + 1];
  for (size_t v = 0; v < static_cast<size_t>(d.local_nodes); ++v) g.offsets[v + 1] += g.offsets[v];
  d.owned_begin = g.offsets[static_cast<size_t>(d.own_begin)];
  size_t slots = static_cast<size_t>(rows);
  // Each held row's first global edge id: an in-edge's slot is its place in its source's row.
  std::vector<long long> row_key(static_cast<size_t>(d.local_nodes), -1);
  std::vector<int> slot_src(slots), slot_dst(slots);
  std::vector<double> slot_weight(g.has_weights ? slots : 0);
  auto place = [&](size_t s, const Edge& e) {
    slot_src[s] = d.local_of(e.src);
    slot_dst[s] = d.local_of(e.dst);
    if (g.has_weights) slot_weight[s] = e.weight;
    long long& first_key = row_key[static_cast<size_t>(slot_src[s])];
    if (first_key < 0 || e.key < first_key) first_key = e.key;
  };
  for (size_t i = 0; i < owned.size(); ++i) place(static_cast<size_t>(d.owned_begin) + i, owned[i]);
  release(owned);
  {
    size_t at = 0;  // ghost rows arrive in ascending ghosts, each row in order
    std::vector<int> next(g.offsets.begin(), g.offsets.end() - 1);
    for (; at < ghost_edges.size(); ++at) {
      const Edge& e = ghost_edges[at];
      place(static_cast<size_t>(next[static_cast<size_t>(d.local_of(e.src))]++), e);
    }
  }
  release(ghost_edges);

  // The reverse CSR of owned vertices (and ghosts, with ghost rows); each in-edge points at
  // the slot that holds it: its place in its source's row, or a copy slot after the rows.
  if (!ghost_in.empty()) {  // (incoming is sorted already)
    incoming.insert(incoming.end(), ghost_in.begin(), ghost_in.end());
    std::sort(incoming.begin(), incoming.end(), detail::by_target);
  }
  release(ghost_in);
  g.rev_offsets.assign(static_cast<size_t>(d.local_nodes) + 1, 0);
  for (const Edge& e : incoming) ++g.rev_offsets[static_cast<size_t>(d.local_of(e.dst)) + 1];
  for (size_t v = 0; v < static_cast<size_t>(d.local_nodes); ++v) g.rev_offsets[v + 1] += g.rev_offsets[v];
  g.rev_sources.reserve(incoming.size());
  g.rev_edge_ids.reserve(incoming.size());
  for (const Edge& e : incoming) {
    int u = d.local_of(e.src);
    int begin = g.offsets[static_cast<size_t>(u)], end = g.offsets[static_cast<size_t>(u) + 1];
    int slot;
    if (end > begin) {  // the row is held: the edge's place in it
      slot = begin + static_cast<int>(e.key - row_key[static_cast<size_t>(u)]);
    } else {
      slot = static_cast<int>(slot_src.size());
      slot_src.push_back(u);
      slot_dst.push_back(d.local_of(e.dst));
      if (g.has_weights) slot_weight.push_back(e.weight);
    }
    g.rev_sources.push_back(u);
    g.rev_edge_ids.push_back(slot);
  }
  release(incoming);
  release(row_key);
  g.num_edges = static_cast<int>(slot_src.size());
  // Edge arrays have num_edges entries on every rank (the plan sizes them all alike); the
  // reverse rows may hold fewer in-edges than there are slots.
  if (needs.reverse) {
    g.rev_sources.resize(slot_src.size());
    g.rev_edge_ids.resize(slot_src.size());
  }
  g.targets = std::move(slot_dst);
  if (needs.sources) g.sources = std::move(slot_src);
  g.weights = std::move(slot_weight);
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_LAYOUT_HPP
