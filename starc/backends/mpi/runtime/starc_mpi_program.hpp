// starc MPI runtime: the program shell of a generated MPI program.
//
// Part of the header-only runtime (included at the end of starc_mpi.hpp): MPI start and end
// with the errors every rank raises alike printed once (guarded_main), the backend's option
// (--stats) and its report, host access to single vertices of per-vertex arrays, and the
// results, streamed to rank 0 rank by rank.
#ifndef STARC_MPI_PROGRAM_HPP
#define STARC_MPI_PROGRAM_HPP

#include <sys/resource.h>  // getrusage: the peak memory --stats prints

#include <memory>

#include "starc_mpi.hpp"
#include "starc_mpi_values.hpp"  // datatype<T>

namespace starc_mpi {

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

/// The owner's value of vertex v of a per-vertex array in the local index space, on every rank
/// (collective): host code reading one element (src.dist).
template <class T>
T read_node(const Distribution& d, const T* local, long long v) {
  static_assert(std::is_trivially_copyable<T>::value, "read_node copies bytes");
  int owner = d.owner(static_cast<int>(v));
  T value{};
  if (owner == d.rank) value = local[d.local_of(v)];
  MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, owner, d.comm);
  return value;
}

/// The owner's value of vertex v of a full-length replica (an array read or written at any
/// vertex, indexed by global id), on every rank (collective).
template <class T>
T read_replica(const Distribution& d, const T* replica, long long v) {
  static_assert(std::is_trivially_copyable<T>::value, "read_replica copies bytes");
  T value = replica[v];
  MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, d.owner(static_cast<int>(v)), d.comm);
  return value;
}

/// Host code writing one element of a per-vertex array in the local index space: every rank
/// that knows vertex v (its owner, the ranks holding it as a ghost) stores the value, so the
/// copies agree; the others have no element for it.
template <class T, class V>
void write_node(const Distribution& d, T* local, long long v, V value) {
  int at = d.local_of(v);
  if (at >= 0) local[at] = static_cast<T>(value);
}

/// Element `index` of an array indexed by a BFS depth (extent "levels": the starts of a rank's
/// levels in its queue), grown as depths come: a rank's share of the vertices bounds no depth,
/// and n + 1 slots on every rank would be the whole graph's length. `data` follows the
/// storage (the kernels take it at each launch).
template <class T, class V>
void write_level(std::vector<T>& levels, T*& data, long long index, V value) {
  const size_t at = static_cast<size_t>(index);
  if (at >= levels.size()) {
    levels.resize(std::max(2 * levels.size(), at + 1));
    data = levels.data();
  }
  data[at] = static_cast<T>(value);
}

/// count_outNbrs / count_inNbrs of any vertex in host code (every rank alike): from the
/// degrees every rank keeps when the program reads any vertex's, else from the owner's
/// (collective).
inline int degree_of(const Distribution& d, long long v, bool out) {
  const std::vector<int>& global = out ? d.global_out_degree : d.global_in_degree;
  if (!global.empty()) return global[static_cast<size_t>(v)];
  return read_node(d, (out ? d.out_degree : d.in_degree).data(), v);
}

/// The results of the run, written by rank 0 in the shared format (starc_results.hpp) with
/// every rank's own values streamed to it, rank by rank, in pieces of at most kPiece values:
/// no rank ever holds more than its own vertices' values and one piece (collective, every
/// call on every rank in the same order).
class Results {
 public:
  static constexpr int kPiece = 1 << 18;

  /// Rank 0 opens the file (or stdout); if it cannot, every rank raises its UsageError.
  Results(const Distribution& d, const starc::CommandLine& cl, const char* function, const char* backend) : d_(d) {
    std::string error;
    if (d.rank == 0) {
      try {
        file_.reset(new starc::Results(cl, function, backend));
      } catch (const starc::UsageError& e) {
        error = e.what();
      }
    }
    int length = static_cast<int>(error.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, d.comm);
    if (length == 0) return;
    error.resize(static_cast<size_t>(length));
    MPI_Bcast(&error[0], length, MPI_CHAR, 0, d.comm);
    throw starc::UsageError(error);
  }

