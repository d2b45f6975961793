// starc SYCL runtime: the device-side helpers and host operations of starc-generated SYCL.
//
// Included after starc_runtime.hpp by every generated SYCL program; generated next to it so the
// output folder builds on its own. Portable SYCL 2020 only (no vendor extensions): the same
// program builds with acpp, icpx -fsycl and clang++ -fsycl. Helper names are those of the
// CUDA and OpenCL preludes (starc_atomic_min_float, starc_lock_try, starc_find_edge, ...), so
// kernels read the same on every backend.
//   starc_make_queue(device, where)         the in-order queue for --device cpu|gpu|default
//   starc_parallel_for(q, where, count, block, kernel, reductions...)
//                                           one kernel: range<1>, or nd_range<1> of work-groups
//                                           of `block` items when --block-size is given
//   starc_malloc / starc_free / starc_copy_to_device / starc_copy_to_host / starc_fill /
//   starc_copy / starc_read_element / starc_write_element / starc_finish
//                                           host-side array operations; each reports a
//                                           sycl::exception as "error: <what> at <prog.sp>:<line>"
//                                           and exits with status 3
//   starc_atomic_<op>_<type>                op in add sub mul and or min max; type in int
//                                           long float double (sycl::atomic_ref, relaxed);
//                                           returns the old value (min/max by CAS loops)
//   starc_atomic_update_<min|max>_<type>    fetch_min/fetch_max whose result is not used
//   starc_lock_try / starc_lock_release     per-element spin locks (Min/Max with secondaries)
//   starc_find_edge                         binary search in a sorted CSR row
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                            find_edge for ascending w, by a cursor moving forward
#ifndef STARC_SYCL_HPP
#define STARC_SYCL_HPP

#include <sycl/sycl.hpp>

#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "starc_runtime.hpp"

// --- errors ----------------------------------------------------------------------------------------

/// Reports a failed SYCL operation at DSL location `where` ("prog.sp:12") and exits with status 3.
[[noreturn]] inline void starc_sycl_fail(const char* what, const char* where) {
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s at %s\n", what, where);
  std::exit(3);
}

/// Runs `operation()`; a sycl::exception it throws is reported at `where` (exit status 3).
template <class F>
inline auto starc_at(const char* where, F&& operation) -> decltype(operation()) {
  try {
    return std::forward<F>(operation)();
  } catch (const sycl::exception& error) {
    starc_sycl_fail(error.what(), where);
  }
}

// --- the queue -------------------------------------------------------------------------------------

/// The in-order queue on the device named by --device: "cpu", "gpu" or "default".
inline sycl::queue starc_make_queue(const std::string& device, const char* where) {
  const sycl::property_list in_order{sycl::property::queue::in_order{}};
  try {
    if (device == "cpu") return sycl::queue(sycl::cpu_selector_v, in_order);
    if (device == "gpu") return sycl::queue(sycl::gpu_selector_v, in_order);
    if (device == "default") return sycl::queue(sycl::default_selector_v, in_order);
  } catch (const sycl::exception& error) {
    std::string what = "no usable SYCL device for --device " + device + " (" + error.what() + ")";
    starc_sycl_fail(what.c_str(), where);
  }
  throw starc::UsageError("--device expects cpu, gpu or default, got '" + device + "'");
}

/// The --block-size option, else `fallback` (starc's --block-size when the program was
/// generated; 0 lets the SYCL runtime choose the work-group size). A power of two only:
/// other sizes break sycl::reduction on AdaptiveCpp.
inline std::size_t starc_block_size(const starc::CommandLine& cl, std::size_t fallback) {
  bool given = false;
  for (std::size_t k = 0; k + 1 < cl.extra.size(); k += 2) given = given || cl.extra[k] == "--block-size";
  if (!given) return fallback;
  std::string text = cl.get_extra("block-size", "");
  long long value = 0;
  if (!starc::detail::parse_full_integer(text, value) || value < 1 || value > 65536 || (value & (value - 1)) != 0)
    throw starc::UsageError("--block-size expects a power of two from 1 to 65536 (the work-group size), got '" +
                            text + "'");
  return static_cast<std::size_t>(value);
}

