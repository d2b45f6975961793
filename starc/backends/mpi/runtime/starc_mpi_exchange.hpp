// starc MPI runtime: personalised exchanges of any size (64-bit byte counts).
//
// Part of the header-only runtime of starc-generated MPI programs (included by starc_mpi.hpp).
// MPI 3's counts and displacements are ints, so one message of 2 GiB or more, or a receive
// buffer that large, cannot be described by MPI_Alltoallv; MPI 4's large-count calls
// (MPI_Neighbor_alltoallv_c) are not in Open MPI 4.1. Every exchange here is therefore one
// MPI_Neighbor_alltoallw on a distributed-graph communicator: its displacements are MPI_Aint
// (64-bit) and each neighbour's message is one element of a datatype that spans its bytes
// (MPI_BYTE while the count fits an int, else 1-GiB blocks plus a remainder: BigMPI's
// technique), so no count or offset is ever narrowed. The byte counts travel first, one
// long long per neighbour (MPI_Neighbor_alltoall). A superstep's exchanges, many small ones
// on the critical path, are one round of point-to-point messages instead (exchange_messages):
// each message's envelope gives its size, so no round of counts precedes it.
#ifndef STARC_MPI_EXCHANGE_HPP
#define STARC_MPI_EXCHANGE_HPP

// Only MPI's C interface is used; Open MPI's deprecated C++ bindings warn under -Wextra.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

