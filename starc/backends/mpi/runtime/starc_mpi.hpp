// starc MPI runtime: the graph's 1-D edge-balanced distribution in a local index space.
//
// Header-only C++17, included by generated MPI programs after starc_runtime.hpp; built with
// mpicxx. distribute() reads the graph (each rank its own byte range, starc_mpi_read.hpp) and
// gives every rank the CSR rows of a contiguous vertex range [first, last), balanced by
// edges. Nothing on a rank is n long (except what Needs::global_degrees asks for): the rank
// numbers the vertices it knows 0 .. local_nodes - 1 in the order of their global ids,
//
//   [ vertices below `first` | owned: first .. last - 1 | vertices above `last` ]
//     0 .. own_begin - 1       own_begin .. own_end - 1   own_end .. local_nodes - 1
//
// so comparing two local ids compares the global ids (a filter `u < v` and a binary search
// in a sorted row need no translation), and every per-vertex array is local_nodes long.
// Ghosts are the other ranks' vertices the rank's rows (and in-rows) reference: their values
// are exchanged with their owners. Mirrors are the rank's own vertices other ranks hold as
// ghosts, listed per rank in the order of that rank's ghosts, so a message between two ranks
// can name a vertex by its position in their shared list. With Needs::ghost_rows the rows of
// ghosts are held too, and the vertices those rows reach ("far": neither own nor ghosts) get
// local ids so the rows stay sorted; far vertices are never exchanged.
//
// Local slot layout (Distribution::graph): rows in local-id order (so graph.offsets serves
// every row; rows of vertices without one are empty): the owned rows occupy
// [owned_begin, owned_begin + owned_edges), in read_graph's order (slot owned_begin + i is
// global edge edge_base + i); ghost rows, when asked for, sit at their places; after all rows,
// with Needs::reverse, a copy slot for every in-edge whose source's row this rank does not
// hold. Targets, sources and reverse sources are local ids. graph.num_nodes is the whole
// graph's n (what g.num_nodes() and the id checks use); graph.num_edges the rank's slots.
#ifndef STARC_MPI_HPP
#define STARC_MPI_HPP

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "starc_mpi_read.hpp"  // first: it includes <mpi.h> without the C++ bindings
#include "starc_runtime.hpp"

#if defined(__GLIBC__)
#include <malloc.h>  // mallopt: see map_large_blocks
#endif

