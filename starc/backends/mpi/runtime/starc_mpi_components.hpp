// starc MPI runtime: minimum-label propagation over both directions of every edge, as a
// union-find of each rank's part glued together by the ghosts.
//
// The plan's LeastLabels (starc/analysis/union_find.py) stands where a fixedPoint is
// exactly that propagation (dsl/cc.sp): its fixed point is each vertex's label the least any
// vertex of its weakly connected component started with. Propagated round by round across
// ranks, a label crosses a rank boundary a superstep late and every round scans the edges again
// (R-MAT 20 at 16 ranks: 97 M edge visits for 32 M edges, 12% of them winning at ghost
// copies). Here instead:
//
//   1. Each rank joins, in a forest over its local ids (its own vertices and its ghosts), the
//      two ends of its edges: a union-find (hooks by compare-and-swap, finds halving their
//      paths), sampled first as Afforest does (Sutton, Ben-Nun and Barak 2018): each own
//      vertex links its first out-neighbour; then a vertex in the tree of the graph's hub
//      skips its edges. The hub is the one vertex of most edges in the whole graph (one
//      MPI_Allreduce), so its tree is the same component on every rank that knows it: an edge
//      two ranks both skip joins two vertices of the hub's component. Where the hub is not
//      local, a rank's biggest sampled tree skips only the edges between its own vertices
//      (those the other end links here): all the edges of a vertex no other rank holds as
//      a ghost (a grid's rows inside the rank's).
//   2. The ranks agree on the least label of the hub's trees in one MPI_Allreduce (they are
//      one component): each rank's tree of the hub takes it, its ghosts too, unsent.
//   3. Supersteps then carry the other least labels: every tree takes the least label of its
//      members (own vertices exact, ghosts as fresh as their owners' last refresh), every
//      member takes its tree's; a ghost lowered goes to its owner (Min), an owner's changed
//      value to its ghosts (refresh). A superstep is a pass over the local ids, not the
//      edges, and they number the hops of the least labels between ranks' trees (R-MAT 20
//      at 16 ranks: 3, the last one finding no change).
//
// Ends with every own vertex's label exact and every ghost copy equal to its owner's. The
// ghost copies must be exact when it starts, or `fresh` false: the forest's superstep then
// refreshes them.
#ifndef STARC_MPI_COMPONENTS_HPP
#define STARC_MPI_COMPONENTS_HPP

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include <omp.h>

#include "starc_mpi.hpp"
#include "starc_mpi_degree_decision.hpp"  // own_degree
#include "starc_mpi_superstep.hpp"

namespace starc_mpi {
namespace detail {

/// A union-find forest over local ids; a root is its tree's least id. Safe under OpenMP
/// threads: a hook is a compare-and-swap of a root's parent, a find's halving a relaxed store
/// (another thread's find only ever sees an ancestor).
class LocalForest {
 public:
  explicit LocalForest(int n) : parent_(static_cast<size_t>(std::max(n, 1))) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }

  int find(int x) {
    int* p = parent_.data();
    for (;;) {
      int up = load(p + x);
      int grand = load(p + up);
      if (up == grand) return up;
      __atomic_store_n(p + x, grand, __ATOMIC_RELAXED);   // halving
      x = grand;
    }
  }

