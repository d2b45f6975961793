// starc MPI runtime: the graph's 1-D edge-balanced distribution and the MPI program shell.
//
// Header-only C++17, included by generated MPI programs after starc_runtime.hpp; built with
// mpicxx. distribute() reads the graph (each rank its own byte range, starc_mpi_read.hpp) and
// gives every rank the CSR rows of a contiguous vertex range, balanced by edges, with global
// vertex ids; property arrays stay full-length replicas on every rank (O(n) each, the O(m)
// graph is what is partitioned). Ghosts are the remote vertices a rank's rows reference;
// mirrors are its own vertices that other ranks hold as ghosts.
//
// Local slot layout (Distribution::graph): rows in vertex order, so graph.offsets works for
// every row: the owned rows [owned_begin, owned_begin + owned_edges), in read_graph's order
// (slot owned_begin + i is global edge edge_base + i); with Needs::ghost_rows also the full
// forward row of every ghost, at its place in vertex order (rows below `first` come before
// the owned ones, so owned_begin > 0 only then); after all rows, with Needs::reverse, a copy
// slot for every in-edge whose source's row this rank does not hold. With both needs, the
// reverse CSR holds the in-rows of ghosts as well as those of owned vertices.
#ifndef STARC_MPI_HPP
#define STARC_MPI_HPP

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/resource.h>  // getrusage: the peak memory --stats prints

#include "starc_mpi_read.hpp"  // first: it includes <mpi.h> without the C++ bindings
#include "starc_runtime.hpp"

namespace starc_mpi {

/// What the program's kernels read beyond the owned rows.
struct Needs {
  bool reverse = false;     // in-edges of owned vertices (rev_offsets ...)
  bool ghost_rows = false;  // the forward rows of ghosts
};

/// Counters the superstep header fills; report_stats prints them.
struct Stats {
  long long supersteps = 0, exchanges = 0, messages = 0, bytes = 0, entries = 0;
  long long max_pair_messages_per_superstep = 0;  // most messages one superstep sent to one rank
  long long max_superstep_bytes = 0;              // most bytes one superstep sent
  long long max_entries_per_vertex = 0;           // most entries for one vertex in one superstep
  // Own edges (out-rows, and in-rows when read) whose other endpoint another rank owns: what a
  // per-element scheme (one message per remote access) sends in a superstep that touches every
  // edge once, to compare with `entries`.
  long long cut_edges = 0;
};

struct Distribution {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  detail::Neighbours everyone;     // every rank (itself included): the distribution's exchanges
  starc::Graph graph;          // global ids, local slots (see the top of this file)
  int first = 0, last = 0;     // owned vertices [first, last), possibly empty
  int owned_begin = 0;         // slot of the first owned edge (0 unless ghost rows precede)
  int owned_edges = 0;         // owned slots: [owned_begin, owned_begin + owned_edges)
  long long edge_base = 0;     // global CSR id of slot owned_begin (= global offsets[first])
  long long global_edges = 0;
  std::vector<int> splits;     // ranks + 1: rank r owns [splits[r], splits[r + 1])
  std::vector<int> ghosts;     // sorted distinct non-owned vertices the local rows reference
  std::vector<int> ghost_displs;   // ranks + 1: ghosts owned by r are [ghost_displs[r], ghost_displs[r + 1])
  std::vector<int> mirrors;        // own vertices other ranks hold as ghosts, grouped by that rank
  std::vector<int> mirror_displs;  // ranks + 1
  // Every vertex's out- and in-degree in the whole graph (n entries each, on every rank):
  // count_outNbrs and count_inNbrs of any vertex read them instead of a row.
  std::vector<int> out_degree, in_degree;
  bool stats_enabled = false;
  Stats stats;

  /// The rank owning vertex v (0 <= v < n).
  int owner(int v) const {
    return static_cast<int>(std::upper_bound(splits.begin(), splits.end(), v) - splits.begin()) - 1;
  }
  bool owns(int v) const { return v >= first && v < last; }
};

namespace detail {

/// An MPI datatype of `bytes` contiguous bytes, committed once per size.
inline MPI_Datatype bytes_type(int bytes) {
  MPI_Datatype type;
  MPI_Type_contiguous(bytes, MPI_BYTE, &type);
  MPI_Type_commit(&type);
  return type;
}

/// Exclusive prefix sums of counts (ranks + 1 entries).
inline std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size() + 1, 0);
  for (size_t r = 0; r < counts.size(); ++r) displs[r + 1] = displs[r] + counts[r];
  return displs;
}

