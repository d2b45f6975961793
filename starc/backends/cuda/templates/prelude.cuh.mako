## starc_cuda.cuh, written next to every generated .cu file (rendered by cuda/emitter.py;
## the shared blocks come from common/templates/device_helpers.mako).
// starc CUDA runtime: the device-side helpers of starc-generated CUDA programs.
//
// Included after starc_runtime.hpp by every generated .cu file; generated next to it so the
// output folder builds on its own. Helper names are those of the OpenCL and SYCL preludes
// (starc_atomic_min_float, starc_lock_try, ...), so kernels read the same everywhere.
//   STARC_CUDA_CHECK(call, where)   every CUDA API call: on failure print
//                                   "error: <call> failed at <prog.sp>:<line>: <reason>", exit 3
//   starc_cuda_context(where)       the context, before the clock; no usable GPU: exit 1
//   starc_launch_check(kernel, where)   after every launch (cudaGetLastError)
//   starc_fill / starc_read_element / starc_write_element   host-side array operations
//   starc_stage_slots / starc_scatter / starc_gather   a batch's changed slots of rows with
//                                   slack, packed and scattered, or gathered and read back
//   starc_stage_moves / starc_move  a batch's moves applied on the device (span moves)
//   starc_atomic_<op>_<type>        op in add sub mul and or min max; type in int long float double
//                                   (the families the program's kernels use)
//   starc_lock_try / starc_lock_release        per-element locks (Min/Max with secondaries)
//   starc_warp_reduce(value, op)    combine the privates of the threads that reach it together
//                                   (one atomic per warp group instead of one per thread)
//   starc_warp_append(length)       a worklist append's slot: one atomic per warp, not per thread
//   starc_warp_count(length)        *length += 1 per thread, one atomic per warp
//   starc_find_edge                 binary search in a sorted CSR row (host and device)
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                    find_edge for ascending w, by a cursor moving forward
//   starc_min / starc_max           Min/Max as expressions
//   starc_block_size                the --block-size option
//   starc_load_kernels(where, kernels...)   load every kernel before the timer starts
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
#include <vector>

#include "starc_runtime.hpp"
% if group_combine:

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
% endif

// --- error checking ----------------------------------------------------------------------------

/// Exits with status 3 after a failed CUDA call; `where` is the DSL location "prog.sp:12".
inline void starc_cuda_check(cudaError_t status, const char* call, const char* where) {
  if (status == cudaSuccess) return;
  std::fflush(stdout);
  std::fprintf(stderr, "error: %s failed at %s: %s\n", call, where, cudaGetErrorString(status));
  std::exit(3);
}

#define STARC_CUDA_CHECK(call, where) starc_cuda_check((call), #call, (where))

/// Creates the CUDA context (cudaFree(nullptr)) before the timed region. A machine without a
/// usable GPU or driver is not a fault of the program: a starc::DeviceError (exit status 1).
inline void starc_cuda_context(const char* where) {
  cudaError_t status = cudaFree(nullptr);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
      status == cudaErrorDevicesUnavailable)
    throw starc::DeviceError(std::string("no usable CUDA device here: ") + cudaGetErrorString(status));
  starc_cuda_check(status, "cudaFree(nullptr)", where);
}

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

/// One element written from the host, in stream order without waiting for the device: a
/// one-item fill, whose value travels with the launch. cudaMemcpy from pageable memory would
/// first wait for every kernel before it, once per write (a BFS level resets two counters).
template <typename T, typename V>
inline void starc_write_element(T* data, long long index, V value, const char* where) {
  starc_fill_kernel<T><<<1, 1>>>(data + index, static_cast<T>(value), 1);
  starc_launch_check("starc_fill_kernel (write one element)", where);
}

// --- a batch's changed slots of rows with slack -------------------------------------------------

/// The slots a batch wrote (or its moves read) in rows with slack, on the device, for
/// starc_scatter / starc_gather, and its moves, for starc_move: their ids and records, room for
/// one array's packed values and for the moved spans' scratch copy. Kept across the batches:
/// each buffer grows (by half again at least) only when a batch needs more than it holds.
struct starc_scatter_staging {
  struct buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  buffer slots, values, moves, scratch;
  int move_count = 0, moved = 0;
  std::vector<int> host_slots;
  std::vector<unsigned char> packed;   // the host side of `values`
  starc_scatter_staging() = default;
  starc_scatter_staging(const starc_scatter_staging&) = delete;
  starc_scatter_staging& operator=(const starc_scatter_staging&) = delete;
  ~starc_scatter_staging() {
    for (buffer* b : {&slots, &values, &moves, &scratch}) cudaFree(b->data);
  }
};

