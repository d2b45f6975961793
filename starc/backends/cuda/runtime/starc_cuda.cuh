// starc CUDA runtime: the device-side helpers of starc-generated CUDA programs.
//
// Included after starc_runtime.hpp by every generated .cu file; generated next to it so the
// output folder builds on its own. Helper names are those of the OpenCL and SYCL preludes
// (starc_atomic_min_float, starc_lock_try, ...), so kernels read the same everywhere.
//   STARC_CUDA_CHECK(call, where)   every CUDA API call: on failure print
//                                   "error: <call> failed at <prog.sp>:<line>: <reason>", exit 3
//   starc_launch_check(kernel, where)   after every launch (cudaGetLastError)
//   starc_fill / starc_read_element / starc_write_element   host-side array operations
//   starc_atomic_<op>_<type>        op in add sub mul and or min max; type in int long float double
//   starc_lock_try / starc_lock_release        per-element locks (Min/Max with secondaries)
//   starc_find_edge                 binary search in a sorted CSR row (host and device)
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                    find_edge for ascending w, by a cursor moving forward
//   starc_min / starc_max           Min/Max as expressions
//   starc_block_size, starc_elapsed_seconds     the --block-size option, --time events
// Define STARC_CUDA_SYNC_LAUNCHES to synchronise after every launch (pins down which launch
// faulted, at some speed cost).
#ifndef STARC_CUDA_CUH
#define STARC_CUDA_CUH

#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "starc_runtime.hpp"

// --- error checking ----------------------------------------------------------------------------

/// Exits with status 3 after a failed CUDA call; `where` is the DSL location "prog.sp:12".
inline void starc_cuda_check(cudaError_t status, const char* call, const char* where) {
  if (status == cudaSuccess) return;
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s failed at %s: %s\n", call, where, cudaGetErrorString(status));
  std::exit(3);
}

#define STARC_CUDA_CHECK(call, where) starc_cuda_check((call), #call, (where))

/// Checks a kernel launch (configuration errors now; faults at the next synchronising call).
inline void starc_launch_check(const char* kernel, const char* where) {
  cudaError_t status = cudaGetLastError();
#ifdef STARC_CUDA_SYNC_LAUNCHES
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
#endif
  if (status == cudaSuccess) return;
  std::fflush(stdout);
  std::fprintf(stderr, "error: launch of %s failed at %s: %s\n", kernel, where, cudaGetErrorString(status));
  std::exit(3);
}

/// Blocks of `block` threads covering `count` work items (at least one block).
inline unsigned starc_grid(long long count, int block) {
  long long blocks = (count + block - 1) / block;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

// --- host-side array operations -----------------------------------------------------------------

template <typename T>
__global__ void starc_fill_kernel(T* data, T value, long long count) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) data[i] = value;
}

/// Sets data[0..count) to value on the device.
template <typename T, typename V>
inline void starc_fill(T* data, V value, long long count, int block, const char* where) {
  if (count <= 0) return;
  starc_fill_kernel<T><<<starc_grid(count, block), block>>>(data, static_cast<T>(value), count);
  starc_launch_check("starc_fill_kernel", where);
}

/// One element read back to the host (cudaMemcpy waits for the kernels before it).
template <typename T>
inline T starc_read_element(const T* data, long long index, const char* where) {
  T value;
  starc_cuda_check(cudaMemcpy(&value, data + index, sizeof(T), cudaMemcpyDeviceToHost),
                   "cudaMemcpy (read one element)", where);
  return value;
}

/// One element written from the host.
template <typename T, typename V>
inline void starc_write_element(T* data, long long index, V value, const char* where) {
  T stored = static_cast<T>(value);
  starc_cuda_check(cudaMemcpy(data + index, &stored, sizeof(T), cudaMemcpyHostToDevice),
                   "cudaMemcpy (write one element)", where);
}

// --- atomics ------------------------------------------------------------------------------------
// Every helper returns the old value. Native instructions where CUDA has them; the rest are
// compare-and-swap loops on the bit pattern. Each operator keeps its own meaning: *= multiplies,
// &= ands, |= ors (StarPlat turned all of them into atomicAdd).