// --- kernels ---------------------------------------------------------------------------------------

/// Runs kernel(i, reducers...) for every i in [0, count): over range<1>(count), or, when `block`
/// is non-zero, over an nd_range<1> of work-groups of `block` items with the global size
/// rounded up (the extra items return at once). Returns without waiting (in-order queue).
/// Without reductions the SYCL kernel takes only its index (no generic lambda).
template <class Kernel, class... Reductions>
inline void starc_parallel_for(sycl::queue& q, const char* where, std::size_t count, std::size_t block,
                               const Kernel& kernel, Reductions... reductions) {
  if (count == 0) return;  // nothing to do: every reduction keeps its value
  starc_at(where, [&] {
    if (block == 0) {
      if constexpr (sizeof...(Reductions) == 0) {
        q.parallel_for(sycl::range<1>(count), [=](sycl::item<1> item) { kernel(static_cast<int>(item.get_id(0))); });
      } else {
        q.parallel_for(sycl::range<1>(count), reductions..., [=](sycl::item<1> item, auto&... reducers) {
          kernel(static_cast<int>(item.get_id(0)), reducers...);
        });
      }
    } else {
      const sycl::nd_range<1> groups(sycl::range<1>((count + block - 1) / block * block), sycl::range<1>(block));
      if constexpr (sizeof...(Reductions) == 0) {
        q.parallel_for(groups, [=](sycl::nd_item<1> item) {
          std::size_t i = item.get_global_id(0);
          if (i >= count) return;
          kernel(static_cast<int>(i));
        });
      } else {
        q.parallel_for(groups, reductions..., [=](sycl::nd_item<1> item, auto&... reducers) {
          std::size_t i = item.get_global_id(0);
          if (i >= count) return;
          kernel(static_cast<int>(i), reducers...);
        });
      }
    }
  });
}

// --- host-side array operations ----------------------------------------------------------------------

/// A device array of `count` elements (at least one, so that empty graphs still get a pointer).
template <class T>
inline T* starc_malloc(sycl::queue& q, std::size_t count, const char* name, const char* where) {
  T* data = starc_at(where, [&] { return sycl::malloc_device<T>(count > 0 ? count : 1, q); });
  if (data == nullptr) {
    std::string what = std::string("cannot allocate ") + std::to_string(count) + " elements of " + name +
                       " on the device (out of device memory)";
    starc_sycl_fail(what.c_str(), where);
  }
  return data;
}

template <class T>
inline void starc_free(sycl::queue& q, T* data, const char* where) {
  starc_at(where, [&] { sycl::free(data, q); });
}

template <class T>
inline void starc_copy_to_device(sycl::queue& q, T* device, const T* host, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_at(where, [&] { q.copy(host, device, count); });
}

template <class T>
inline void starc_copy_to_host(sycl::queue& q, T* host, const T* device, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_at(where, [&] { q.copy(device, host, count).wait(); });
}

template <class T>
inline void starc_fill(sycl::queue& q, T* data, T value, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_at(where, [&] { q.fill(data, value, count); });
}

/// dst[0..count) = src[0..count) on the device.
template <class T>
inline void starc_copy(sycl::queue& q, T* dst, const T* src, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_at(where, [&] { q.copy(src, dst, count); });
}

/// One element read back to the host (waits for the work before it).
template <class T>
inline T starc_read_element(sycl::queue& q, const T* data, std::size_t index, const char* where) {
  T value;
  starc_at(where, [&] { q.copy(data + index, &value, 1).wait(); });
  return value;
}

/// One element written from the host (the value is copied before the call returns).
template <class T>
inline void starc_write_element(sycl::queue& q, T* data, std::size_t index, T value, const char* where) {
  starc_at(where, [&] { q.copy(&value, data + index, 1).wait(); });
}

/// Waits for all submitted work and reports any error it raised.
inline void starc_finish(sycl::queue& q, const char* where) {
  starc_at(where, [&] { q.wait_and_throw(); });
}