/// `room` holding at least `count` elements of T (the work before that may use it done first).
template <typename T>
inline T* starc_staging_room(starc_scatter_staging::buffer& room, std::size_t count, const char* what,
                             const char* where) {
  if (sizeof(T) * count > room.bytes) {
    const std::size_t grown = std::max(sizeof(T) * count, room.bytes + room.bytes / 2);
    starc_cuda_check(cudaFree(room.data), what, where);   // (cudaFree waits for the device)
    room.data = nullptr;
    starc_cuda_check(cudaMalloc(&room.data, grown), what, where);
    room.bytes = grown;
  }
  return static_cast<T*>(room.data);
}

inline void starc_stage_slots(starc_scatter_staging& staging, const std::vector<int>& slots, const char* where) {
  staging.host_slots = slots;
  if (slots.empty()) return;
  int* device = starc_staging_room<int>(staging.slots, slots.size(), "cudaMalloc (changed slots)", where);
  starc_cuda_check(cudaMemcpy(device, slots.data(), sizeof(int) * slots.size(), cudaMemcpyHostToDevice),
                   "cudaMemcpy (changed slots)", where);
}

/// The moves of SlotChange::move_records (`moved` slots in all), for starc_move.
inline void starc_stage_moves(starc_scatter_staging& staging, const std::vector<int>& records, int moved,
                              const char* where) {
  staging.move_count = static_cast<int>(records.size() / 4);
  staging.moved = moved;
  if (moved == 0) return;
  int* device = starc_staging_room<int>(staging.moves, records.size(), "cudaMalloc (moves)", where);
  starc_cuda_check(cudaMemcpy(device, records.data(), sizeof(int) * records.size(), cudaMemcpyHostToDevice),
                   "cudaMemcpy (moves)", where);
}

template <typename T>
__global__ void starc_scatter_kernel(T* data, const int* slots, const T* values, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    data[slots[i]] = values[i];
}

template <typename T>
__global__ void starc_gather_kernel(const T* data, const int* slots, T* values, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    values[i] = data[slots[i]];
}

/// The move of a batch's moved slot i (SlotChange::move_records: from, to, length, first): the
/// last record whose first scratch slot is at most i.
__device__ inline int starc_move_of(const int* moves, int move_count, int slot) {
  int low = 0, high = move_count - 1;
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (moves[4 * mid + 3] <= slot) low = mid; else high = mid - 1;
  }
  return low;
}

template <typename T>
__global__ void starc_move_out_kernel(const T* data, const int* moves, int move_count, T* scratch, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const int m = starc_move_of(moves, move_count, i);
    scratch[i] = data[moves[4 * m] + i - moves[4 * m + 3]];
  }
}

template <typename T>
__global__ void starc_move_in_kernel(T* data, const int* moves, int move_count, const T* scratch, int count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const int m = starc_move_of(moves, move_count, i);
    data[moves[4 * m + 1] + i - moves[4 * m + 3]] = scratch[i];
  }
}

/// host[slot] for every staged slot, packed, copied to the device in one transfer and written to
/// data[slot] there by one kernel.
template <typename T>
inline void starc_scatter(starc_scatter_staging& staging, T* data, const T* host, const char* where) {
  const int count = static_cast<int>(staging.host_slots.size());
  if (count == 0) return;
  T* values = starc_staging_room<T>(staging.values, count, "cudaMalloc (changed values)", where);
  staging.packed.resize(sizeof(T) * count);
  T* packed = reinterpret_cast<T*>(staging.packed.data());
  for (int i = 0; i < count; ++i) packed[i] = host[staging.host_slots[i]];
  starc_cuda_check(cudaMemcpy(values, packed, sizeof(T) * count, cudaMemcpyHostToDevice),
                   "cudaMemcpy (changed values)", where);
  starc_scatter_kernel<T><<<starc_grid(count, 256), 256>>>(data, static_cast<const int*>(staging.slots.data),
                                                           values, count);
  starc_launch_check("starc_scatter_kernel", where);
}