namespace starc_mpi {

/// What the program reads beyond the owned rows and the degrees of its local vertices.
struct Needs {
  bool reverse = false;         // in-edges of owned vertices (rev_offsets ...)
  bool ghost_rows = false;      // the forward rows of ghosts
  bool global_degrees = false;  // every vertex's degrees (n each): a degree of any vertex
  bool sources = true;          // graph.sources (an edge's source, as a local id)
  bool in_degrees = true;       // in_degree of owned vertices and ghosts (count_inNbrs)
  // With ghost_rows, the rows are only searched from a neighbour below the work item's vertex
  // for one above it (the ordered triangle count): only ghosts below the rank's first vertex
  // get rows, each only its entries at or above that vertex that the rank knows (no far ones).
  bool ghost_row_slices = false;
  // A batch's new ghosts take the next local ids (Distribution::remote_local) instead of
  // their places in global-id order, which renumbered every local id the slots hold
  // (distribution.py's appended_ghosts: no kernel reads a row as sorted by global id).
  bool appended_ghosts = false;
};

/// Counters the superstep header fills; report_stats prints them.
struct Stats {
  // (messages and bytes: of the arrays' sections; the scalars a round carries stand for the
  // MPI_Allreduce they replace, whose bytes are not counted either)
  long long supersteps = 0, exchanges = 0, messages = 0, bytes = 0, entries = 0;
  long long max_pair_messages_per_superstep = 0;  // most messages one superstep sent to one rank
  long long max_entries_per_vertex = 0;           // most entries for one vertex in one superstep
  long long max_superstep_bytes = 0;              // most bytes one superstep sent
  // Own edges (out-rows, and in-rows when read) whose other endpoint another rank owns: what a
  // per-element scheme (one message per remote access) sends in a superstep that touches every
  // edge once, to compare with `entries`.
  long long cut_edges = 0;
  // Values kept before the kernels for change detection and restores (summed over the
  // supersteps): those of the ghosts an update may write and of the distinct mirrors a refresh
  // compares, not whole arrays (a replica's are whole).
  long long watched = 0;
  // The supersteps' scalars combined, one per type and operator: by an MPI_Allreduce, or
  // carried by the superstep's last exchange (Superstep::finish)
  long long reductions = 0;
  // Rounds of MPI calls the supersteps made, each a point where a rank waits for others: one
  // per exchange (its messages carry their sizes, where byte counts and then the data took
  // two) and one per MPI_Allreduce (none for the scalars a round that reaches every rank
  // carries: Superstep::finish).
  long long rounds = 0;
  // Where the supersteps' time went (steady clock, summed; --stats prints microseconds): the
  // kernels (a superstep's start to its finish, less what registering its arrays took), the
  // runtime's own work (registering, finding and encoding changes, applying what came), and
  // its MPI calls (the transfers and the waiting for the other ranks). What a rank cannot
  // scale shows in the second; its imbalance and the network's latency in the third.
  long long kernel_ns = 0, runtime_ns = 0, mpi_ns = 0;
  // Each superstep's work: the process's CPU time from its start to its finish, less that of
  // its MPI calls (mpi_cpu_ns: busy waiting for other ranks), and of that its kernels' (from
  // its start to Superstep::finish, less registering its arrays). report_stats combines the ranks' into the balance line:
  // the sum over the supersteps of the slowest rank's work is what a run on one core a rank
  // cannot beat, whatever the network, on any machine.
  std::vector<long long> superstep_work_ns, superstep_kernel_ns;
  long long mpi_cpu_ns = 0;
  // The work of each collective phase the timed algorithm runs outside its supersteps (each
  // trial's renumbering by degree, order_by_degree), measured as a superstep's: the balance
  // line adds them to the critical path, as no kernel starts before they end.
  std::vector<long long> phase_work_ns;
  // Slot arrays the in-place graph updates had to allocate (a spare outgrown; see
  // Distribution::spare): a few for the first batches, then none while the slots stay within
  // the spares' headroom, however many batches follow.
  long long update_allocations = 0;
  // Ghost-row edges this rank's owners sent it (laying its part out: all at the start, after
  // a batch only the rows of new ghosts, the rank keeping the others up to date: KeptRows;
  // each renumbering by degree, its searched slices again).
  long long ghost_row_edges = 0;
  // Ghosts the batches' additions brought in place (insert_ghosts), and the local ids the
  // slot and in-row arrays held that their insertion renumbered (0 where they take the next
  // local ids, Needs::appended_ghosts: what a batch costs then does not grow with the slots).
  long long new_ghosts = 0, renumbered_ids = 0;
};

/// A run of consecutive local ids, `length` of them from `first` (the ghosts' runs).
struct IdRun {
  int first, length;
};

struct Distribution {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  detail::Neighbours everyone;  // every rank, itself included: the distribution's exchanges
  detail::Neighbours peers;     // the ranks this one shares ghosts with (either way): supersteps
  starc::Graph graph;           // local ids, local slots (see the top of this file)
  int first = 0, last = 0;      // owned global ids [first, last), possibly empty
  int own_begin = 0, own_end = 0;  // owned local ids
  int local_nodes = 0;          // every vertex the rank knows: owned, ghosts, far
  int owned_begin = 0;          // slot of the first owned edge (0 unless ghost rows precede)
  int owned_edges = 0;          // owned slots: [owned_begin, owned_begin + owned_edges)
  long long edge_base = 0;      // global CSR id of slot owned_begin (= global offsets[first])
  long long global_edges = 0;
  std::vector<int> splits;      // ranks + 1: rank r owns [splits[r], splits[r + 1])
  std::vector<int> global_id;   // local id -> global id (local_nodes)
  std::vector<int> remote;      // global ids of the non-owned local vertices, ascending
  // The local id of each of `remote`, once a batch appended ghosts (Needs::appended_ghosts);
  // empty while the local ids are in global-id order (local_of counts them).
  std::vector<int> remote_local;
  std::vector<int> ghosts;      // global ids of the ghosts, ascending (so grouped by owner)
  std::vector<int> ghost_local; // local id of each ghost
  std::vector<int> ghost_displs;   // ranks + 1: ghost_local[ghost_displs[r] .. ghost_displs[r + 1]) are r's
  // ghost_local as runs of consecutive local ids (index_ghost_runs): the ghosts lie in one or
  // two blocks around the owned vertices unless far vertices come between, so a superstep
  // copies and compares them a block at a time rather than an id at a time.
  std::vector<IdRun> ghost_runs;
  size_t ghost_runs_cover = 0;     // how many ghosts ghost_runs describes
  std::vector<int> mirrors;        // local ids of own vertices other ranks hold as ghosts, by rank
  std::vector<int> mirror_displs;  // ranks + 1
  // The distinct mirrors (local ids, ascending) and, for each entry of `mirrors`, its place
  // among them: a superstep keeps and compares a mirror's value once however many ranks hold
  // it (filled by the first superstep that refreshes, starc_mpi_superstep.hpp).
  std::vector<int> mirror_set, mirror_slot;
  // The entries of `mirrors` of each distinct mirror: mirror_uses[mirror_use_displs[s] ..
  // mirror_use_displs[s + 1]) for mirror_set[s], ascending.
  std::vector<int> mirror_uses, mirror_use_displs;
  // A refresh marks each rank's changed mirrors in a bitmap over its list (a bit a place: what
  // a refresh names a mirror by), the ranks' bitmaps one after the other, rank r's from byte
  // mirror_bit_displs[r] (ranks + 1); for each entry of mirror_uses, its bit there: one
  // number a use, looked up once, not per change (two, the rank and the place, were twice
  // the memory a superstep streams through).
  std::vector<size_t> mirror_bit_displs;
  std::vector<unsigned> mirror_use_bit;
  // Whole-graph out- and in-degrees of every local vertex but far ones (count_outNbrs and
  // count_inNbrs of an own vertex or a ghost read them instead of a row).
  std::vector<int> out_degree, in_degree;
  // Needs::global_degrees: every vertex's, indexed by global id.
  std::vector<int> global_out_degree, global_in_degree;
  // Spares of the slot arrays for the in-place updates (starc_mpi_update_rows.hpp): a batch
  // part writes the graph's new arrays into them and swaps, so the next part writes into the
  // old arrays' memory. Fresh arrays each part cost a third of it in page faults and zeroing
  // (perf, Kronecker 18, 2 ranks), more than the copying itself.
  struct Spare {
    std::vector<int> offsets, targets, sources, rev_offsets, rev_sources, rev_edge_ids, moved;
    std::vector<double> weights;
  } spare;
  bool stats_enabled = false;
  Stats stats;
  /// Where --stats counts the CPU time of MPI calls (Stats::superstep_work_ns), else null.
  long long* mpi_cpu() { return stats_enabled ? &stats.mpi_cpu_ns : nullptr; }
  Needs needs;                  // what distribute() was asked for
  bool mirrored = false;        // the reader added the reverse of every edge: symmetric
  // After order_by_degree: the distribution of the file's ids, restored by the next call.
  std::shared_ptr<Distribution> unordered;