// --- atomics ---------------------------------------------------------------------------------------
// Every starc_atomic_<op>_<type> helper returns the old value. sycl::atomic_ref has add/sub for
// integers and floating types and and/or for integers; *= is a compare-and-swap loop. Each
// operator keeps its own meaning: *= multiplies, &= ands, |= ors.
//
// Min and max are compare-and-swap loops too, because their old value decides "this update
// won" (Min/Max assignments with secondary targets), and atomic_ref::fetch_min/fetch_max do not
// reliably return it: AdaptiveCpp 24.06 returns the *new* value for floats on every target and
// for integers with --acpp-targets=omp. Where the result is unused the generator calls
// starc_atomic_update_<min|max>_<type> instead, a plain fetch_min/fetch_max returning nothing.

template <class T>
using starc_atomic = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device,
                                      sycl::access::address_space::global_space>;

/// Atomic min (Less = true) or max of *p and v by compare-and-swap; returns the old value.
/// The loop stops as soon as v does not improve the stored value (NaN never does).
template <bool Less, class T>
inline T starc_atomic_minmax(T* p, T v) {
  starc_atomic<T> ref(*p);
  T old = ref.load();
  while ((Less ? v < old : old < v) && !ref.compare_exchange_strong(old, v)) {
  }
  return old;
}

template <class T>
inline T starc_atomic_mul(T* p, T v) {
  starc_atomic<T> ref(*p);
  T old = ref.load();
  while (!ref.compare_exchange_strong(old, static_cast<T>(old * v))) {
  }
  return old;
}

inline int starc_atomic_add_int(int* p, int v) { return starc_atomic<int>(*p).fetch_add(v); }
inline int starc_atomic_sub_int(int* p, int v) { return starc_atomic<int>(*p).fetch_sub(v); }
inline int starc_atomic_and_int(int* p, int v) { return starc_atomic<int>(*p).fetch_and(v); }
inline int starc_atomic_or_int(int* p, int v) { return starc_atomic<int>(*p).fetch_or(v); }
inline int starc_atomic_min_int(int* p, int v) { return starc_atomic_minmax<true>(p, v); }
inline void starc_atomic_update_min_int(int* p, int v) { starc_atomic<int>(*p).fetch_min(v); }
inline int starc_atomic_max_int(int* p, int v) { return starc_atomic_minmax<false>(p, v); }
inline void starc_atomic_update_max_int(int* p, int v) { starc_atomic<int>(*p).fetch_max(v); }
inline int starc_atomic_mul_int(int* p, int v) {
  // Multiply as unsigned: wraps like two's complement without signed-overflow UB.
  starc_atomic<int> ref(*p);
  int old = ref.load();
  while (!ref.compare_exchange_strong(
      old, static_cast<int>(static_cast<unsigned>(old) * static_cast<unsigned>(v)))) {
  }
  return old;
}

inline long long starc_atomic_add_long(long long* p, long long v) { return starc_atomic<long long>(*p).fetch_add(v); }
inline long long starc_atomic_sub_long(long long* p, long long v) { return starc_atomic<long long>(*p).fetch_sub(v); }
inline long long starc_atomic_and_long(long long* p, long long v) { return starc_atomic<long long>(*p).fetch_and(v); }
inline long long starc_atomic_or_long(long long* p, long long v) { return starc_atomic<long long>(*p).fetch_or(v); }
inline long long starc_atomic_min_long(long long* p, long long v) { return starc_atomic_minmax<true>(p, v); }
inline void starc_atomic_update_min_long(long long* p, long long v) { starc_atomic<long long>(*p).fetch_min(v); }
inline long long starc_atomic_max_long(long long* p, long long v) { return starc_atomic_minmax<false>(p, v); }
inline void starc_atomic_update_max_long(long long* p, long long v) { starc_atomic<long long>(*p).fetch_max(v); }
inline long long starc_atomic_mul_long(long long* p, long long v) {
  starc_atomic<long long> ref(*p);
  long long old = ref.load();
  while (!ref.compare_exchange_strong(
      old, static_cast<long long>(static_cast<unsigned long long>(old) * static_cast<unsigned long long>(v)))) {
  }
  return old;
}