/// Sends out[k] to rank dest[k] (one exchange of 64-bit sizes over every rank); returns what
/// arrived, by source rank.
template <class T>
std::vector<T> exchange(const Distribution& d, const std::vector<T>& out, const std::vector<int>& dest) {
  static_assert(std::is_trivially_copyable<T>::value, "exchange copies bytes");
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<long long> send_counts(R, 0);
  for (int r : dest) ++send_counts[static_cast<size_t>(r)];
  std::vector<long long> send_displs = prefix(send_counts);
  std::vector<T> packed(out.size());
  std::vector<long long> next(send_displs.begin(), send_displs.end() - 1);
  for (size_t k = 0; k < out.size(); ++k) packed[static_cast<size_t>(next[static_cast<size_t>(dest[k])]++)] = out[k];
  for (size_t r = 0; r < R; ++r) {
    send_counts[r] *= static_cast<long long>(sizeof(T));
    send_displs[r] *= static_cast<long long>(sizeof(T));
  }
  std::vector<long long> recv_counts = exchange_counts(d.everyone, send_counts);
  std::vector<long long> recv_displs = prefix(recv_counts);
  std::vector<T> in(static_cast<size_t>(recv_displs.back()) / sizeof(T));
  exchange_data(d.everyone, packed.data(), send_counts, send_displs, in.data(), recv_counts, recv_displs);
  return in;
}

/// Split points of the vertex range where the prefix sum of (out-degree + 1) crosses
/// k * total / ranks: balanced by edges, and still spread when there are few or no edges.
inline std::vector<int> balanced_splits(const std::vector<int>& degree, int ranks) {
  long long n = static_cast<long long>(degree.size()), total = n;
  for (int x : degree) total += x;
  std::vector<int> splits(static_cast<size_t>(ranks) + 1, static_cast<int>(n));
  splits[0] = 0;
  long long prefix = 0;
  int k = 1;
  for (long long v = 0; v < n && k < ranks; ++v) {
    while (k < ranks && prefix * ranks >= k * total) splits[static_cast<size_t>(k++)] = static_cast<int>(v);
    prefix += degree[static_cast<size_t>(v)] + 1;
  }
  return splits;
}

inline bool by_source(const Edge& a, const Edge& b) {
  return a.src != b.src ? a.src < b.src : a.dst != b.dst ? a.dst < b.dst : a.key < b.key;
}

inline bool by_target(const Edge& a, const Edge& b) { return a.dst != b.dst ? a.dst < b.dst : a.key < b.key; }

/// A rank's edge slots are 32-bit local ids: refuses (on every rank alike) a part that would
/// need more, naming the way out. Collective.
inline void check_local_edges(const Distribution& d, const std::string& path, long long slots) {
  long long most = slots;
  MPI_Allreduce(&slots, &most, 1, MPI_LONG_LONG, MPI_MAX, d.comm);
  if (most > static_cast<long long>(INT_MAX) - 1)
    starc::detail::input_error(path, 0, "one rank's part would hold " + std::to_string(most) +
                                            " edges, more than its 32-bit local edge ids allow; run it on more ranks");
}

}  // namespace detail