  /// The rank owning vertex v (0 <= v < n).
  int owner(int v) const {
    return static_cast<int>(std::upper_bound(splits.begin(), splits.end(), v) - splits.begin()) - 1;
  }
  bool owns(int v) const { return v >= first && v < last; }
  /// Whether local vertex x is the rank's own.
  bool owns_local(int x) const { return x >= own_begin && x < own_end; }
  int owned() const { return own_end - own_begin; }
  /// The local id of global vertex v, or -1 where the rank knows no such vertex.
  int local_of(long long v) const {
    if (v >= first && v < last) return own_begin + static_cast<int>(v - first);
    auto it = std::lower_bound(remote.begin(), remote.end(), v);
    if (it == remote.end() || *it != v) return -1;
    return remote_local_id(static_cast<size_t>(it - remote.begin()));
  }
  /// The local id of remote[k]: remote_local's once a batch appended ghosts, else its place
  /// in global-id order (the ids below the owned range, then those above it).
  int remote_local_id(size_t k) const {
    if (!remote_local.empty()) return remote_local[k];
    int x = static_cast<int>(k);
    return x < own_begin ? x : x + owned();
  }
};

/// Fills d.mirror_set and d.mirror_slot (see Distribution) unless they are current.
inline void index_mirrors(Distribution& d) {
  if (d.mirror_slot.size() == d.mirrors.size() && d.mirror_bit_displs.size() == static_cast<size_t>(d.ranks) + 1) return;
  // Each rank's list ascends (lay_out and insert_ghosts keep it so): the distinct mirrors are
  // the lists merged, and each entry's place among them is found from the previous entry's
  // (a galloping search), O(mirrors log ranks) where a sort and a binary search per entry
  // made this the first refresh after every batch that brought ghosts (9 ms, K18, 2 ranks).
  const size_t R = static_cast<size_t>(d.ranks);
  auto run = [&](std::vector<int>& v, size_t r) { return v.begin() + d.mirror_displs[r]; };
  bool ascending = true;
  for (size_t r = 0; r < R && ascending; ++r) ascending = std::is_sorted(run(d.mirrors, r), run(d.mirrors, r + 1));
  d.mirror_set = d.mirrors;
  if (ascending) {
    for (size_t width = 1; width < R; width *= 2)
      for (size_t r = 0; r + width < R; r += 2 * width)
        std::inplace_merge(run(d.mirror_set, r), run(d.mirror_set, r + width), run(d.mirror_set, std::min(r + 2 * width, R)));
  } else {
    std::sort(d.mirror_set.begin(), d.mirror_set.end());
  }
  d.mirror_set.erase(std::unique(d.mirror_set.begin(), d.mirror_set.end()), d.mirror_set.end());
  d.mirror_slot.resize(d.mirrors.size());
  d.mirror_use_displs.assign(d.mirror_set.size() + 1, 0);
  const auto set_begin = d.mirror_set.begin();
  const size_t distinct = d.mirror_set.size();
  for (size_t r = 0; r < R; ++r) {
    size_t at = 0;  // where the previous entry of this list was
    for (int k = d.mirror_displs[r]; k < d.mirror_displs[r + 1]; ++k) {
      const int x = d.mirrors[static_cast<size_t>(k)];
      if (!ascending) at = 0;  // (mirror_set[0] <= x: the least mirror)
      // mirror_set[at] <= x: double the step while the entry there is below x, then search
      // the last step's span (x is in the set)
      size_t step = 1;
      while (at + step < distinct && d.mirror_set[at + step] < x) step *= 2;
      at = static_cast<size_t>(std::lower_bound(set_begin + static_cast<std::ptrdiff_t>(at + step / 2),
                                                set_begin + static_cast<std::ptrdiff_t>(std::min(at + step, distinct)), x) - set_begin);
      d.mirror_slot[static_cast<size_t>(k)] = static_cast<int>(at);
      ++d.mirror_use_displs[at + 1];
    }
  }
  for (size_t s = 0; s < d.mirror_set.size(); ++s) d.mirror_use_displs[s + 1] += d.mirror_use_displs[s];
  d.mirror_uses.resize(d.mirrors.size());
  std::vector<int> next(d.mirror_use_displs.begin(), d.mirror_use_displs.end() - 1);
  for (size_t k = 0; k < d.mirrors.size(); ++k)
    d.mirror_uses[static_cast<size_t>(next[static_cast<size_t>(d.mirror_slot[k])]++)] = static_cast<int>(k);
  // (bits: at most the mirrors and 7 a rank, below 2^32)
  d.mirror_bit_displs.assign(R + 1, 0);
  std::vector<unsigned> bit_of(d.mirrors.size());
  for (size_t r = 0; r < R; ++r) {
    const int from = d.mirror_displs[r], to = d.mirror_displs[r + 1];
    d.mirror_bit_displs[r + 1] = d.mirror_bit_displs[r] + static_cast<size_t>(to - from + 7) / 8;
    for (int k = from; k < to; ++k)
      bit_of[static_cast<size_t>(k)] = static_cast<unsigned>(8 * d.mirror_bit_displs[r] + static_cast<size_t>(k - from));
  }
  d.mirror_use_bit.resize(d.mirrors.size());
  for (size_t u = 0; u < d.mirror_uses.size(); ++u) d.mirror_use_bit[u] = bit_of[static_cast<size_t>(d.mirror_uses[u])];
}

/// Fills d.ghost_runs (see Distribution) unless it is current.
inline void index_ghost_runs(Distribution& d) {
  if (d.ghost_runs_cover == d.ghost_local.size() && (d.ghost_local.empty() || !d.ghost_runs.empty())) return;
  d.ghost_runs.clear();
  for (size_t k = 0; k < d.ghost_local.size(); ++k) {
    int v = d.ghost_local[k];
    if (!d.ghost_runs.empty() && d.ghost_runs.back().first + d.ghost_runs.back().length == v) ++d.ghost_runs.back().length;
    else d.ghost_runs.push_back({v, 1});
  }
  d.ghost_runs_cover = d.ghost_local.size();
}

/// How many of the rank's own vertices other ranks hold as ghosts.
inline size_t distinct_mirrors(const Distribution& d) {
  std::vector<int> set = d.mirrors;
  std::sort(set.begin(), set.end());
  return static_cast<size_t>(std::unique(set.begin(), set.end()) - set.begin());
}

}  // namespace starc_mpi