namespace starc_mpi {
namespace detail {

/// `bytes` contiguous bytes as (count, datatype); `owned` types are freed by the caller.
struct ByteSpan {
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  bool owned = false;
};

/// One GiB of bytes, committed once.
inline MPI_Datatype gib_type() {
  static MPI_Datatype type = [] {
    MPI_Datatype t;
    MPI_Type_contiguous(1 << 30, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
  }();
  return type;
}

/// The datatype of one message of `bytes` bytes (any size).
inline ByteSpan byte_span(long long bytes) {
  ByteSpan span;
  if (bytes <= INT_MAX) {
    span.count = static_cast<int>(bytes);
    return span;
  }
  const long long block = 1LL << 30;
  MPI_Datatype blocks, pieces[2];
  MPI_Type_contiguous(static_cast<int>(bytes / block), gib_type(), &blocks);
  int lengths[2] = {1, static_cast<int>(bytes % block)};
  MPI_Aint offsets[2] = {0, static_cast<MPI_Aint>(bytes - bytes % block)};
  pieces[0] = blocks;
  pieces[1] = MPI_BYTE;
  MPI_Type_create_struct(2, lengths, offsets, pieces, &span.type);
  MPI_Type_commit(&span.type);
  MPI_Type_free(&blocks);
  span.count = 1;
  span.owned = true;
  return span;
}

/// The distributed-graph communicators made by `neighbourhood` and not freed yet (--stats
/// prints it: a run keeps a bounded number however many batches change the peers).
inline long long& live_communicators() {
  static long long count = 0;
  return count;
}

/// The neighbours of a distributed-graph communicator: where messages go and come from.
/// Copies share the communicator (a dynamic program's part laid out again keeps its peers'
/// one, and the input distribution each --trials run restores holds its own copy); the last
/// copy to go frees it. Every rank makes and drops its copies at the same points of the same
/// program, so the (collective) frees match; the program's distributions go before
/// MPI_Finalize (guarded_main), and one left after it is not freed.
struct Neighbours {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<int> sources, destinations;   // ranks in `comm`, in MPI's order
  std::shared_ptr<const MPI_Comm> owner;    // frees `comm` with its last copy
  // Every rank's sources and destinations are all the other ranks (agreed by all): a round
  // over `comm` then reaches every rank, and can carry what an MPI_Allreduce would combine.
  bool complete = false;
};

/// Frees a communicator of `neighbourhood` unless MPI has ended already.
inline void free_communicator(MPI_Comm* comm) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(comm);
  --live_communicators();
  delete comm;
}

/// A distributed-graph communicator over `comm` with these neighbours (collective; every
/// rank names its own). `sources` must list the ranks that name this one as a destination.
inline Neighbours neighbourhood(MPI_Comm comm, const std::vector<int>& sources, const std::vector<int>& destinations) {
  Neighbours n;
  n.sources = sources;
  n.destinations = destinations;
  MPI_Dist_graph_create_adjacent(comm, static_cast<int>(sources.size()), sources.empty() ? MPI_WEIGHTS_EMPTY : sources.data(),
                                 MPI_UNWEIGHTED, static_cast<int>(destinations.size()),
                                 destinations.empty() ? MPI_WEIGHTS_EMPTY : destinations.data(), MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &n.comm);
  ++live_communicators();
  n.owner = std::shared_ptr<const MPI_Comm>(new MPI_Comm(n.comm), free_communicator);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  auto others = [&](const std::vector<int>& list) {
    std::vector<char> seen(static_cast<size_t>(ranks), 0);
    for (int r : list) seen[static_cast<size_t>(r)] = r != rank;
    return std::count(seen.begin(), seen.end(), 1) == ranks - 1;
  };
  int mine = others(sources) && others(destinations), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
  n.complete = all != 0;
  return n;
}

/// Exclusive prefix sums (size + 1 entries), 64-bit.
inline std::vector<long long> prefix(const std::vector<long long>& counts) {
  std::vector<long long> sums(counts.size() + 1, 0);
  for (size_t k = 0; k < counts.size(); ++k) sums[k + 1] = sums[k] + counts[k];
  return sums;
}

/// The byte counts each source of `n` sends, given what this rank sends each destination
/// (one MPI_Neighbor_alltoall of long longs).
inline std::vector<long long> exchange_counts(const Neighbours& n, const std::vector<long long>& send_bytes) {
  std::vector<long long> recv_bytes(n.sources.size(), 0);
  static long long none = 0;
  MPI_Neighbor_alltoall(send_bytes.empty() ? &none : send_bytes.data(), 1, MPI_LONG_LONG,
                        recv_bytes.empty() ? &none : recv_bytes.data(), 1, MPI_LONG_LONG, n.comm);
  return recv_bytes;
}

/// One personalised exchange over `n` whose byte counts both sides know (`exchange_counts`,
/// or a static exchange): destination k gets bytes [send_displs[k], + send_bytes[k]) of
/// `send`, source k's message lands at recv + recv_displs[k]. MPI_Neighbor_alltoallw with
/// 64-bit displacements (see the top of this file).
inline void exchange_data(const Neighbours& n, const void* send, const std::vector<long long>& send_bytes,
                          const std::vector<long long>& send_displs, void* recv,
                          const std::vector<long long>& recv_bytes, const std::vector<long long>& recv_displs) {
  size_t out = n.destinations.size(), in = n.sources.size();
  std::vector<ByteSpan> send_spans(out), recv_spans(in);
  std::vector<int> send_counts(out), recv_counts(in);
  std::vector<MPI_Datatype> send_types(out), recv_types(in);
  std::vector<MPI_Aint> sdispls(out), rdispls(in);
  for (size_t k = 0; k < out; ++k) {
    send_spans[k] = byte_span(send_bytes[k]);
    send_counts[k] = send_spans[k].count;
    send_types[k] = send_spans[k].type;
    sdispls[k] = static_cast<MPI_Aint>(send_displs[k]);
  }
  for (size_t k = 0; k < in; ++k) {
    recv_spans[k] = byte_span(recv_bytes[k]);
    recv_counts[k] = recv_spans[k].count;
    recv_types[k] = recv_spans[k].type;
    rdispls[k] = static_cast<MPI_Aint>(recv_displs[k]);
  }
  // (a zero-length buffer may be null; MPI reads nothing from it)
  static char none = 0;
  MPI_Neighbor_alltoallw(send ? send : &none, send_counts.data(), sdispls.data(), send_types.data(),
                         recv ? recv : &none, recv_counts.data(), rdispls.data(), recv_types.data(), n.comm);
  for (ByteSpan& s : send_spans)
    if (s.owned) MPI_Type_free(&s.type);
  for (ByteSpan& s : recv_spans)
    if (s.owned) MPI_Type_free(&s.type);
}

/// One personalised exchange over `n` in a single round of point-to-point messages, where
/// `exchange_counts` + `exchange_data` take two neighbour collectives: every destination gets
/// a message (empty ones too, so that each source's can be awaited), each source's is matched
/// by MPI_Mprobe, whose envelope gives its size (64-bit: MPI_Get_elements_x), then received
/// into `recv` at `recv_displs` (filled here). `tag` keeps apart the kinds of exchange that
/// can overlap on `n`: a rank may run one phase ahead of a slower peer, never two (it waits
/// for that peer's next message), and MPI keeps one sender's messages of a tag in order. The
/// superstep's phases made two collectives each; this one round also skips the schedules Open
/// MPI 4's neighbour collectives build per call (libnbc).
inline void exchange_messages(const Neighbours& n, const char* send, const std::vector<long long>& send_bytes,
                              const std::vector<long long>& send_displs, std::vector<char>& recv,
                              std::vector<long long>& recv_displs, int tag) {
  size_t out = n.destinations.size(), in = n.sources.size();
  std::vector<MPI_Request> sends(out);
  std::vector<ByteSpan> send_spans(out);
  static char none = 0;
  for (size_t k = 0; k < out; ++k) {
    send_spans[k] = byte_span(send_bytes[k]);
    MPI_Isend(send_bytes[k] > 0 ? send + send_displs[k] : &none, send_spans[k].count, send_spans[k].type,
              n.destinations[k], tag, n.comm, &sends[k]);
  }
  std::vector<MPI_Message> messages(in);
  recv_displs.assign(in + 1, 0);
  for (size_t k = 0; k < in; ++k) {
    MPI_Status status;
    MPI_Mprobe(n.sources[k], tag, n.comm, &messages[k], &status);
    MPI_Count bytes = 0;
    MPI_Get_elements_x(&status, MPI_BYTE, &bytes);
    recv_displs[k + 1] = recv_displs[k] + static_cast<long long>(bytes);
  }
  recv.resize(static_cast<size_t>(recv_displs[in]));
  for (size_t k = 0; k < in; ++k) {
    long long bytes = recv_displs[k + 1] - recv_displs[k];
    ByteSpan span = byte_span(bytes);
    MPI_Mrecv(bytes > 0 ? recv.data() + recv_displs[k] : &none, span.count, span.type, &messages[k], MPI_STATUS_IGNORE);
    if (span.owned) MPI_Type_free(&span.type);
  }
  MPI_Waitall(static_cast<int>(out), sends.data(), MPI_STATUSES_IGNORE);
  for (ByteSpan& s : send_spans)
    if (s.owned) MPI_Type_free(&s.type);
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_EXCHANGE_HPP