/// data[slot] for every staged slot, gathered on the device by one kernel, copied back in one
/// transfer and written to host[slot].
template <typename T>
inline void starc_gather(starc_scatter_staging& staging, T* host, const T* data, const char* where) {
  const int count = static_cast<int>(staging.host_slots.size());
  if (count == 0) return;
  T* values = starc_staging_room<T>(staging.values, count, "cudaMalloc (gathered values)", where);
  starc_gather_kernel<T><<<starc_grid(count, 256), 256>>>(data, static_cast<const int*>(staging.slots.data),
                                                          values, count);
  starc_launch_check("starc_gather_kernel", where);
  std::vector<T> packed(count);
  starc_cuda_check(cudaMemcpy(packed.data(), values, sizeof(T) * count, cudaMemcpyDeviceToHost),
                   "cudaMemcpy (gathered values)", where);
  for (int i = 0; i < count; ++i) host[staging.host_slots[i]] = packed[i];
}

/// The staged moves applied to `data` on the device: every moved span copied into the scratch
/// buffer, then each to its new slots (one thread per moved slot; every move reads the values
/// from before the batch).
template <typename T>
inline void starc_move(starc_scatter_staging& staging, T* data, const char* where) {
  const int count = staging.moved;
  if (count == 0) return;
  T* scratch = starc_staging_room<T>(staging.scratch, count, "cudaMalloc (moved spans)", where);
  const int* moves = static_cast<const int*>(staging.moves.data);
  starc_move_out_kernel<T><<<starc_grid(count, 256), 256>>>(data, moves, staging.move_count, scratch, count);
  starc_launch_check("starc_move_out_kernel", where);
  starc_move_in_kernel<T><<<starc_grid(count, 256), 256>>>(data, moves, staging.move_count, scratch, count);
  starc_launch_check("starc_move_in_kernel", where);
}

${atomic_helpers}
% if group_combine:

// --- warp-aggregated reductions -----------------------------------------------------------------
// A kernel's private scalar reduction ends with one atomic per thread. The threads of a warp
// that reach that atomic together (coalesced_threads: those whose private changed, whatever
// diverged before) first combine their privates with shuffles; the group's first thread then
// holds the combination and performs the one atomic. Correct for any set of threads: each
// belongs to exactly one such group.

/// Combines `value` over the coalesced threads with `op`; true in the one that then holds it.
template <typename T, typename Op>
__device__ inline bool starc_warp_reduce(T& value, Op op) {
  cooperative_groups::coalesced_group group = cooperative_groups::coalesced_threads();
  value = cooperative_groups::reduce(group, value, op);
  return group.thread_rank() == 0;
}
% endif
% if group_append:

// --- warp-aggregated appends --------------------------------------------------------------------
// A worklist append takes its slot by a fetch-and-add on the queue's length. The threads of a
// warp that reach the append together (__activemask(): those still active, whatever diverged
// before) take one fetch-and-add for all: the lowest of them adds their count, the old length
// goes to each by a shuffle among exactly those threads, and a thread's slot is that base plus
// the number of them in lower lanes. The slots of a warp are contiguous, and each thread
// belongs to exactly one such set, so every append still gets a slot of its own.

/// The lanes of this warp below the calling thread, as a mask.
__device__ inline unsigned starc_lanes_below() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

/// The slot of this thread's append to a queue whose length is *length (one atomic per warp).
__device__ inline int starc_warp_append(int* length) {
  const unsigned active = __activemask();
  const int rank = __popc(active & starc_lanes_below());
  int base = 0;
  if (rank == 0) base = atomicAdd(length, __popc(active));
  return __shfl_sync(active, base, __ffs(active) - 1) + rank;
}

/// *length += 1 for each calling thread (a dense round's count of the flags it flips), one
/// atomic per warp: the lowest of the threads that count together adds their number.
__device__ inline void starc_warp_count(int* length) {
  const unsigned active = __activemask();
  if ((active & starc_lanes_below()) == 0) atomicAdd(length, __popc(active));
}
% endif

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

${run_time_checks}

// --- expressions --------------------------------------------------------------------------------

template <typename T>
__host__ __device__ inline T starc_min(T a, T b) { return b < a ? b : a; }

template <typename T>
__host__ __device__ inline T starc_max(T a, T b) { return a < b ? b : a; }

${graph_queries}

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

/// Loads each kernel's code onto the device now, outside the timed span: with lazy module
/// loading (CUDA 11.7+, the default since 12.2) the first launch of a kernel would load it.
template <class... Kernels>
inline void starc_load_kernels(const char* where, Kernels... kernels) {
  cudaFuncAttributes attributes;
  (STARC_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernels), where), ...);
}

#endif  // STARC_CUDA_CUH
