// starc MPI runtime: the collectives distribute() and the renumbering build on.
//
// Included by starc_mpi.hpp after Distribution, whose communicators they use: sending items to
// their ranks (exchange, exchange_grouped), cutting the vertex range into edge-balanced parts
// without an n-long array (balanced_splits), and the CPU time those collectives spend waiting
// for other ranks, counted apart from a measured phase's own work (CollectiveCpu).
//
// starc_mpi.hpp comes first, outside the include guard: where this header is included on its
// own, starc_mpi.hpp's include of it (after Distribution) then defines everything below before
// distribute() needs it, and the rest of this file is skipped.
#include "starc_mpi.hpp"

#ifndef STARC_MPI_COLLECTIVES_HPP
#define STARC_MPI_COLLECTIVES_HPP

#include <ctime>
#include <type_traits>
#include <vector>

#include "starc_mpi_exchange.hpp"  // Neighbours, prefix, exchange_counts, exchange_data

namespace starc_mpi {

namespace detail {

/// This process's CPU time, all its threads, in ns. Unlike the steady clock it does not count
/// the time a rank waits for a core, so --stats' per-superstep work means the same on a
/// machine with fewer cores than ranks (report_stats' balance line).
inline long long process_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

/// Where the distribution's own collectives (exchange_grouped, tell_owners, splits_of_blocks,
/// the renumbering's) add the CPU time they take, mostly busy waiting for the other ranks,
/// while a measured phase runs (order_by_degree with --stats: Stats::mpi_cpu_ns); null
/// otherwise. Supersteps count their MPI calls' themselves (Spent).
inline long long*& collective_cpu_sink() {
  static long long* sink = nullptr;
  return sink;
}

/// Adds the process's CPU time over its scope to collective_cpu_sink(), where one is set.
struct CollectiveCpu {
  long long from = collective_cpu_sink() ? process_cpu_ns() : 0;
  ~CollectiveCpu() {
    if (long long* sink = collective_cpu_sink()) *sink += process_cpu_ns() - from;
  }
};

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

template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

/// Sends `grouped`, whose items are already in destination order (`counts[r]` items for rank
/// r), to their ranks over every rank; returns what arrived, by source rank. `grouped` is
/// emptied.
template <class T>
std::vector<T> exchange_grouped(const Distribution& d, std::vector<T>& grouped, std::vector<long long> counts) {
  static_assert(std::is_trivially_copyable<T>::value, "exchange copies bytes");
  for (long long& count : counts) count *= static_cast<long long>(sizeof(T));
  std::vector<long long> displs = prefix(counts);
  std::vector<long long> recv_counts;
  {
    CollectiveCpu waiting;
    recv_counts = exchange_counts(d.everyone, counts);
  }
  std::vector<long long> recv_displs = prefix(recv_counts);
  std::vector<T> in(static_cast<size_t>(recv_displs.back()) / sizeof(T));
  {
    CollectiveCpu waiting;
    exchange_data(d.everyone, grouped.data(), counts, displs, in.data(), recv_counts, recv_displs);
  }
  release(grouped);
  return in;
}

/// Sends each item to rank dest(item) over every rank (one exchange of 64-bit sizes); returns
/// what arrived, by source rank, each source's items in the order they had in `out`. `out`
/// is emptied: at most two copies of the data exist at any time (the packed one in flight
/// and the one received).
template <class T, class Dest>
std::vector<T> exchange(const Distribution& d, std::vector<T>& out, Dest dest) {
  static_assert(std::is_trivially_copyable<T>::value, "exchange copies bytes");
  size_t R = static_cast<size_t>(d.ranks);
  std::vector<long long> send_counts(R, 0);
  for (const T& item : out) ++send_counts[static_cast<size_t>(dest(item))];
  std::vector<long long> send_displs = prefix(send_counts);
  std::vector<T> packed(out.size());
  {
    std::vector<long long> next(send_displs.begin(), send_displs.end() - 1);
    for (const T& item : out) packed[static_cast<size_t>(next[static_cast<size_t>(dest(item))]++)] = item;
  }
  release(out);
  return exchange_grouped(d, packed, send_counts);
}

/// The block of vertex v when [0, n) is cut into R blocks [b n / R, (b + 1) n / R).
inline int block_of(long long n, int R, int v) {
  int b = static_cast<int>(static_cast<long long>(v) * R / n);
  while (b > 0 && n * b / R > v) --b;
  while (b + 1 < R && n * (b + 1) / R <= v) ++b;
  return b;
}

/// Split points of [0, n) where the prefix sum of the vertices' weights crosses k * total /
/// ranks, given this rank's block's weights (`weight[v - lo]` for v in its block [lo, hi),
/// see block_of). The same splits as a sequential scan (collective).
inline std::vector<int> splits_of_blocks(const Distribution& d, int n, int lo, const std::vector<long long>& weight) {
  int R = d.ranks;
  int hi = lo + static_cast<int>(weight.size());
  long long block_total = 0;
  for (long long w : weight) block_total += w;
  std::vector<long long> totals(static_cast<size_t>(R));
  {
    CollectiveCpu waiting;
    MPI_Allgather(&block_total, 1, MPI_LONG_LONG, totals.data(), 1, MPI_LONG_LONG, d.comm);
  }
  long long before = 0, total = 0;
  for (int b = 0; b < R; ++b) {
    if (b < d.rank) before += totals[static_cast<size_t>(b)];
    total += totals[static_cast<size_t>(b)];
  }
  // splits[k] = the first v whose prefix P(v) = sum of weights below v has P(v) R >= k total:
  // each block offers its first such v, the smallest offer wins
  std::vector<int> splits(static_cast<size_t>(R) + 1, n);
  long long prefix_sum = before;
  int k = 1;
  for (int v = lo; v < hi && k < R; ++v) {
    while (k < R && prefix_sum * R >= k * total) splits[static_cast<size_t>(k++)] = v;
    prefix_sum += weight[static_cast<size_t>(v - lo)];
  }
  {
    CollectiveCpu waiting;
    MPI_Allreduce(MPI_IN_PLACE, splits.data() + 1, R - 1, MPI_INT, MPI_MIN, d.comm);
  }
  splits[0] = 0;
  return splits;
}

/// Split points of the vertex range where the prefix sum of (out-degree + 1) crosses
/// k * total / ranks: balanced by edges, and still spread when there are few or no edges.
/// Computed without any n-long array: rank b counts the out-degrees of the vertex block
/// [b n / R, (b + 1) n / R) from the sources every rank sends it, and each rank finds the
/// split points inside its block (collective).
inline std::vector<int> balanced_splits(const Distribution& d, int n, std::vector<int> sources) {
  int R = d.ranks;
  int lo = static_cast<int>(static_cast<long long>(n) * d.rank / R);
  int hi = static_cast<int>(static_cast<long long>(n) * (d.rank + 1) / R);
  std::vector<int> mine = exchange(d, sources, [&](int v) { return block_of(n, R, v); });
  std::vector<long long> weight(static_cast<size_t>(hi - lo), 1);  // out-degree + 1
  for (int v : mine) ++weight[static_cast<size_t>(v - lo)];
  release(mine);
  return splits_of_blocks(d, n, lo, weight);
}

}  // namespace detail

}  // namespace starc_mpi

#endif  // STARC_MPI_COLLECTIVES_HPP
