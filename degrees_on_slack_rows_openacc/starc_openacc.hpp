// starc OpenACC runtime: the device-side helpers and host operations of starc-generated OpenACC.
//
// Included after starc_runtime.hpp by every generated OpenACC program; generated next to it so
// the output folder builds on its own. Helper names are those of the CUDA, SYCL and OpenCL
// preludes (starc_atomic_min_float, starc_lock_try, ...), so kernels read the same everywhere.
// Every function a compute region calls is a `#pragma acc routine seq`.
//   starc_fill / starc_copy                 host-side array operations: one parallel loop
//                                           over arrays present on the device
//   starc_read_element                      one element back to the host (update self)
//   starc_stage_slots / starc_scatter /     a batch's changed slots of rows with slack, packed
//   starc_gather                            and written on the device, or gathered and read back
//   starc_stage_moves / starc_move          a batch's moves applied on the device (span moves),
//                                           the staging (acc_malloc) kept across batches
//   starc_atomic_<op>_<type>                op in add sub mul and or min max; type in int
//                                           long float double; returns the old value
//                                           (`atomic capture`; min/max by CAS loops, on
//                                           GCC's __atomic builtins or, under nvc++, CUDA's
//                                           atomicCAS; int min/max: CUDA's atomicMin/Max)
//   starc_atomic_update_<op>_<type>         the same without the old value (`atomic update`)
//   starc_lock_try / starc_lock_release     per-element spin locks (Min/Max with secondaries)
//   starc_find_edge                         binary search in a sorted CSR row
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                            find_edge for ascending w, by a cursor moving forward
//   starc_min / starc_max                   Min/Max as expressions
//   starc_openacc_options                   rejects the other backends' --device/--block-size
#ifndef STARC_OPENACC_HPP
#define STARC_OPENACC_HPP

#include <openacc.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <string>
#include <vector>

#include "starc_runtime.hpp"

// --- host-side array operations ------------------------------------------------------------
// `a` is a host array present on the device (enter data in main); these work on the device copy.

template <typename T, typename V>
inline void starc_fill(T* a, V value, long long count) {
  const T v = static_cast<T>(value);
#pragma acc parallel loop present(a[0:count])
  for (long long i = 0; i < count; ++i) a[i] = v;
}

template <typename T>
inline void starc_copy(T* dst, const T* src, long long count) {
#pragma acc parallel loop present(dst[0:count], src[0:count])
  for (long long i = 0; i < count; ++i) dst[i] = src[i];
}

template <typename T>
inline T starc_read_element(T* a, long long i) {
#pragma acc update self(a[i:1])
  return a[i];
}

// --- a batch's changed slots of rows with slack -----------------------------------------------
// The device copy found by acc_deviceptr (the arrays' lengths, a slot space's capacity, are not
// needed); the host array `a` gets the same values, so that both copies stay equal.

/// The slots a batch wrote (or its moves read) and its moves, on the device (acc_malloc), with
/// room for one array's packed values and for the moved spans' scratch copy. Kept across the
/// batches: each buffer grows (by half again at least) only when a batch needs more.
struct starc_scatter_staging {
  struct buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  buffer slots, values, moves, scratch;
  std::vector<int> host_slots, host_moves;
  std::vector<unsigned char> packed, host_scratch;   // the host sides of `values`, `scratch`
  int moved = 0;
  starc_scatter_staging() = default;
  starc_scatter_staging(const starc_scatter_staging&) = delete;
  starc_scatter_staging& operator=(const starc_scatter_staging&) = delete;
  ~starc_scatter_staging() {
    for (buffer* b : {&slots, &values, &moves, &scratch})
      if (b->data != nullptr) acc_free(b->data);
  }
};

/// `room` holding at least `count` elements of T.
template <typename T>
inline T* starc_staging_room(starc_scatter_staging::buffer& room, std::size_t count) {
  if (sizeof(T) * count > room.bytes) {
    const std::size_t grown = std::max(sizeof(T) * count, room.bytes + room.bytes / 2);
    if (room.data != nullptr) acc_free(room.data);
    room.data = acc_malloc(grown);
    room.bytes = grown;
  }
  return static_cast<T*>(room.data);
}