__device__ inline int starc_atomic_add_int(int* p, int v) { return atomicAdd(p, v); }
__device__ inline int starc_atomic_sub_int(int* p, int v) { return atomicSub(p, v); }
__device__ inline int starc_atomic_and_int(int* p, int v) { return atomicAnd(p, v); }
__device__ inline int starc_atomic_or_int(int* p, int v) { return atomicOr(p, v); }
__device__ inline int starc_atomic_min_int(int* p, int v) { return atomicMin(p, v); }
__device__ inline int starc_atomic_max_int(int* p, int v) { return atomicMax(p, v); }
__device__ inline int starc_atomic_mul_int(int* p, int v) {
  int old = *p, assumed;
  do {
    assumed = old;
    // Multiply as unsigned: wraps like two's complement without signed-overflow UB.
    old = atomicCAS(p, assumed, static_cast<int>(static_cast<unsigned>(assumed) * static_cast<unsigned>(v)));
  } while (old != assumed);
  return old;
}

// 64-bit integers: CUDA's add/and/or take unsigned long long (same bits for two's complement);
// signed min/max on long long are native from sm_35.
__device__ inline unsigned long long* starc_as_ull(long long* p) { return reinterpret_cast<unsigned long long*>(p); }
__device__ inline long long starc_atomic_add_long(long long* p, long long v) {
  return static_cast<long long>(atomicAdd(starc_as_ull(p), static_cast<unsigned long long>(v)));
}
__device__ inline long long starc_atomic_sub_long(long long* p, long long v) {
  return static_cast<long long>(atomicAdd(starc_as_ull(p), 0ULL - static_cast<unsigned long long>(v)));
}
__device__ inline long long starc_atomic_and_long(long long* p, long long v) {
  return static_cast<long long>(atomicAnd(starc_as_ull(p), static_cast<unsigned long long>(v)));
}
__device__ inline long long starc_atomic_or_long(long long* p, long long v) {
  return static_cast<long long>(atomicOr(starc_as_ull(p), static_cast<unsigned long long>(v)));
}
__device__ inline long long starc_atomic_min_long(long long* p, long long v) { return atomicMin(p, v); }
__device__ inline long long starc_atomic_max_long(long long* p, long long v) { return atomicMax(p, v); }
__device__ inline long long starc_atomic_mul_long(long long* p, long long v) {
  unsigned long long* bits = starc_as_ull(p);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, assumed * static_cast<unsigned long long>(v));
  } while (old != assumed);
  return static_cast<long long>(old);
}

// float: add is native; the rest loop on the 32-bit pattern.
__device__ inline float starc_atomic_add_float(float* p, float v) { return atomicAdd(p, v); }
__device__ inline float starc_atomic_sub_float(float* p, float v) { return atomicAdd(p, -v); }
__device__ inline float starc_atomic_mul_float(float* p, float v) {
  int* bits = reinterpret_cast<int*>(p);
  int old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(__int_as_float(assumed) * v));
  } while (old != assumed);
  return __int_as_float(old);
}
__device__ inline float starc_atomic_min_float(float* p, float v) {
  int* bits = reinterpret_cast<int*>(p);
  int old = *bits, assumed;
  // Stop as soon as the stored value is no larger: no write, no contention.
  while (v < __int_as_float(old)) {
    assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(v));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}