inline float starc_atomic_add_float(float* p, float v) { return starc_atomic<float>(*p).fetch_add(v); }
inline float starc_atomic_sub_float(float* p, float v) { return starc_atomic<float>(*p).fetch_sub(v); }
inline float starc_atomic_min_float(float* p, float v) { return starc_atomic_minmax<true>(p, v); }
inline void starc_atomic_update_min_float(float* p, float v) { starc_atomic<float>(*p).fetch_min(v); }
inline float starc_atomic_max_float(float* p, float v) { return starc_atomic_minmax<false>(p, v); }
inline void starc_atomic_update_max_float(float* p, float v) { starc_atomic<float>(*p).fetch_max(v); }
inline float starc_atomic_mul_float(float* p, float v) { return starc_atomic_mul<float>(p, v); }

inline double starc_atomic_add_double(double* p, double v) { return starc_atomic<double>(*p).fetch_add(v); }
inline double starc_atomic_sub_double(double* p, double v) { return starc_atomic<double>(*p).fetch_sub(v); }
inline double starc_atomic_min_double(double* p, double v) { return starc_atomic_minmax<true>(p, v); }
inline void starc_atomic_update_min_double(double* p, double v) { starc_atomic<double>(*p).fetch_min(v); }
inline double starc_atomic_max_double(double* p, double v) { return starc_atomic_minmax<false>(p, v); }
inline void starc_atomic_update_max_double(double* p, double v) { starc_atomic<double>(*p).fetch_max(v); }
inline double starc_atomic_mul_double(double* p, double v) { return starc_atomic_mul<double>(p, v); }

// --- per-element locks ---------------------------------------------------------------------------
// For Min/Max assignments whose secondary targets must come from the winning update. The lock
// word is acquired and released with acq_rel ordering, so the protected stores are visible to
// the next holder.

using starc_lock_ref = sycl::atomic_ref<int, sycl::memory_order::acq_rel, sycl::memory_scope::device,
                                        sycl::access::address_space::global_space>;

inline bool starc_lock_try(int* lock) {
  int expected = 0;
  return starc_lock_ref(*lock).compare_exchange_strong(expected, 1);
}

inline void starc_lock_release(int* lock) { starc_lock_ref(*lock).store(0); }

// --- run-time checks (starc/analysis/checks.py) -------------------------------------------------
// On failure a helper records its site (numbered from 1) in *err unless an earlier failure did
// (first writer wins: compare-exchange from 0), stores the offending value, and returns a safe
// value (index 0, quotient 0) so the kernel finishes; the host reports the site's message and
// prints no results. Signed overflow wraps: INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
using starc_error_ref = sycl::atomic_ref<int, sycl::memory_order::relaxed,
                                         sycl::memory_scope::device,
                                         sycl::access::address_space::global_space>;

inline void starc_raise(int* err, long long* err_value, int site, long long value) {
  int expected = 0;
  if (starc_error_ref(*err).compare_exchange_strong(expected, site)) *err_value = value;
}

inline int starc_check_index(long long i, int limit, int* err, long long* err_value, int site) {
  if (i >= 0 && i < limit) return (int)i;
  starc_raise(err, err_value, site, i);
  return 0;
}

inline int starc_div_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (int)(0u - (unsigned)a) : a / b;
}

inline int starc_mod_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

inline long long starc_div_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (long long)((unsigned long long)0 - (unsigned long long)a) : a / b;
}

inline long long starc_mod_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

// --- graph queries -------------------------------------------------------------------------------
// Rows of the CSR are sorted by target (starc_graph.hpp), so an edge test is a binary search.

/// The first position of the sorted run ids[begin, end) whose id is >= value (lower) /
/// > value (upper), end if none.
inline int starc_lower_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] < value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

inline int starc_upper_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] <= value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

/// The first edge u->w (its CSR position), or -1.
inline int starc_find_edge(const int* offsets, const int* targets, int u, int w) {
  int end = offsets[u + 1];
  int low = starc_lower_bound(targets, offsets[u], end, w);
  return low < end && targets[low] == w ? low : -1;
}

/// find_edge for ascending w in the row [*cursor, end) of a sorted adjacency: moves *cursor to
/// the first id >= w (galloping: cost log of the distance moved) and returns that position
/// if it holds w, else -1. Every id before *cursor must be < w.
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

#endif  // STARC_SYCL_HPP