/// host[0..count) copied into `room` (grown as needed).
template <typename T>
inline T* starc_staging_upload(starc_scatter_staging::buffer& room, const T* host, std::size_t count) {
  T* device = starc_staging_room<T>(room, count);
  acc_memcpy_to_device(device, const_cast<T*>(host), sizeof(T) * count);
  return device;
}

inline void starc_stage_slots(starc_scatter_staging& staging, const std::vector<int>& slots) {
  staging.host_slots = slots;
  if (!slots.empty()) starc_staging_upload(staging.slots, slots.data(), slots.size());
}

/// The moves of SlotChange::move_records (`moved` slots in all), for starc_move.
inline void starc_stage_moves(starc_scatter_staging& staging, const std::vector<int>& records, int moved) {
  staging.host_moves = records;
  staging.moved = moved;
  if (moved > 0) starc_staging_upload(staging.moves, records.data(), records.size());
}

/// host[slot] for every staged slot, packed, copied to the device in one transfer and written to
/// a[slot] there by one parallel loop.
template <typename T>
inline void starc_scatter(T* a, const T* host, starc_scatter_staging& staging) {
  const std::vector<int>& slots = staging.host_slots;
  const long long count = static_cast<long long>(slots.size());
  if (count == 0) return;
  staging.packed.resize(sizeof(T) * slots.size());
  T* packed = reinterpret_cast<T*>(staging.packed.data());
  for (long long i = 0; i < count; ++i) packed[i] = a[slots[i]] = host[slots[i]];
  T* values = starc_staging_upload(staging.values, packed, slots.size());
  const int* at = static_cast<const int*>(staging.slots.data);
  T* device = static_cast<T*>(acc_deviceptr(a));
#pragma acc parallel loop deviceptr(device, at, values)
  for (long long i = 0; i < count; ++i) device[at[i]] = values[i];
}

/// a[slot] for every staged slot, gathered on the device by one parallel loop, copied back in one
/// transfer and written to host[slot] (and to the host array `a`).
template <typename T>
inline void starc_gather(T* host, T* a, starc_scatter_staging& staging) {
  const std::vector<int>& slots = staging.host_slots;
  const long long count = static_cast<long long>(slots.size());
  if (count == 0) return;
  T* values = starc_staging_room<T>(staging.values, slots.size());
  const int* at = static_cast<const int*>(staging.slots.data);
  const T* device = static_cast<const T*>(acc_deviceptr(a));
#pragma acc parallel loop deviceptr(device, at, values)
  for (long long i = 0; i < count; ++i) values[i] = device[at[i]];
  std::vector<T> packed(slots.size());
  acc_memcpy_from_device(packed.data(), values, sizeof(T) * slots.size());
  for (long long i = 0; i < count; ++i) host[slots[i]] = a[slots[i]] = packed[i];
}

/// The staged moves applied to `a`, on the device (a gang per move, its span on the vector
/// lanes: every span copied into the scratch buffer, then each to its new slots, so that every
/// move reads the values from before the batch) and likewise to the host array, unless the
/// regions run on the host and the two are one (moving twice would be wrong).
template <typename T>
inline void starc_move(T* a, starc_scatter_staging& staging) {
  const int move_count = static_cast<int>(staging.host_moves.size() / 4), count = staging.moved;
  if (count == 0) return;
  T* device = static_cast<T*>(acc_deviceptr(a));
  if (device != a) {
    const int* at = staging.host_moves.data();
    staging.host_scratch.resize(sizeof(T) * static_cast<std::size_t>(count));
    T* scratch = reinterpret_cast<T*>(staging.host_scratch.data());
    for (int m = 0; m < move_count; ++m) std::copy_n(a + at[4 * m], at[4 * m + 2], scratch + at[4 * m + 3]);
    for (int m = 0; m < move_count; ++m) std::copy_n(scratch + at[4 * m + 3], at[4 * m + 2], a + at[4 * m + 1]);
  }
  T* scratch = starc_staging_room<T>(staging.scratch, static_cast<std::size_t>(count));
  const int* at = static_cast<const int*>(staging.moves.data);
#pragma acc parallel loop gang deviceptr(device, at, scratch)
  for (int m = 0; m < move_count; ++m) {
    const int from = at[4 * m], length = at[4 * m + 2], first = at[4 * m + 3];
#pragma acc loop vector
    for (int i = 0; i < length; ++i) scratch[first + i] = device[from + i];
  }
#pragma acc parallel loop gang deviceptr(device, at, scratch)
  for (int m = 0; m < move_count; ++m) {
    const int to = at[4 * m + 1], length = at[4 * m + 2], first = at[4 * m + 3];
#pragma acc loop vector
    for (int i = 0; i < length; ++i) device[to + i] = scratch[first + i];
  }
}