/// Reads `path` and distributes it over the ranks of `comm` (collective). Bad input raises on
/// every rank the InputError starc::read_graph gives for the same file.
inline Distribution distribute(const std::string& path, bool undirected, Needs needs, bool stats,
                               MPI_Comm comm = MPI_COMM_WORLD) {
  using detail::Edge;
  Distribution d;
  d.comm = comm;
  d.stats_enabled = stats;
  MPI_Comm_rank(comm, &d.rank);
  MPI_Comm_size(comm, &d.ranks);
  std::vector<int> all(static_cast<size_t>(d.ranks));
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
  local.src = std::vector<int>();
  local.dst = std::vector<int>();
  local.weights = std::vector<double>();
  long long mine = static_cast<long long>(edges.size());
  MPI_Allreduce(&mine, &d.global_edges, 1, MPI_LONG_LONG, MPI_SUM, comm);

  // The partition: global out-degrees (one Allreduce over an n-array), then split points that
  // every rank computes alike.
  int n = static_cast<int>(local.num_nodes);
  std::vector<int> degree(static_cast<size_t>(n), 0);
  for (const Edge& e : edges) ++degree[static_cast<size_t>(e.src)];
  MPI_Allreduce(MPI_IN_PLACE, degree.data(), n, MPI_INT, MPI_SUM, comm);
  d.in_degree.assign(static_cast<size_t>(n), 0);
  for (const Edge& e : edges) ++d.in_degree[static_cast<size_t>(e.dst)];
  MPI_Allreduce(MPI_IN_PLACE, d.in_degree.data(), n, MPI_INT, MPI_SUM, comm);
  d.splits = detail::balanced_splits(degree, d.ranks);
  d.first = d.splits[static_cast<size_t>(d.rank)];
  d.last = d.splits[static_cast<size_t>(d.rank) + 1];
  std::vector<long long> global_offsets(static_cast<size_t>(n) + 1, 0);
  for (int v = 0; v < n; ++v) global_offsets[static_cast<size_t>(v) + 1] = global_offsets[static_cast<size_t>(v)] + degree[static_cast<size_t>(v)];
  d.edge_base = global_offsets[static_cast<size_t>(d.first)];

  // Edges to the owners of their sources; the owner sorts them into read_graph's order.
  std::vector<int> dest(edges.size());
  for (size_t k = 0; k < edges.size(); ++k) dest[k] = d.owner(edges[k].src);
  std::vector<Edge> owned = detail::exchange(d, edges, dest);
  edges = std::vector<Edge>();
  std::sort(owned.begin(), owned.end(), detail::by_source);
  for (size_t i = 0; i < owned.size(); ++i) owned[i].key = d.edge_base + static_cast<long long>(i);  // global ids
  detail::check_local_edges(d, path, static_cast<long long>(owned.size()));
  d.owned_edges = static_cast<int>(owned.size());

  // In-edges of owned vertices: every owned edge to the owner of its target.
  std::vector<Edge> incoming;
  if (needs.reverse) {
    dest.resize(owned.size());
    for (size_t k = 0; k < owned.size(); ++k) dest[k] = d.owner(owned[k].dst);
    incoming = detail::exchange(d, owned, dest);
    std::sort(incoming.begin(), incoming.end(), detail::by_target);
  }
  dest = std::vector<int>();

  // Ghosts, grouped by owner (ascending ids are ascending owners), then mirrors: each rank
  // tells every owner which of its vertices it holds as ghosts.
  for (const Edge& e : owned)
    if (!d.owns(e.dst)) d.ghosts.push_back(e.dst);
  for (const Edge& e : incoming)
    if (!d.owns(e.src)) d.ghosts.push_back(e.src);
  d.stats.cut_edges = static_cast<long long>(d.ghosts.size());  // before duplicates go
  std::sort(d.ghosts.begin(), d.ghosts.end());
  d.ghosts.erase(std::unique(d.ghosts.begin(), d.ghosts.end()), d.ghosts.end());
  d.ghost_displs.resize(static_cast<size_t>(d.ranks) + 1);
  for (int r = 0; r <= d.ranks; ++r)
    d.ghost_displs[static_cast<size_t>(r)] = static_cast<int>(
        std::lower_bound(d.ghosts.begin(), d.ghosts.end(), d.splits[static_cast<size_t>(r)]) - d.ghosts.begin());
  std::vector<int> ghost_counts(static_cast<size_t>(d.ranks)), mirror_counts(static_cast<size_t>(d.ranks));
  for (int r = 0; r < d.ranks; ++r)
    ghost_counts[static_cast<size_t>(r)] = d.ghost_displs[static_cast<size_t>(r) + 1] - d.ghost_displs[static_cast<size_t>(r)];
  MPI_Alltoall(ghost_counts.data(), 1, MPI_INT, mirror_counts.data(), 1, MPI_INT, comm);
  d.mirror_displs = detail::displacements(mirror_counts);
  d.mirrors.resize(static_cast<size_t>(d.mirror_displs.back()));
  MPI_Alltoallv(d.ghosts.data(), ghost_counts.data(), d.ghost_displs.data(), MPI_INT, d.mirrors.data(),
                mirror_counts.data(), d.mirror_displs.data(), MPI_INT, comm);

  // Ghost rows: every owner sends the rows of its mirrors to the ranks that hold them.
  std::vector<Edge> ghost_edges;
  if (needs.ghost_rows) {
    std::vector<Edge> out;
    std::vector<int> to;
    for (int r = 0; r < d.ranks; ++r)
      for (int k = d.mirror_displs[static_cast<size_t>(r)]; k < d.mirror_displs[static_cast<size_t>(r) + 1]; ++k) {
        int v = d.mirrors[static_cast<size_t>(k)];
        for (long long e = global_offsets[static_cast<size_t>(v)]; e < global_offsets[static_cast<size_t>(v) + 1]; ++e) {
          out.push_back(owned[static_cast<size_t>(e - d.edge_base)]);
          to.push_back(r);
        }
      }
    ghost_edges = detail::exchange(d, out, to);  // ascending ghosts, each row in order
    // With in-rows too, a ghost's in-row (count_inNbrs or nodes_to of a neighbour): the
    // owner's in-edges of each mirror, merged into the reverse CSR below.
    if (needs.reverse) {
      out.clear();
      to.clear();
      for (int r = 0; r < d.ranks; ++r)
        for (int k = d.mirror_displs[static_cast<size_t>(r)]; k < d.mirror_displs[static_cast<size_t>(r) + 1]; ++k) {
          Edge probe{0, d.mirrors[static_cast<size_t>(k)], LLONG_MIN, 0.0};
          for (auto it = std::lower_bound(incoming.begin(), incoming.end(), probe, detail::by_target);
               it != incoming.end() && it->dst == probe.dst; ++it) {
            out.push_back(*it);
            to.push_back(r);
          }
        }
      std::vector<Edge> ghost_in = detail::exchange(d, out, to);
      incoming.insert(incoming.end(), ghost_in.begin(), ghost_in.end());
      std::sort(incoming.begin(), incoming.end(), detail::by_target);
    }
  }

  // The local CSR: rows in vertex order (owned rows, and ghost rows when asked for).
  starc::Graph& g = d.graph;
  g.path = path;
  g.num_nodes = n;
  g.has_weights = local.has_weights;
  g.weights_integral = local.weights_integral;
  long long rows = static_cast<long long>(owned.size()) + static_cast<long long>(ghost_edges.size());
  detail::check_local_edges(d, path, rows + static_cast<long long>(incoming.size()));
  g.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (int v = d.first; v < d.last; ++v) g.offsets[static_cast<size_t>(v) + 1] = degree[static_cast<size_t>(v)];
  if (needs.ghost_rows)
    for (int v : d.ghosts) g.offsets[static_cast<size_t>(v) + 1] = degree[static_cast<size_t>(v)];
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) g.offsets[v + 1] += g.offsets[v];
  d.owned_begin = g.offsets[static_cast<size_t>(d.first)];
  std::vector<Edge> slots(static_cast<size_t>(g.offsets[static_cast<size_t>(n)]));
  std::copy(owned.begin(), owned.end(), slots.begin() + d.owned_begin);
  for (const Edge& e : ghost_edges) slots[static_cast<size_t>(g.offsets[static_cast<size_t>(e.src)] + (e.key - global_offsets[static_cast<size_t>(e.src)]))] = e;

  // The reverse CSR of owned vertices; each in-edge points at the slot that holds it.
  g.rev_offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (const Edge& e : incoming) ++g.rev_offsets[static_cast<size_t>(e.dst) + 1];
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) g.rev_offsets[v + 1] += g.rev_offsets[v];
  g.rev_sources.reserve(incoming.size());
  g.rev_edge_ids.reserve(incoming.size());
  for (const Edge& e : incoming) {
    int slot;
    // the slot of the edge's forward row where this rank holds it (owned or a ghost's row)
    if (d.owns(e.src) || (needs.ghost_rows && std::binary_search(d.ghosts.begin(), d.ghosts.end(), e.src))) {
      slot = g.offsets[static_cast<size_t>(e.src)] + static_cast<int>(e.key - global_offsets[static_cast<size_t>(e.src)]);
    } else {  // a copy slot after the rows
      slot = static_cast<int>(slots.size());
      slots.push_back(e);
    }
    g.rev_sources.push_back(e.src);
    g.rev_edge_ids.push_back(slot);
  }
  g.num_edges = static_cast<int>(slots.size());
  // Edge arrays have num_edges entries on every rank (the plan sizes them all alike); the
  // reverse rows may hold fewer in-edges than there are slots.
  if (needs.reverse) {
    g.rev_sources.resize(slots.size());
    g.rev_edge_ids.resize(slots.size());
  }
  g.targets.resize(slots.size());
  g.sources.resize(slots.size());
  if (g.has_weights) g.weights.resize(slots.size());
  for (size_t s = 0; s < slots.size(); ++s) {
    g.sources[s] = slots[s].src;
    g.targets[s] = slots[s].dst;
    if (g.has_weights) g.weights[s] = slots[s].weight;
  }
  d.out_degree = std::move(degree);
  return d;
}

