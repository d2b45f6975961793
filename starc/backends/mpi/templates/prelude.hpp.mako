## starc_mpi_kernels.hpp, written next to every generated MPI program (rendered by
## mpi/kernels.py; the shared blocks come from common/templates/device_helpers.mako).
// starc MPI kernel helpers: what the OpenMP loops of starc-generated MPI programs call.
//
// Included after starc_runtime.hpp by every generated MPI program; generated next to it so
// the output folder builds on its own. Helper names are those of the CUDA, SYCL, OpenCL and
// OpenACC preludes (starc_atomic_min_float, starc_lock_try, ...), so kernels read the same
// everywhere. They act on the rank's own replicas; the superstep exchanges what they wrote.
//   starc_atomic_<op>_<type>                op in add sub mul and or min max; type in int
//                                           long float double; returns the old value
//                                           (`omp atomic capture`; min/max by CAS loops)
//   starc_atomic_update_<op>_<type>         the same without the old value (`omp atomic update`)
//   starc_lock_try / starc_lock_release     per-element spin locks (Min/Max with secondaries)
//   starc_find_edge                         binary search in a sorted CSR row
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                            find_edge for ascending w, by a cursor moving forward
//   starc_min / starc_max                   Min/Max as expressions
//   starc_chunk                             a kernel loop's chunk of items (OpenMP dynamic)
#ifndef STARC_MPI_KERNELS_HPP
#define STARC_MPI_KERNELS_HPP

#include <algorithm>
#include <cfloat>
#include <climits>

#include <omp.h>

#include "starc_runtime.hpp"

${atomic_helpers}

// --- the loops' chunks ------------------------------------------------------------------------

/// The chunk of a kernel's schedule(dynamic) over the items [lo, hi). With one thread there
/// is nothing to balance and each chunk is only a call into the OpenMP runtime, so the whole
/// range is one chunk: a BFS on a mesh runs a kernel over every own vertex each level, and a
/// 512 x 512 grid's 1,022 levels took 161-167 ms on one rank in chunks of 64, 110-112 ms in
/// one. With threads, 64: a vertex's work is its degree, which varies by orders of magnitude
/// (tc on R-MAT 18, 1 rank x 2 threads: 1.62-1.66 s in chunks of 64, 2.08-2.19 s in 2,048).
inline int starc_chunk(int lo, int hi) {
  return omp_get_max_threads() == 1 ? std::max(64, hi - lo) : 64;
}

// --- per-element locks ------------------------------------------------------------------------
// For Min/Max assignments whose secondary targets must come from the winning update. The
// generated code retries starc_lock_try in a loop whose holder always finishes its branch.

inline bool starc_lock_try(int* lock) {
  int expected = 0;
  return __atomic_compare_exchange_n(lock, &expected, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

inline void starc_lock_release(int* lock) {
  __atomic_store_n(lock, 0, __ATOMIC_RELEASE);   // the protected stores are visible first
}

${run_time_checks}

// --- expressions --------------------------------------------------------------------------------

template <typename T>
inline T starc_min(T a, T b) { return b < a ? b : a; }

template <typename T>
inline T starc_max(T a, T b) { return a < b ? b : a; }

${graph_queries}

#endif  // STARC_MPI_KERNELS_HPP