#include "starc_mpi_collectives.hpp"  // needs Distribution, above; used below

namespace starc_mpi {

namespace detail {

/// glibc serves a request below its mmap threshold from the heap and raises that threshold to
/// the size of each large block freed (up to 32 MiB), so distribute()'s transient edge vectors
/// came from the heap, whose freed middle stays resident: a rank's peak memory depended on the
/// order they were freed (ranks of one run differed by a quarter). While distribute() runs
/// (`during`), every block over 128 KiB is mapped on its own and returned when released;
/// afterwards the threshold is 32 MiB, where glibc's own would have grown to. Setting the
/// threshold also fixes glibc's trim threshold at 128 KiB, so afterwards the heap's free top
/// went back to the system at every free and each trial faulted it in again (tc: ~100 MB and
/// 0.1 s of system time a trial and rank, renumbering afresh): afterwards the heap keeps it.
/// That cannot raise the peak: trimming only returns the top, which later requests take
/// from at the same addresses either way.
inline void map_large_blocks(bool during) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, during ? 128 * 1024 : 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, during ? 128 * 1024 : INT_MAX);
#else
  (void)during;
#endif
}

/// An edge on its way to rank `to`.
struct Addressed {
  int to;
  Edge edge;
};

/// The whole ghost rows a rank held before a batch, with the batch applied to them as their
/// owners apply it (every rank reads the whole stream; starc_mpi_updates.hpp's kept_rows):
/// lay_out takes a ghost's row from here when the rank held it before, and only the rows of
/// new ghosts cross the network. Keys are not global ids: only for programs without in-rows.
struct KeptRows {
  std::vector<int> ghosts;        // the ghosts before the batch, ascending
  std::vector<size_t> starts;     // ghosts.size() + 1: ghosts[k]'s row is rows[starts[k], starts[k + 1])
  std::vector<Edge> rows;         // global ids, each row in the owner's order
  std::vector<int> mirrors;       // per rank (mirror_displs), the own vertices it held, ascending
  std::vector<int> mirror_displs;  // ranks + 1
  bool held(int ghost) const { return std::binary_search(ghosts.begin(), ghosts.end(), ghost); }
  bool held_by(size_t rank, int mirror) const {  // whether `rank` held `mirror` as a ghost before
    auto begin = mirrors.begin() + mirror_displs[rank], end = mirrors.begin() + mirror_displs[rank + 1];
    return std::binary_search(begin, end, mirror);
  }
};