  /// Property `name`: `own` holds the rank's owned vertices' values, in vertex order.
  template <class T>
  void prop(const char* name, const T* own) {
    static_assert(std::is_trivially_copyable<T>::value, "Results::prop copies bytes");
    if (d_.rank != 0) {
      int count = d_.last - d_.first;
      for (int at = 0; at < count; at += kPiece)
        MPI_Send(own + at, static_cast<int>(std::min(kPiece, count - at) * sizeof(T)), MPI_BYTE, 0, 0, d_.comm);
      return;
    }
    file_->prop(name, own, d_.last - d_.first, d_.first);
    std::vector<T> piece;
    for (int r = 1; r < d_.ranks; ++r) {
      int first = d_.splits[static_cast<size_t>(r)], count = d_.splits[static_cast<size_t>(r) + 1] - first;
      for (int at = 0; at < count; at += kPiece) {
        int length = std::min(kPiece, count - at);
        piece.resize(static_cast<size_t>(length));
        MPI_Recv(piece.data(), static_cast<int>(length * sizeof(T)), MPI_BYTE, r, 0, d_.comm, MPI_STATUS_IGNORE);
        file_->prop(name, piece.data(), length, first + at);
      }
    }
  }

  /// The return value (every rank holds the same).
  template <class T>
  void ret(T value) {
    if (file_) file_->ret(value);
  }

  void close() {
    if (file_) file_->close();
  }

 private:
  const Distribution& d_;
  std::unique_ptr<starc::Results> file_;  // rank 0's
};

/// g.num_edges() of the DSL, an int: the whole graph's edge count, saturated at INT_MAX when
/// the graph has more (a count the program's int cannot hold).
inline int edge_count(const Distribution& d) {
  return d.global_edges > INT_MAX ? INT_MAX : static_cast<int>(d.global_edges);
}