/// Reads the MPI backend's own option: true when --stats was given (guarded_main takes it off
/// the command line). Any other backend flag (--device, --block-size) is a UsageError.
inline bool& stats_requested() {
  static bool requested = false;
  return requested;
}

inline bool options(const starc::CommandLine& cl) {
  std::string flag = cl.first_device_flag();
  if (!flag.empty())
    throw starc::UsageError("unknown option '" + flag + "' (MPI programs take the number of ranks "
                            "from mpirun -np; their own option is --stats)");
  return stats_requested();
}

/// Rank 0's out[0, n) receives every owner's values of a replicated property (collective).
template <class T>
void gather_nodes(const Distribution& d, const T* replica, T* out) {
  static_assert(std::is_trivially_copyable<T>::value, "gather_nodes copies bytes");
  static MPI_Datatype type = detail::bytes_type(static_cast<int>(sizeof(T)));
  std::vector<int> counts(static_cast<size_t>(d.ranks));
  for (int r = 0; r < d.ranks; ++r) counts[static_cast<size_t>(r)] = d.splits[static_cast<size_t>(r) + 1] - d.splits[static_cast<size_t>(r)];
  const void* send = replica + d.first;
  if (d.rank == 0 && out == replica) send = MPI_IN_PLACE;
  MPI_Gatherv(send, d.last - d.first, type, out, counts.data(), d.splits.data(), type, 0, d.comm);
}