// (function objects, not functions: a sort inlines their comparisons)
struct BySource {
  bool operator()(const Edge& a, const Edge& b) const {
    return a.src != b.src ? a.src < b.src : a.dst != b.dst ? a.dst < b.dst : a.key < b.key;
  }
};
inline constexpr BySource by_source{};

struct ByTarget {
  bool operator()(const Edge& a, const Edge& b) const { return a.dst != b.dst ? a.dst < b.dst : a.key < b.key; }
};
inline constexpr ByTarget by_target{};

/// A rank's edge slots are 32-bit local ids: refuses (on every rank alike) a part that would
/// need more, naming the way out. Collective.
inline void check_local_edges(const Distribution& d, const std::string& path, long long slots) {
  long long most = slots;
  MPI_Allreduce(&slots, &most, 1, MPI_LONG_LONG, MPI_MAX, d.comm);
  if (most > static_cast<long long>(INT_MAX) - 1)
    starc::detail::input_error(path, 0, "one rank's part would hold " + std::to_string(most) +
                                            " edges, more than its 32-bit local edge ids allow; run it on more ranks");
}

/// Sorted distinct values.
inline void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

/// Each rank's list `ids` (global ids it holds as ghosts, ascending, so grouped by owner)
/// told to the owners: what comes back, per rank, are the own vertices that rank holds, in
/// its order (collective). `displs` gets ranks + 1 offsets into the result.
inline std::vector<int> tell_owners(const Distribution& d, const std::vector<int>& ids, std::vector<int>& displs) {
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<long long> send(R, 0);
  for (int v : ids) ++send[static_cast<size_t>(d.owner(v))];
  std::vector<long long> from;
  {
    CollectiveCpu waiting;
    from = exchange_counts(d.everyone, send);
  }
  displs.assign(R + 1, 0);
  for (size_t r = 0; r < R; ++r) displs[r + 1] = displs[r] + static_cast<int>(from[r]);
  std::vector<int> out(ids);
  return exchange(d, out, [&](int v) { return d.owner(v); });
}