/// minWt / maxWt: a rank holds the weights of its own rows (and of ghost rows), so the bound
/// of the whole graph's is the bound of every rank's (collective; `mine` is the rank's, the
/// type's largest / lowest value for a rank without edges).
template <typename T>
T all_ranks_weight_bound(const Distribution& d, T mine, bool largest) {
  T all = mine;
  MPI_Allreduce(&mine, &all, 1, datatype<T>(), largest ? MPI_MAX : MPI_MIN, d.comm);
  return all;
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
STARC_ENTRY void report_stats(const Distribution& d);
#if STARC_DEFINE_ENTRIES
STARC_ENTRY void report_stats(const Distribution& d) {
  if (!d.stats_enabled) return;
  const Stats& s = d.stats;
  char line[768];
  int length = std::snprintf(line, sizeof line,
                             "starc-mpi-stats rank=%d owned=%d ghosts=%zu supersteps=%lld exchanges=%lld messages=%lld "
                             "bytes=%lld entries=%lld max_pair_messages_per_superstep=%lld max_entries_per_vertex=%lld "
                             "cut_edges=%lld bytes_per_superstep=%lld max_superstep_bytes=%lld peak_memory_bytes=%lld "
                             "mirrors=%zu watched_per_superstep=%lld reductions=%lld rounds=%lld communicators=%lld "
                             "kernel_us=%lld runtime_us=%lld mpi_us=%lld update_allocations=%lld ghost_row_edges=%lld "
                             "new_ghosts=%lld renumbered_ids=%lld\n",
                             d.rank, d.last - d.first, d.ghosts.size(), s.supersteps, s.exchanges, s.messages, s.bytes,
                             s.entries, s.max_pair_messages_per_superstep, s.max_entries_per_vertex, s.cut_edges,
                             s.supersteps > 0 ? s.bytes / s.supersteps : 0, s.max_superstep_bytes,
                             detail::peak_memory_bytes(), distinct_mirrors(d),
                             s.supersteps > 0 ? s.watched / s.supersteps : 0, s.reductions, s.rounds,
                             detail::live_communicators(), s.kernel_ns / 1000, s.runtime_ns / 1000, s.mpi_ns / 1000, s.update_allocations,
                             s.ghost_row_edges, s.new_ghosts, s.renumbered_ids);
  std::vector<int> lengths(static_cast<size_t>(d.ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, d.comm);
  std::vector<int> displs = detail::displacements(lengths);
  std::vector<char> text(static_cast<size_t>(d.rank == 0 ? displs.back() : 0) + 1);
  MPI_Gatherv(line, length, MPI_CHAR, text.data(), lengths.data(), displs.data(), MPI_CHAR, 0, d.comm);
  if (d.rank == 0) std::fwrite(text.data(), 1, static_cast<size_t>(displs.back()), stderr);
  // The balance line (Stats::superstep_work_ns; every rank ran the same supersteps): all
  // ranks' work, the sum over the supersteps of the slowest rank's (critical), the same for
  // the kernels alone, and balance = work / (ranks x critical), 1 where each superstep's work
  // divides evenly between the ranks. The collective phases outside the supersteps
  // (Stats::phase_work_ns: the renumbering by degree) count in the work and the critical path
  // as supersteps do, and on their own as phase_work_us and phase_critical_us.
  long long work[3] = {}, critical[3] = {};
  const std::vector<long long>* parts[3] = {&s.superstep_work_ns, &s.superstep_kernel_ns, &s.phase_work_ns};
  int fewest[3] = {};
  for (int k = 0; k < 3; ++k) {
    const std::vector<long long>& mine = *parts[k];
    int count = static_cast<int>(mine.size());
    MPI_Allreduce(&count, &fewest[k], 1, MPI_INT, MPI_MIN, d.comm);  // (equal: each is collective)
    std::vector<long long> slowest(static_cast<size_t>(fewest[k])), summed(static_cast<size_t>(fewest[k]));
    MPI_Reduce(mine.data(), slowest.data(), fewest[k], MPI_LONG_LONG, MPI_MAX, 0, d.comm);
    MPI_Reduce(mine.data(), summed.data(), fewest[k], MPI_LONG_LONG, MPI_SUM, 0, d.comm);
    for (int j = 0; j < fewest[k]; ++j) critical[k] += slowest[static_cast<size_t>(j)], work[k] += summed[static_cast<size_t>(j)];
  }
  if (d.rank == 0) {
    long long all_work = work[0] + work[2], all_critical = critical[0] + critical[2];
    std::fprintf(stderr,
                 "starc-mpi-balance ranks=%d supersteps=%d work_us=%lld critical_us=%lld kernel_work_us=%lld "
                 "kernel_critical_us=%lld balance=%.3f phases=%d phase_work_us=%lld phase_critical_us=%lld\n",
                 d.ranks, fewest[0], all_work / 1000, all_critical / 1000, work[1] / 1000,
                 critical[1] / 1000,
                 all_critical > 0 ? static_cast<double>(all_work) / (static_cast<double>(d.ranks) * all_critical) : 1.0,
                 fewest[2], work[2] / 1000, critical[2] / 1000);
    std::fflush(stderr);
  }
}
#endif

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
  } catch (const starc::OutputError&) {  // rank 0's alone (it writes the results), at the end
    status = starc::guarded_main(program, [] { throw; });
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
  // No rank finalizes while another may still abort: Open MPI 4.1's mpirun races when an abort
  // arrives as other ranks finalize, and then hangs in PMIx_server_finalize or dies of SIGSEGV
  // after every rank has gone (8 of 150 runs of a 3-rank abort under load; 0 of 150 with this
  // barrier). A rank held here is killed by the abort as one held in any other collective.
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}

}  // namespace starc_mpi

#endif  // STARC_MPI_PROGRAM_HPP