// --- the compiler's device atomics -----------------------------------------------------------
// OpenACC has no compare-and-swap, so the helpers below use the compiler's: GCC's __atomic
// builtins (g++ -fopenacc, on the host or offloaded to nvptx), or, under NVIDIA's nvc++, whose
// device code rejects those builtins, CUDA's atomicCAS/atomicMin/atomicMax/atomicExch and
// __threadfence (as Kokkos's desul does under __NVCOMPILER). -DSTARC_OPENACC_CUDA_ATOMICS
// selects CUDA's with another compiler that provides them.
#if defined(__NVCOMPILER) && !defined(STARC_OPENACC_CUDA_ATOMICS)
#define STARC_OPENACC_CUDA_ATOMICS 1
#endif

#if defined(STARC_OPENACC_CUDA_ATOMICS)
/// The bits of `value` as a `To` of the same size (atomicCAS exchanges floats as integers, so
/// that NaN and -0.0 compare as the bits they are).
#pragma acc routine seq
template <typename To, typename From>
inline To starc_bit_cast(From value) {
  static_assert(sizeof(To) == sizeof(From), "starc_bit_cast: sizes differ");
  To bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  return bits;
}
#endif

// --- atomics ----------------------------------------------------------------------------------
// starc_atomic_<op>_<type>(p, v) updates *p and returns the old value. Each operator keeps its
// own meaning: *= multiplies, &= ands, |= ors (StarPlat turned all of them into atomic adds).
//
// starc_compare_exchange_<type>(p, &expected, desired) stores desired in *p if *p holds
// expected (bit for bit) and returns true; otherwise it returns false and sets expected to the
// value it found. A helper without a native instruction retries it until no other thread
// wrote *p in between. Min/Max stop as soon as v does not improve *p (NaN never does): no
// write, no contention; the old value they return tells whether the update won.