inline void lay_out(Distribution& d, std::vector<Edge> owned, const Neighbours* reuse,
                    const KeptRows* kept = nullptr);

}  // namespace detail

/// Reads `path` and distributes it over the ranks of `comm` (collective). Bad input raises on
/// every rank the InputError starc::read_graph gives for the same file.
STARC_ENTRY Distribution distribute(const std::string& path, bool undirected, Needs needs, bool stats,
                                    MPI_Comm comm = MPI_COMM_WORLD);
#if STARC_DEFINE_ENTRIES
STARC_ENTRY Distribution distribute(const std::string& path, bool undirected, Needs needs, bool stats,
                                    MPI_Comm comm) {
  using detail::Edge;
  using detail::release;
  Distribution d;
  d.comm = comm;
  d.stats_enabled = stats;
  d.needs = needs;
  detail::map_large_blocks(true);
  MPI_Comm_rank(comm, &d.rank);
  MPI_Comm_size(comm, &d.ranks);
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<int> all(R);
  for (int r = 0; r < d.ranks; ++r) all[static_cast<size_t>(r)] = r;
  d.everyone = detail::neighbourhood(comm, all, all);
  // Edge counts are 64-bit here: the global graph may exceed 32-bit edge ids, each rank's
  // part may not (below). The memory check counts what this node's ranks hold.
  starc::detail::edge_limit() = LLONG_MAX / 4;  // the mirrors below at most quadruple it
  MPI_Comm node;
  int node_ranks = 1;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  starc::detail::memory_share() = static_cast<double>(node_ranks) / d.ranks;
  detail::LocalEdges local = detail::read_local(path, undirected, comm);
  if (local.undirected_applied) undirected = false;  // a .sg file written symmetrised
  d.mirrored = undirected;
  long long m_file = local.originals;
  long long total = m_file;  // after the symmetric mirrors, as read_graph checks it
  if (local.symmetric) {
    long long loops = 0, all_loops = 0;
    for (size_t k = 0; k < local.src.size(); ++k) loops += local.src[k] == local.dst[k];
    MPI_Allreduce(&loops, &all_loops, 1, MPI_LONG_LONG, MPI_SUM, comm);
    total = 2 * m_file - all_loops;
  }
  if (undirected) starc::detail::check_graph_size(path, 0, local.num_nodes, 2 * total);
  // The edges in read_graph's order of appending: the file's, the symmetric mirrors, then the
  // undirected mirrors of both. A key group * m_file + file index sorts ties the same way.
  std::vector<Edge> edges;
  edges.reserve(local.src.size() * (local.symmetric ? 2 : 1) * (undirected ? 2 : 1));
  for (size_t k = 0; k < local.src.size(); ++k) {
    int u = local.src[k], v = local.dst[k];
    double w = local.has_weights ? local.weights[k] : 0.0;
    long long index = local.first_original + static_cast<long long>(k);
    edges.push_back({u, v, index, w});
    if (u == v) continue;  // loops are never mirrored
    if (local.symmetric) edges.push_back({v, u, m_file + index, w});
    if (undirected) edges.push_back({v, u, 2 * m_file + index, w});
    if (undirected && local.symmetric) edges.push_back({u, v, 3 * m_file + index, w});
  }
  release(local.src);
  release(local.dst);
  release(local.weights);
  long long mine = static_cast<long long>(edges.size());
  MPI_Allreduce(&mine, &d.global_edges, 1, MPI_LONG_LONG, MPI_SUM, comm);
  int n = static_cast<int>(local.num_nodes);
  d.graph.num_nodes = n;

  // The partition (no n-long array: see balanced_splits).
  {
    std::vector<int> sources(edges.size());
    for (size_t k = 0; k < edges.size(); ++k) sources[k] = edges[k].src;
    d.splits = detail::balanced_splits(d, n, std::move(sources));
  }
  d.first = d.splits[static_cast<size_t>(d.rank)];
  d.last = d.splits[static_cast<size_t>(d.rank) + 1];
  d.graph.path = path;
  d.graph.has_weights = local.has_weights;
  d.graph.weights_integral = local.weights_integral;

  // Edges to the owners of their sources; the owner sorts them into read_graph's order.
  std::vector<Edge> owned = detail::exchange(d, edges, [&](const Edge& e) { return d.owner(e.src); });
  std::sort(owned.begin(), owned.end(), detail::by_source);
  detail::lay_out(d, std::move(owned), nullptr);
  detail::map_large_blocks(false);
  return d;
}
#endif

}  // namespace starc_mpi

#include "starc_mpi_layout.hpp"
#include "starc_mpi_program.hpp"
#include "starc_mpi_degree_order.hpp"
#include "starc_mpi_updates.hpp"

#endif  // STARC_MPI_HPP