__device__ inline float starc_atomic_max_float(float* p, float v) {
  int* bits = reinterpret_cast<int*>(p);
  int old = *bits, assumed;
  while (v > __int_as_float(old)) {
    assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(v));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

// double: add is native from sm_60 (every architecture CUDA 12+ targets); the rest loop on the
// 64-bit pattern.
__device__ inline double starc_atomic_add_double(double* p, double v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
  } while (old != assumed);
  return __longlong_as_double(old);
#else
  return atomicAdd(p, v);
#endif
}
__device__ inline double starc_atomic_sub_double(double* p, double v) { return starc_atomic_add_double(p, -v); }
__device__ inline double starc_atomic_mul_double(double* p, double v) {
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, static_cast<unsigned long long>(__double_as_longlong(__longlong_as_double(static_cast<long long>(assumed)) * v)));
  } while (old != assumed);
  return __longlong_as_double(static_cast<long long>(old));
}
__device__ inline double starc_atomic_min_double(double* p, double v) {
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, assumed;
  while (v < __longlong_as_double(static_cast<long long>(old))) {
    assumed = old;
    old = atomicCAS(bits, assumed, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (old == assumed) break;
  }
  return __longlong_as_double(static_cast<long long>(old));
}
__device__ inline double starc_atomic_max_double(double* p, double v) {
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, assumed;
  while (v > __longlong_as_double(static_cast<long long>(old))) {
    assumed = old;
    old = atomicCAS(bits, assumed, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (old == assumed) break;
  }
  return __longlong_as_double(static_cast<long long>(old));
}

// --- per-element locks --------------------------------------------------------------------------
// For Min/Max assignments whose secondary targets must come from the winning update. The
// generated code retries starc_lock_try in a loop whose holder always finishes its branch, so
// threads of one warp cannot starve each other.

__device__ inline bool starc_lock_try(int* lock) {
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();  // acquire: see the stores of the previous holder
  return true;
}

__device__ inline void starc_lock_release(int* lock) {
  __threadfence();  // release: the protected stores are visible before the lock is free
  atomicExch(lock, 0);
}

// --- run-time checks (starc/analysis/checks.py) -------------------------------------------------
// On failure a helper records its site (numbered from 1) in *err unless an earlier failure did
// (first writer wins: compare-exchange from 0), stores the offending value, and returns a safe
// value (index 0, quotient 0) so the kernel finishes; the host reports the site's message and
// prints no results. Signed overflow wraps: INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
__device__ inline void starc_raise(int* err, long long* err_value, int site, long long value) {
  if (atomicCAS(err, 0, site) == 0) *err_value = value;
}

__device__ inline int starc_check_index(long long i, int limit, int* err, long long* err_value, int site) {
  if (i >= 0 && i < limit) return (int)i;
  starc_raise(err, err_value, site, i);
  return 0;
}

__device__ inline int starc_div_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (int)(0u - (unsigned)a) : a / b;
}

__device__ inline int starc_mod_int(int a, int b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

__device__ inline long long starc_div_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? (long long)((unsigned long long)0 - (unsigned long long)a) : a / b;
}

__device__ inline long long starc_mod_long(long long a, long long b, int* err, long long* err_value, int site) {
  if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
  return b == -1 ? 0 : a % b;
}

// --- expressions and graph queries ------------------------------------------------------------

template <typename T>
__host__ __device__ inline T starc_min(T a, T b) { return b < a ? b : a; }

template <typename T>
__host__ __device__ inline T starc_max(T a, T b) { return a < b ? b : a; }

/// Binary searches of a sorted run ids[begin, end) (a CSR row: rows are sorted by id,
/// starc_graph.hpp): the first position whose id is >= value (lower) / > value (upper), end
/// if none. Host and device.
__host__ __device__ inline int starc_lower_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] < value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

__host__ __device__ inline int starc_upper_bound(const int* ids, int begin, int end, int value) {
  while (begin < end) {
    int mid = begin + (end - begin) / 2;
    if (ids[mid] <= value) begin = mid + 1;
    else end = mid;
  }
  return begin;
}

/// The first edge u->w (the lowest CSR position), or -1. Host and device.
__host__ __device__ inline int starc_find_edge(const int* offsets, const int* targets, int u, int w) {
  int end = offsets[u + 1];
  int low = starc_lower_bound(targets, offsets[u], end, w);
  return low < end && targets[low] == w ? low : -1;
}

/// find_edge for ascending w in the row [*cursor, end) of a sorted adjacency: moves *cursor to
/// the first id >= w (galloping: cost log of the distance moved) and returns that position
/// if it holds w, else -1. Every id before *cursor must be < w.
__host__ __device__ inline int starc_gallop(const int* ids, int* cursor, int end, int w) {
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

// --- program options and timing -------------------------------------------------------------

/// --block-size N (threads per block, 1..1024; default `fallback`). Any other option the
/// program does not declare is a usage error.
inline int starc_block_size(const starc::CommandLine& cl, int fallback) {
  for (size_t k = 0; k + 1 < cl.extra.size(); k += 2)
    if (cl.extra[k] != "--block-size") throw starc::UsageError("unknown option '" + cl.extra[k] + "'");
  std::string text = cl.get_extra("block-size", std::to_string(fallback));
  char* stop = nullptr;
  long value = std::strtol(text.c_str(), &stop, 10);
  if (text.empty() || *stop != '\0' || value < 1 || value > 1024)
    throw starc::UsageError("--block-size expects a number of threads from 1 to 1024, got '" + text + "'");
  return static_cast<int>(value);
}

/// Seconds between two recorded events (waits for `stop`).
inline double starc_elapsed_seconds(cudaEvent_t start, cudaEvent_t stop, const char* where) {
  STARC_CUDA_CHECK(cudaEventSynchronize(stop), where);
  float milliseconds = 0;
  STARC_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start, stop), where);
  return milliseconds / 1000.0;
}

#endif  // STARC_CUDA_CUH