  /// Joins the trees of a and b: the greater root under the lesser.
  void link(int a, int b) {
    int* p = parent_.data();
    int ra = find(a), rb = find(b);
    while (ra != rb) {
      int high = std::max(ra, rb), low = std::min(ra, rb);
      int expected = high;
      if (__atomic_compare_exchange_n(p + high, &expected, low, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
      ra = find(high);   // another thread hooked it first
      rb = find(low);
    }
  }

  /// Every id's root, the paths compressed.
  std::vector<int> roots(int n) {
    std::vector<int> out(static_cast<size_t>(n));
#pragma omp parallel for schedule(static)
    for (int x = 0; x < n; ++x) out[static_cast<size_t>(x)] = find(x);
    return out;
  }

 private:
  static int load(const int* at) { return __atomic_load_n(at, __ATOMIC_RELAXED); }
  std::vector<int> parent_;
};

/// The global id of the vertex with most edges (out + in, ties to the least id) over the
/// whole graph: one MPI_Allreduce.
inline int graph_hub(Distribution& d) {
  const starc::Graph& g = d.graph;
  struct {
    long value;
    int index;
  } mine{-1, 0}, best{-1, 0};
  for (int v = d.own_begin; v < d.own_end; ++v) {
    // (the in-rows are held: the least labels need them)
    long edges = static_cast<long>(own_degree(d, v)) +
                 (g.rev_offsets[static_cast<size_t>(v) + 1] - g.rev_offsets[static_cast<size_t>(v)]);
    if (edges > mine.value) mine = {edges, d.global_id[static_cast<size_t>(v)]};
  }
  Spent spent{d.stats.mpi_ns, d.mpi_cpu()};
  MPI_Allreduce(&mine, &best, 1, MPI_LONG_INT, MPI_MAXLOC, d.comm);
  return best.value < 0 ? -1 : best.index;
}

/// The root of the own vertex of most out-edges among up to 128 evenly spaced ones (-1 with
/// no own vertex).
inline int sampled_big_tree(Distribution& d, LocalForest& forest) {
  const int owned = d.owned();
  if (owned == 0) return -1;
  const int samples = std::min(owned, 128), step = owned / samples;
  int best = d.own_begin, most = -1;
  for (int k = 0; k < samples; ++k) {
    int v = d.own_begin + k * step;
    int edges = own_degree(d, v);
    if (edges > most) most = edges, best = v;
  }
  return forest.find(best);
}

/// Step 1: the forest of the rank's edges (see the top of the file): each local id's root;
/// `hub_local` the hub's local id, -1 where the rank does not know it.
inline std::vector<int> local_trees(Distribution& d, int& hub_local) {
  const starc::Graph& g = d.graph;
  const int* offsets = g.offsets.data();
  const int* targets = g.targets.data();
  const int* rev_offsets = g.rev_offsets.data();
  const int* rev_sources = g.rev_sources.data();
  const int lo = d.own_begin, hi = d.own_end;
  LocalForest forest(d.local_nodes);
#pragma omp parallel for schedule(dynamic, 1024)
  for (int v = lo; v < hi; ++v)
    if (offsets[v] < offsets[v + 1]) forest.link(v, targets[offsets[v]]);
  const int hub = graph_hub(d);
  hub_local = hub < 0 ? -1 : d.local_of(hub);
  // The hub's tree may skip every edge; a tree of the rank's own only those between own
  // vertices, so every edge of its vertices that no other rank holds as a ghost (those with
  // a ghost for a neighbour are: the owner of that ghost holds the edge's other direction).
  const bool skips_ghosts = hub_local >= 0;
  const int big = skips_ghosts ? hub_local : sampled_big_tree(d, forest);
  std::vector<unsigned char> held;   // own vertices other ranks hold as ghosts, by v - lo
  if (!skips_ghosts) {
    held.assign(static_cast<size_t>(hi - lo), 0);
    for (int v : d.mirrors) held[static_cast<size_t>(v - lo)] = 1;
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (int v = lo; v < hi; ++v) {
    // (the big tree's root found again: a tree of a less id may have joined it since)
    const bool in_big = big >= 0 && forest.find(v) == forest.find(big);
    if (in_big && (skips_ghosts || !held[static_cast<size_t>(v - lo)])) continue;
    for (int e = offsets[v]; e < offsets[v + 1]; ++e)
      if (!in_big || targets[e] < lo || targets[e] >= hi) forest.link(v, targets[e]);
    for (int e = rev_offsets[v]; e < rev_offsets[v + 1]; ++e)
      if (!in_big || rev_sources[e] < lo || rev_sources[e] >= hi) forest.link(v, rev_sources[e]);
  }
  return forest.roots(d.local_nodes);
}

/// A tree's least label lowered to `label` where that is less: by compare-and-swap where
/// OpenMP threads share the trees (`atomic`), else a plain store (a CAS per tree of a
/// forest of many singletons costs a tenth of the pass with one thread).
template <class T>
inline void lower_to(T* least, T label, bool atomic) {
  if (!atomic) {
    if (label < *least) *least = label;
    return;
  }
  T seen = __atomic_load_n(least, __ATOMIC_RELAXED);
  while (label < seen && !__atomic_compare_exchange_n(least, &seen, label, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

/// The "or" of body(k) over k in [0, count), on the rank's OpenMP threads where it has more
/// than one (`threads`), else a plain loop the compiler sees whole.
template <class Body>
inline int each_index(size_t count, bool threads, Body body) {
  int any = 0;
  const long long c = static_cast<long long>(count);
  if (threads) {
#pragma omp parallel for schedule(static) reduction(| : any)
    for (long long k = 0; k < c; ++k) any |= body(static_cast<size_t>(k));
  } else {
    for (long long k = 0; k < c; ++k) any |= body(static_cast<size_t>(k));
  }
  return any;
}

/// The local ids whose tree (`root`: each id's) holds another, and `hub` (its tree takes the
/// least label all ranks' trees of it hold, alone or not), ascending.
inline std::vector<int> in_trees_of_more(const std::vector<int>& root, int hub) {
  const size_t n = root.size();
  std::vector<unsigned char> joined(n, 0);
  for (size_t x = 0; x < n; ++x)
    if (root[x] != static_cast<int>(x)) joined[x] = joined[static_cast<size_t>(root[x])] = 1;
  if (hub >= 0) joined[static_cast<size_t>(hub)] = 1;
  std::vector<int> members;
  for (size_t x = 0; x < n; ++x)
    if (joined[x]) members.push_back(static_cast<int>(x));
  return members;
}

}  // namespace detail

/// Collective: `labels` (local_nodes long, exact at the own vertices, and at the ghosts where
/// `fresh`) becomes, at every own vertex and every ghost, the least label of the vertex's
/// weakly connected component.
template <class T>
void least_component_labels(Distribution& d, T* labels, bool fresh) {
  const int n = d.local_nodes;
  const bool threads = omp_get_max_threads() > 1;
  std::vector<int> root;
  int hub = -1;
  if (!fresh) {
    // (the forest is this superstep's work; the ghosts' copies come fresh with it)
    Superstep step(d);
    step.refresh_every(labels);
    root = detail::local_trees(d, hub);
    step.finish();
  }
  std::optional<detail::Phase> phase;   // the forest (where fresh), the trees' least labels
  phase.emplace(d);
  if (fresh) root = detail::local_trees(d, hub);
  std::vector<T> least(static_cast<size_t>(std::max(n, 1)), std::numeric_limits<T>::max());
  // The passes below visit the ids `id(k)`, k < count: every local id, or, where most are
  // alone in their trees, only those in a tree of more than one and the hub. A singleton's
  // label is its own (an own vertex without edges, a ghost no edge here reached, whose owner
  // keeps it), and R-MAT 20 at 16 ranks has two thirds of a rank's local ids so; a grid has
  // none, where the list's indirection cost a tenth of the passes.
  auto agree = [&](size_t count, auto id) {
    detail::each_index(count, threads, [&](size_t k) {
      const int x = id(k);
      detail::lower_to(&least[static_cast<size_t>(root[static_cast<size_t>(x)])], labels[x], threads);
      return 0;
    });
    // Every rank's tree of the hub is one component: the ranks agree on its least label at
    // once, where the exchanges would carry it a rank a superstep. Its ghosts take it before
    // the next superstep watches them: nothing of it is sent. An owner learns it all the
    // same, from the edge that put the ghost in the tree: the owner links that edge too (its
    // other end a ghost there, refreshed with the label) unless its own vertex lies in its
    // own tree of the hub.
    const int hub_root = hub < 0 ? -1 : root[static_cast<size_t>(hub)];
    T mine = hub < 0 ? std::numeric_limits<T>::max() : least[static_cast<size_t>(hub_root)], all = mine;
    {
      detail::Spent spent{d.stats.mpi_ns, d.mpi_cpu()};
      MPI_Allreduce(&mine, &all, 1, datatype<T>(), MPI_MIN, d.comm);
      ++d.stats.reductions;
    }
    if (hub >= 0) {
      least[static_cast<size_t>(hub_root)] = all;
      for (size_t k = 0; k < count; ++k) {
        const int x = id(k);
        if ((x < d.own_begin || x >= d.own_end) && root[static_cast<size_t>(x)] == hub_root && all < labels[x])
          labels[x] = all;
      }
    }
    phase.reset();
    // Then a superstep a hop: trees lowered by what the exchange brought (labels other than
    // the kernel left them: an owner's combine, a ghost's refresh) lower their members. The
    // trees' least labels are kept from one superstep to the next: a label only ever falls to
    // another of its component's.
    std::vector<T> left(count);
    for (size_t k = 0; k < count; ++k) left[k] = labels[id(k)];
    int changed = 0;
    for (bool first = true;; first = false) {
      Superstep step(d);
      step.update(labels, Op::Min, Scope::Neighbour);
      step.refresh(labels, Scope::Neighbour);
      step.scalar(&changed, Combine::Flag);
      int lowered = first ? 1 : 0, any = 0;
      if (!first) {
        lowered = detail::each_index(count, threads, [&](size_t k) {
          const int x = id(k);
          if (labels[x] == left[k]) return 0;
          const int r = root[static_cast<size_t>(x)];
          if (!(labels[x] < least[static_cast<size_t>(r)])) return 0;
          detail::lower_to(&least[static_cast<size_t>(r)], labels[x], threads);
          return 1;
        });
      }
      if (lowered) {
        any = detail::each_index(count, threads, [&](size_t k) {
          const int x = id(k);
          T tree = least[static_cast<size_t>(root[static_cast<size_t>(x)])];
          if (!(tree < labels[x])) return 0;
          labels[x] = tree;
          return 1;
        });
      }
      changed = any;
      for (size_t k = 0; k < count; ++k) left[k] = labels[id(k)];
      step.finish();
      if (changed == 0) break;
    }
  };
  // (most ids alone where fewer than half have a root other than themselves)
  size_t below = 0;
  for (int x = 0; x < n; ++x) below += root[static_cast<size_t>(x)] != x;
  if (2 * below < static_cast<size_t>(n)) {
    const std::vector<int> members = detail::in_trees_of_more(root, hub);
    agree(members.size(), [&](size_t k) { return members[k]; });
  } else {
    agree(static_cast<size_t>(n), [](size_t k) { return static_cast<int>(k); });
  }
}

}  // namespace starc_mpi

#endif  // STARC_MPI_COMPONENTS_HPP