#pragma acc routine seq
inline bool starc_compare_exchange_int(int* p, int* expected, int desired) {
#if defined(STARC_OPENACC_CUDA_ATOMICS)
  int old = *expected;
  int seen = atomicCAS(p, old, desired);
  *expected = seen;
  return seen == old;
#else
  return __atomic_compare_exchange(p, expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

// --- per-element locks ------------------------------------------------------------------------
// For Min/Max assignments whose secondary targets must come from the winning update. The
// generated code retries starc_lock_try in a loop whose holder always finishes its branch.

#pragma acc routine seq
inline bool starc_lock_try(int* lock) {
#if defined(STARC_OPENACC_CUDA_ATOMICS)
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();   // acquire: the protected reads and stores come after the lock is held
  return true;
#else
  int expected = 0;
  return __atomic_compare_exchange_n(lock, &expected, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
#endif
}

#pragma acc routine seq
inline void starc_lock_release(int* lock) {
#if defined(STARC_OPENACC_CUDA_ATOMICS)
  __threadfence();   // release: the protected stores are visible first
  atomicExch(lock, 0);
#else
  __atomic_store_n(lock, 0, __ATOMIC_RELEASE);   // the protected stores are visible first
#endif
}

// --- run-time checks (starc/analysis/checks.py) -------------------------------------------------
// On failure a helper records its site (numbered from 1) in *err unless an earlier failure did
// (first writer wins: compare-exchange from 0), stores the offending value, and returns a safe
// value (index 0, quotient 0) so the kernel finishes; the host reports the site's message and
// prints no results. Signed overflow wraps: INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
#pragma acc routine seq
inline void starc_raise(int* err, long long* err_value, int site, long long value) {
  int expected = 0;
  if (starc_compare_exchange_int(err, &expected, site)) *err_value = value;
}

#pragma acc routine seq
inline int starc_check_index(long long i, int limit, int* err, long long* err_value, int site) {
  if (i >= 0 && i < limit) return (int)i;
  starc_raise(err, err_value, site, i);
  return 0;
}

#pragma acc routine seq
inline int starc_div_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (int)((unsigned int)0 - (unsigned int)a) : a / b;
}

#pragma acc routine seq
inline int starc_mod_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

#pragma acc routine seq
inline long long starc_div_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (long long)((unsigned long long)0 - (unsigned long long)a) : a / b;
}

#pragma acc routine seq
inline long long starc_mod_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

// --- expressions --------------------------------------------------------------------------------

#pragma acc routine seq
template <typename T>
inline T starc_min(T a, T b) { return b < a ? b : a; }

#pragma acc routine seq
template <typename T>
inline T starc_max(T a, T b) { return a < b ? b : a; }

// --- graph queries ----------------------------------------------------------------------------
// Every CSR row is sorted by id, so an edge test is a binary search.

// Binary searches of a sorted run ids[begin, end) (a CSR row): the first position whose id is
// >= value (lower) / > value (upper), end if none. A neighbour loop filtered by u < c, u >= c
// ... iterates only the positions between such bounds.
#pragma acc routine seq
inline int starc_lower_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] < value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

#pragma acc routine seq
inline int starc_upper_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] <= value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

// The first edge u -> w (its CSR position, the lowest edge id), or -1.
#pragma acc routine seq
inline int starc_find_edge(const int* offsets, const int* targets, int u, int w) {
  int end = offsets[u + 1];
  int low = starc_lower_bound(targets, offsets[u], end, w);
  return low < end && targets[low] == w ? low : -1;
}

// starc_find_edge in rows with slack: row u is [starts[u], ends[u]), free slots after it.
#pragma acc routine seq
inline int starc_find_edge_in(const int* starts, const int* ends, const int* targets, int u, int w) {
  int end = ends[u];
  int low = starc_lower_bound(targets, starts[u], end, w);
  return low < end && targets[low] == w ? low : -1;
}

// find_edge for ascending w in the row [*cursor, end) of a sorted adjacency: moves *cursor to
// the first id >= w (galloping: cost log of the distance moved) and returns that position
// if it holds w, else -1. Every id before *cursor must be < w.
#pragma acc routine seq
inline int starc_gallop(const int* ids, int* cursor, int end, int w) {
  int pos = *cursor;
  if (pos < end && ids[pos] < w) {
    // ids[pos] < w: probe ahead in doubling steps (1, 2, 4, ...) until an id >= w or the
    // end, then binary-search the last step.
    int step = 1;
    int next = pos + 1;
    while (next < end && ids[next] < w) {
      pos = next;
      if (step <= (end - pos) / 2) step *= 2;
      next = end - pos > step ? pos + step : end;
    }
    pos = starc_lower_bound(ids, pos + 1, next, w);
    *cursor = pos;
  }
  return pos < end && ids[pos] == w ? pos : -1;
}

// --- program options ------------------------------------------------------------------------

/// The OpenACC compiler and runtime choose gangs and vector lengths (ACC_DEVICE_TYPE and
/// ACC_DEVICE_NUM choose the device): --device and --block-size are usage errors here.
inline void starc_openacc_options(const starc::CommandLine& cl) {
  std::string flag = cl.first_device_flag();
  if (!flag.empty())
    throw starc::UsageError("unknown option '" + flag + "' (OpenACC programs take the "
                            "device from ACC_DEVICE_TYPE and ACC_DEVICE_NUM)");
}

#endif  // STARC_OPENACC_HPP
