// starc OpenCL host runtime: the host-side operations of starc-generated OpenCL programs.
//
// Included after starc_runtime.hpp by every generated OpenCL host program; generated next to it
// so the output folder builds on its own. Plain OpenCL 1.2 C API through the ICD loader
// (-lOpenCL): any installed OpenCL platform (PoCL on a CPU, a GPU driver) runs the program.
// Helper names and shapes are those of the SYCL host (starc_sycl.hpp), with a cl_mem where
// SYCL has a USM pointer:
//   starc_open_device / starc_create_kernel / starc_block_size
//                              the device with its context, in-order queue and program, its
//                              kernel objects and their work-group size (--block-size):
//                              starc_opencl_device.hpp, included here
//   starc_set_arg / starc_launch / starc_launch_groups / starc_launch_group / starc_launch_single
//                              the arguments of a launch, then one NDRange over `count` items
//                              rounded up to the work-group size, or runs of items on a CPU
//                              (one item for single kernels)
//   starc_malloc / starc_free / starc_copy_to_device / starc_copy_to_host / starc_fill /
//   starc_copy / starc_read_element / starc_write_element / starc_finish
//                              host-side array operations
//   starc_stage_slots / starc_scatter / starc_gather / starc_stage_moves / starc_move
//                              a batch's changed slots of rows with slack, packed and scattered,
//                              or gathered and read back; its moves applied on the device
//   starc_find_edge            edge lookup on the host's CSR (the kernels' is in the .cl prelude)
// Every OpenCL call is checked: a failure prints "error: <what> (<CL error name>) at
// <prog.sp>:<line>" and exits with status 3.
#ifndef STARC_OPENCL_HOST_HPP
#define STARC_OPENCL_HOST_HPP

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "starc_opencl_device.hpp"
#include "starc_runtime.hpp"

// --- kernels ---------------------------------------------------------------------------------------

/// Argument `index` of the next launch: a scalar by value (its OpenCL type: cl_int, cl_uchar
/// for bool ...) or a cl_mem.
template <class T>
inline void starc_set_arg(const starc_kernel& kernel, cl_uint index, const T& value, const char* where) {
  starc_cl_check(clSetKernelArg(kernel.handle.get(), index, sizeof(T), &value), "clSetKernelArg", where);
}

/// The elements [0, count) of a kernel over items. Every kernel divides them into equal
/// contiguous runs, one per work-item (its global size). Normally one work-item per element,
/// in work-groups of kernel.group, the global size rounded up to a whole number of
/// work-groups (the extra items do nothing). With device.runs (a CPU): at most
/// STARC_RUN_ITEMS elements per work-item and at least 16 work-items per compute unit,
/// work-groups of one, so that the device's threads take runs dynamically and PoCL does
/// not pack work-items whose neighbour loops differ in length into masked vector lanes.
/// A kernel whose items all do the same small work (the plan's Kernel.uniform_items: a flag
/// scan, a frontier build) passes run_items = STARC_UNIFORM_RUN_ITEMS: there a run of 64
/// costs about what the device's claim of it does (PoCL, 2 threads: a frontier build over
/// 2^18 vertices took 170-400 us in runs of 64, ~40% less in runs of 1024).
/// Returns without waiting (in-order queue).
constexpr std::size_t STARC_RUN_ITEMS = 64;
constexpr std::size_t STARC_UNIFORM_RUN_ITEMS = 1024;

inline void starc_launch(const starc_opencl& device, const starc_kernel& kernel, long long count,
                         const char* where, std::size_t run_items = STARC_RUN_ITEMS) {
  if (count <= 0) return;  // an empty NDRange is an error in OpenCL 1.2; nothing to do
  std::size_t total = static_cast<std::size_t>(count);
  std::size_t group = kernel.group;
  std::size_t items = (total + group - 1) / group * group;
  if (device.runs) {
    group = 1;
    items = std::min(total, std::max((total + run_items - 1) / run_items, 16 * device.units));
  }
  starc_cl_check(clEnqueueNDRangeKernel(device.queue.get(), kernel.handle.get(), 1, nullptr, &items, &group,
                                        0, nullptr, nullptr),
                 "clEnqueueNDRangeKernel", where);
}