/// The owner's value of vertex v, on every rank (collective).
template <class T>
T read_node(const Distribution& d, const T* replica, long long v) {
  static_assert(std::is_trivially_copyable<T>::value, "read_node copies bytes");
  T value = replica[v];
  MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, d.owner(static_cast<int>(v)), d.comm);
  return value;
}

/// g.num_edges() of the DSL, an int: the whole graph's edge count, saturated at INT_MAX when
/// the graph has more (a count the program's int cannot hold).
inline int edge_count(const Distribution& d) {
  return d.global_edges > INT_MAX ? INT_MAX : static_cast<int>(d.global_edges);
}

/// The slowest rank's time (collective).
inline double max_seconds(const Distribution& d, double seconds) {
  double slowest = seconds;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, d.comm);
  return slowest;
}

namespace detail {

/// This process's peak resident set (its high-water mark) in bytes: VmHWM of
/// /proc/self/status, else getrusage's ru_maxrss (KiB on Linux), else 0.
inline long long peak_memory_bytes() {
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::strtoll(line + 6, nullptr, 10);
    std::fclose(f);
    if (kib >= 0) return kib * 1024;
  }
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0) return static_cast<long long>(usage.ru_maxrss) * 1024;
  return 0;
}

}  // namespace detail

/// With --stats, one line per rank on stderr, in rank order, printed by rank 0 (collective).
/// Printed once, after the last run: with --trials N the counters hold all N runs. The peak
/// memory is the rank's resident high-water mark over the whole process (reading the graph
/// included); bytes_per_superstep is the mean over the supersteps, max_superstep_bytes the
/// largest.
inline void report_stats(const Distribution& d) {
  if (!d.stats_enabled) return;
  const Stats& s = d.stats;
  char line[768];
  int length = std::snprintf(line, sizeof line,
                             "starc-mpi-stats rank=%d owned=%d ghosts=%zu supersteps=%lld exchanges=%lld messages=%lld "
                             "bytes=%lld entries=%lld max_pair_messages_per_superstep=%lld max_entries_per_vertex=%lld "
                             "cut_edges=%lld bytes_per_superstep=%lld max_superstep_bytes=%lld peak_memory_bytes=%lld\n",
                             d.rank, d.last - d.first, d.ghosts.size(), s.supersteps, s.exchanges, s.messages, s.bytes,
                             s.entries, s.max_pair_messages_per_superstep, s.max_entries_per_vertex, s.cut_edges,
                             s.supersteps > 0 ? s.bytes / s.supersteps : 0, s.max_superstep_bytes,
                             detail::peak_memory_bytes());
  std::vector<int> lengths(static_cast<size_t>(d.ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, d.comm);
  std::vector<int> displs = detail::displacements(lengths);
  std::vector<char> text(static_cast<size_t>(d.rank == 0 ? displs.back() : 0) + 1);
  MPI_Gatherv(line, length, MPI_CHAR, text.data(), lengths.data(), displs.data(), MPI_CHAR, 0, d.comm);
  if (d.rank == 0) {
    std::fwrite(text.data(), 1, static_cast<size_t>(displs.back()), stderr);
    std::fflush(stderr);
  }
}

namespace detail {

/// Ends MPI when the program leaves through std::exit (--help) instead of guarded_main.
inline void finalize_at_exit() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

}  // namespace detail

/// MPI_Init_thread (funneled), body, MPI_Finalize. The errors every rank raises alike (the
/// command line, the agreed input errors, run-time checks) are printed once, by rank 0, as
/// starc::guarded_main prints them, and every rank returns their status. Any other exception
/// is this rank's alone: it prints "<program>: error: <what> (rank R)" and aborts the job
/// (status 3), since the other ranks may be waiting for it. body is called as body(argc, argv)
/// with --stats taken off the command line, or as body() when it takes no arguments.
template <class Body>
int guarded_main(int argc, char** argv, const char* program, Body body) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  std::atexit(detail::finalize_at_exit);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char*> args(argv, argv + argc);
  args.erase(std::remove_if(args.begin() + (args.empty() ? 0 : 1), args.end(),
                            [](const char* a) { return std::strcmp(a, "--stats") == 0; }),
             args.end());
  stats_requested() = static_cast<int>(args.size()) != argc;
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  for (int i = 1; i < count; ++i)  // --help prints once, from rank 0
    if (rank != 0 && (std::strcmp(args[static_cast<size_t>(i)], "--help") == 0 || std::strcmp(args[static_cast<size_t>(i)], "-h") == 0))
      if (!std::freopen("/dev/null", "w", stdout)) break;
  int status = 0;
  try {
    if constexpr (std::is_invocable_v<Body&, int, char**>) {
      if constexpr (std::is_void_v<std::invoke_result_t<Body&, int, char**>>) body(count, args.data());
      else status = static_cast<int>(body(count, args.data()));
    } else if constexpr (std::is_void_v<std::invoke_result_t<Body&>>) {
      body();
    } else {
      status = static_cast<int>(body());
    }
  } catch (const starc::CheckError&) {
    status = rank == 0 ? starc::guarded_main(program, [] { throw; }) : 1;
  } catch (const starc::InputError&) {
    status = rank == 0 ? starc::guarded_main(program, [] { throw; }) : 1;
  } catch (const starc::UsageError&) {
    status = rank == 0 ? starc::guarded_main(program, [] { throw; }) : 2;
  } catch (const std::exception& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s (rank %d)\n", program, error.what(), rank);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  } catch (...) {
    std::fprintf(stderr, "%s: error: unknown exception (rank %d)\n", program, rank);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Finalize();
  return status;
}

}  // namespace starc_mpi

#endif  // STARC_MPI_HPP