/// The elements [0, count) of a binned kernel: one work-item per element in work-groups of
/// kernel.group on every device (its groups share their heavy vertices, so a CPU gets no runs).
inline void starc_launch_groups(const starc_opencl& device, const starc_kernel& kernel, long long count,
                                const char* where) {
  if (count <= 0) return;
  std::size_t group = kernel.group;
  std::size_t items = (static_cast<std::size_t>(count) + group - 1) / group * group;
  starc_cl_check(clEnqueueNDRangeKernel(device.queue.get(), kernel.handle.get(), 1, nullptr, &items, &group,
                                        0, nullptr, nullptr),
                 "clEnqueueNDRangeKernel", where);
}

/// A kernel of one work-group (bfs_rounds): its items stride over the work and meet at
/// barriers, so it runs as exactly one group of the kernel's size.
inline void starc_launch_group(const starc_opencl& device, const starc_kernel& kernel, const char* where) {
  const std::size_t group = kernel.group;
  starc_cl_check(
      clEnqueueNDRangeKernel(device.queue.get(), kernel.handle.get(), 1, nullptr, &group, &group, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel", where);
}

/// A single-item kernel: exactly one work-item.
inline void starc_launch_single(const starc_opencl& device, const starc_kernel& kernel, const char* where) {
  const std::size_t one = 1;
  starc_cl_check(
      clEnqueueNDRangeKernel(device.queue.get(), kernel.handle.get(), 1, nullptr, &one, &one, 0, nullptr, nullptr),
      "clEnqueueNDRangeKernel", where);
}

// --- host-side array operations ------------------------------------------------------------------
// Device arrays are cl_mem buffers of `count` elements of T (the element type is the caller's:
// a cl_mem has none). Transfers to the host wait for the work before them; the others return
// at once (in-order queue).

/// A device array of `count` elements (at least one, so that empty graphs still get a buffer).
template <class T>
inline cl_mem starc_malloc(const starc_opencl& device, std::size_t count, const char* name, const char* where) {
  cl_int status = CL_SUCCESS;
  cl_mem data = clCreateBuffer(device.context.get(), CL_MEM_READ_WRITE, sizeof(T) * std::max<std::size_t>(count, 1),
                               nullptr, &status);
  if (status != CL_SUCCESS)
    starc_opencl_fail("cannot allocate " + std::to_string(count) + " elements of " + name + " on the device",
                      status, where);
  return data;
}

inline void starc_free(const starc_opencl&, cl_mem data, const char* where) {
  starc_cl_check(clReleaseMemObject(data), "clReleaseMemObject", where);
}

/// device[0..count) = host[0..count); `host` may change once the call returns.
template <class T>
inline void starc_copy_to_device(const starc_opencl& device, cl_mem data, const T* host, std::size_t count,
                                 const char* where) {
  if (count == 0) return;
  starc_cl_check(
      clEnqueueWriteBuffer(device.queue.get(), data, CL_TRUE, 0, sizeof(T) * count, host, 0, nullptr, nullptr),
      "clEnqueueWriteBuffer", where);
}

// A batch's changed slots of the slot arrays (rows with slack), for starc_scatter / starc_gather,
// and its moves, for starc_move: their ids and records on the device, room for one array's packed
// values and for the moved spans' scratch copy; kernels by element type. Kept across the batches:
// each buffer grows (by half again at least) only when a batch needs more than it holds.
struct starc_scatter_staging {
  struct buffer {
    starc_cl_handle<cl_mem> mem{nullptr, clReleaseMemObject};
    std::size_t bytes = 0;
  };
  buffer slots, values, moves, scratch;
  std::vector<int> host_slots;
  std::vector<unsigned char> packed;   // the host side of `values`
  int move_count = 0, moved = 0;
  std::vector<std::pair<std::string, starc_kernel>> kernels;
};

// `room` holding at least `bytes` (released work that still uses the old buffer keeps it alive).
inline cl_mem starc_staging_room(const starc_opencl& device, starc_scatter_staging::buffer& room, std::size_t bytes,
                                 const char* what, const char* where) {
  if (bytes > room.bytes) {
    std::size_t grown = std::max(bytes, room.bytes + room.bytes / 2);
    cl_int status = CL_SUCCESS;
    room.mem.reset(clCreateBuffer(device.context.get(), CL_MEM_READ_WRITE, grown, nullptr, &status));
    starc_cl_check(status, what, where);
    room.bytes = grown;
  }
  return room.mem.get();
}

// host[0..count) copied into `room` (grown as needed); blocking, so `host` may change afterwards.
template <class T>
inline cl_mem starc_staging_upload(const starc_opencl& device, starc_scatter_staging::buffer& room, const T* host,
                                   std::size_t count, const char* what, const char* where) {
  cl_mem mem = starc_staging_room(device, room, sizeof(T) * count, what, where);
  starc_cl_check(clEnqueueWriteBuffer(device.queue.get(), mem, CL_TRUE, 0, sizeof(T) * count, host, 0, nullptr,
                                      nullptr),
                 what, where);
  return mem;
}

inline void starc_stage_slots(const starc_opencl& device, starc_scatter_staging& staging, const std::vector<int>& slots,
                              const char* where) {
  staging.host_slots = slots;
  if (slots.empty()) return;
  starc_staging_upload(device, staging.slots, slots.data(), slots.size(), "clCreateBuffer (changed slots)", where);
}

// The moves of SlotChange::move_records (`moved` slots in all), for starc_move.
inline void starc_stage_moves(const starc_opencl& device, starc_scatter_staging& staging,
                              const std::vector<int>& records, int moved, const char* where) {
  staging.move_count = static_cast<int>(records.size() / 4);
  staging.moved = moved;
  if (moved == 0) return;
  starc_staging_upload(device, staging.moves, records.data(), records.size(), "clCreateBuffer (moves)", where);
}

// The device type's name in the kernels' names (starc_scatter_int ...).
template <class T> inline const char* starc_slot_type();
template <> inline const char* starc_slot_type<int>() { return "int"; }
template <> inline const char* starc_slot_type<long long>() { return "long"; }
template <> inline const char* starc_slot_type<float>() { return "float"; }
template <> inline const char* starc_slot_type<double>() { return "double"; }
template <> inline const char* starc_slot_type<unsigned char>() { return "uchar"; }

// The program's kernel `name`, created on first use.
inline const starc_kernel& starc_staged_kernel(const starc_opencl& device, starc_scatter_staging& staging,
                                               const std::string& name, const char* where) {
  for (const auto& kernel : staging.kernels)
    if (kernel.first == name) return kernel.second;
  staging.kernels.emplace_back(name, starc_create_kernel(device, name.c_str(), 256, where));
  return staging.kernels.back().second;
}

// The program's kernel `name` (data, staged slots, staged values, their count) over the slots.
inline void starc_run_staged(const starc_opencl& device, starc_scatter_staging& staging, const std::string& name,
                             cl_mem data, const char* where) {
  const starc_kernel& kernel = starc_staged_kernel(device, staging, name, where);
  cl_mem slots_mem = staging.slots.mem.get(), values_mem = staging.values.mem.get();
  cl_int count = static_cast<cl_int>(staging.host_slots.size());
  starc_set_arg(kernel, 0, data, where);
  starc_set_arg(kernel, 1, slots_mem, where);
  starc_set_arg(kernel, 2, values_mem, where);
  starc_set_arg(kernel, 3, count, where);
  starc_launch(device, kernel, count, where);
}

// host[slot] for every staged slot, packed, copied to the device in one transfer and written to
// data[slot] there by the program's starc_scatter_<type> kernel.
template <class T>
inline void starc_scatter(const starc_opencl& device, starc_scatter_staging& staging, cl_mem data, const T* host,
                          const char* where) {
  const std::vector<int>& slots = staging.host_slots;
  if (slots.empty()) return;
  staging.packed.resize(sizeof(T) * slots.size());
  T* packed = reinterpret_cast<T*>(staging.packed.data());
  for (std::size_t i = 0; i < slots.size(); ++i) packed[i] = host[slots[i]];
  starc_staging_upload(device, staging.values, packed, slots.size(), "clCreateBuffer (changed values)", where);
  starc_run_staged(device, staging, std::string("starc_scatter_") + starc_slot_type<T>(), data, where);
}

// data[slot] for every staged slot, gathered on the device by the program's starc_gather_<type>
// kernel, copied back in one transfer and written to host[slot].
template <class T>
inline void starc_gather(const starc_opencl& device, starc_scatter_staging& staging, T* host, cl_mem data,
                         const char* where) {
  const std::vector<int>& slots = staging.host_slots;
  if (slots.empty()) return;
  cl_mem values = starc_staging_room(device, staging.values, sizeof(T) * slots.size(),
                                     "clCreateBuffer (gathered values)", where);
  starc_run_staged(device, staging, std::string("starc_gather_") + starc_slot_type<T>(), data, where);
  std::vector<T> packed(slots.size());
  starc_cl_check(clEnqueueReadBuffer(device.queue.get(), values, CL_TRUE, 0, sizeof(T) * packed.size(),
                                     packed.data(), 0, nullptr, nullptr),
                 "clEnqueueReadBuffer (gathered values)", where);
  for (std::size_t i = 0; i < slots.size(); ++i) host[slots[i]] = packed[i];
}

// The staged moves applied to `data` on the device: the program's starc_move_out_<type> copies
// every moved span into the scratch buffer, then starc_move_in_<type> writes each to its new slots
// (every move reads the values from before the batch). The kernels split the moved slots into one
// contiguous run per work item: on a GPU one slot each; on a CPU device, as many items as moves
// (and at least 16 per compute unit), runs of hundreds of slots: one item per 64 slots made
// thousands of work-groups, whose overhead on PoCL cost as much as the copies (Kronecker 18).
template <class T>
inline void starc_move(const starc_opencl& device, starc_scatter_staging& staging, cl_mem data, const char* where) {
  if (staging.moved == 0) return;
  cl_mem scratch = starc_staging_room(device, staging.scratch, sizeof(T) * static_cast<std::size_t>(staging.moved),
                                      "clCreateBuffer (moved spans)", where);
  cl_mem moves = staging.moves.mem.get();
  for (const char* step : {"starc_move_out_", "starc_move_in_"}) {
    const starc_kernel& kernel = starc_staged_kernel(device, staging, std::string(step) + starc_slot_type<T>(), where);
    starc_set_arg(kernel, 0, data, where);
    starc_set_arg(kernel, 1, moves, where);
    starc_set_arg(kernel, 2, static_cast<cl_int>(staging.move_count), where);
    starc_set_arg(kernel, 3, scratch, where);
    starc_set_arg(kernel, 4, static_cast<cl_int>(staging.moved), where);
    starc_launch(device, kernel, device.runs ? staging.move_count : staging.moved, where);
  }
}

template <class T>
inline void starc_copy_to_host(const starc_opencl& device, T* host, cl_mem data, std::size_t count,
                               const char* where) {
  if (count == 0) return;
  starc_cl_check(
      clEnqueueReadBuffer(device.queue.get(), data, CL_TRUE, 0, sizeof(T) * count, host, 0, nullptr, nullptr),
      "clEnqueueReadBuffer", where);
}

template <class T>
inline void starc_fill(const starc_opencl& device, cl_mem data, T value, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_cl_check(clEnqueueFillBuffer(device.queue.get(), data, &value, sizeof(T), 0, sizeof(T) * count, 0, nullptr,
                                     nullptr),
                 "clEnqueueFillBuffer", where);
}

/// dst[0..count) = src[0..count) on the device.
template <class T>
inline void starc_copy(const starc_opencl& device, cl_mem dst, cl_mem src, std::size_t count, const char* where) {
  if (count == 0) return;
  starc_cl_check(clEnqueueCopyBuffer(device.queue.get(), src, dst, 0, 0, sizeof(T) * count, 0, nullptr, nullptr),
                 "clEnqueueCopyBuffer", where);
}

/// One element read back to the host (waits for the work before it).
template <class T>
inline T starc_read_element(const starc_opencl& device, cl_mem data, std::size_t index, const char* where) {
  T value{};
  starc_cl_check(clEnqueueReadBuffer(device.queue.get(), data, CL_TRUE, sizeof(T) * index, sizeof(T), &value, 0,
                                     nullptr, nullptr),
                 "clEnqueueReadBuffer", where);
  return value;
}

/// One element written from the host, without waiting: a one-element fill, whose pattern
/// OpenCL copies before the call returns.
template <class T>
inline void starc_write_element(const starc_opencl& device, cl_mem data, std::size_t index, T value,
                                const char* where) {
  starc_cl_check(clEnqueueFillBuffer(device.queue.get(), data, &value, sizeof(T), sizeof(T) * index, sizeof(T), 0,
                                     nullptr, nullptr),
                 "clEnqueueFillBuffer", where);
}

/// Waits for all enqueued work.
inline void starc_finish(const starc_opencl& device, const char* where) {
  starc_cl_check(clFinish(device.queue.get()), "clFinish", where);
}

// --- graph queries on the host -------------------------------------------------------------------

/// The first edge u->w (its CSR position), or -1: rows are sorted by target (starc_graph.hpp).
inline int starc_find_edge(const int* offsets, const int* targets, int u, int w) {
  const int* end = targets + offsets[u + 1];
  const int* low = std::lower_bound(targets + offsets[u], end, w);
  return low != end && *low == w ? static_cast<int>(low - targets) : -1;
}

#endif  // STARC_OPENCL_HOST_HPP
