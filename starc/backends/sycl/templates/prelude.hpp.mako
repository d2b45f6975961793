## starc_sycl.hpp, written next to every generated SYCL program (rendered by sycl/emitter.py;
## the shared blocks come from common/templates/device_helpers.mako).
// starc SYCL runtime: the device-side helpers and host operations of starc-generated SYCL.
//
// Included after starc_runtime.hpp by every generated SYCL program; generated next to it so the
// output folder builds on its own. Portable SYCL 2020 only (no vendor extensions): the same
// program builds with acpp, icpx -fsycl and clang++ -fsycl. Helper names are those of the
// CUDA and OpenCL preludes (starc_atomic_min_float, starc_lock_try, starc_find_edge, ...), so
// kernels read the same on every backend.
//   starc_make_queue(device)                the in-order queue for --device cpu|gpu|default;
//                                           the runtime's std::cout messages go to stderr
//   starc_warm_up(q, where)                 one empty launch before the timer starts
//   starc_parallel_for<RunItems>(q, where, count, block, kernel, reductions...)
//                                           one kernel: nd_range<1> of work-groups of `block`
//                                           items (range<1> when 0), or on a CPU device a few
//                                           work-items that claim runs of RunItems items
//                                           (starc_cpu_runs; default STARC_RUN_ITEMS)
% if staged_append:
//   starc_staged_groups(q, count, block) / starc_stage_append
//                                           a kernel whose work-groups stage their appends
% endif
% if work_groups:
//   starc_work_group_size(q, block) / starc_groups(count, group)
//                                           the work-groups of a kernel whose groups share
//                                           local memory (real groups on a CPU device too)
% endif
//   starc_malloc / starc_free / starc_copy_to_device / starc_copy_to_host / starc_fill /
//   starc_copy / starc_read_element / starc_write_element / starc_finish /
//   starc_stage_slots / starc_scatter / starc_gather / starc_stage_moves / starc_move (a batch's
//   changed slots of rows with slack, packed and scattered, or gathered and read back; its moves
//   applied on the device)
//                                           host-side array operations; each reports a
//                                           sycl::exception as "error: <what> at <prog.sp>:<line>"
//                                           and exits with status 3
//   starc_atomic_<op>_<type>                op in add sub mul and or min max; type in int
//                                           long float double (sycl::atomic_ref, relaxed);
//                                           returns the old value (min/max by CAS loops on
//                                           AdaptiveCpp: STARC_SYCL_FETCH_MINMAX_RETURNS_NEW);
//                                           the families the program's kernels use
//   starc_atomic_update_<min|max>_<type>    fetch_min/fetch_max whose result is not used
//   starc_lock_try / starc_lock_release     per-element spin locks (Min/Max with secondaries)
//   starc_find_edge                         binary search in a sorted CSR row
//   starc_lower_bound / starc_upper_bound   the run of a sorted row below/above a value
//   starc_gallop                            find_edge for ascending w, by a cursor moving forward
#ifndef STARC_SYCL_HPP
#define STARC_SYCL_HPP

#include <sycl/sycl.hpp>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

/// Sends whatever the SYCL runtime writes to std::cout to stderr, before the runtime starts:
/// stdout holds the results and nothing else, and the results are written with stdio, never
/// std::cout. AdaptiveCpp, for one, prints its warnings and errors on std::cout ("[AdaptiveCpp
/// Warning] kernel_cache: ..." on a run that JIT-compiles kernels); moved to stderr they stay
/// visible at the level the user chose (ACPP_DEBUG_LEVEL), where silencing them would hide errors.
inline void starc_runtime_messages_to_stderr() {
  std::cout.flush();
  std::cout.rdbuf(std::cerr.rdbuf());
}

/// The in-order queue on the device named by --device: "cpu", "gpu" or "default" (the runtime's
/// own messages to stderr: starc_runtime_messages_to_stderr).
inline sycl::queue starc_make_queue(const std::string& device) {
  starc_runtime_messages_to_stderr();
  const sycl::property_list in_order{sycl::property::queue::in_order{}};
  try {
    if (device == "cpu") return sycl::queue(sycl::cpu_selector_v, in_order);
    if (device == "gpu") return sycl::queue(sycl::gpu_selector_v, in_order);
    if (device == "default") return sycl::queue(sycl::default_selector_v, in_order);
  } catch (const sycl::exception& error) {
    throw starc::DeviceError("no usable SYCL device for --device " + device + " (" + error.what() + ")");
  }
  throw starc::UsageError("--device expects cpu, gpu or default, got '" + device + "'");
}

% if lockstep_variants:
/// Whether the queue's device runs work items in lockstep: a GPU does, unless the environment
/// says otherwise (STARC_SYCL_LOCKSTEP=1 or 0, for any device: tests run the variants for GPUs
/// on a CPU device). A kernel whose schedule for such devices differs has a variant for them,
/// which the host launches instead.
inline bool starc_lockstep_device(const sycl::queue& queue) {
  const char* told = std::getenv("STARC_SYCL_LOCKSTEP");
  if (told == nullptr || *told == '\0') return queue.get_device().is_gpu();
  if (std::string(told) == "1") return true;
  if (std::string(told) == "0") return false;
  throw starc::UsageError(std::string("STARC_SYCL_LOCKSTEP must be 0 or 1, not '") + told + "'");
}

% endif
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

/// A scalar reduction of a kernel: where it goes and its SYCL function object. A launch makes it
/// a sycl::reduction, or on a CPU device a private accumulator per work-item (starc_cpu_runs).
template <class T, class Op>
struct starc_reduction_of {
  T* data;
  Op op;
};

template <class T, class Op>
inline starc_reduction_of<T, Op> starc_reduction(T* data, Op op) {
  return {data, op};
}

/// One work-item's partial result of a starc_reduction, spelled as a SYCL reducer (+= and the
/// like, combine) so the kernel's body is the same; finish() folds it into the reduction's
/// element with a compare-and-swap loop (a few per launch).
template <class T, class Op>
struct starc_private_reducer {
  starc_reduction_of<T, Op> target;
  T value{};
  bool any = false;
  void combine(T v) {
    value = any ? static_cast<T>(target.op(value, v)) : v;
    any = true;
  }
  starc_private_reducer& operator+=(T v) { combine(v); return *this; }
  starc_private_reducer& operator*=(T v) { combine(v); return *this; }
  starc_private_reducer& operator&=(T v) { combine(v); return *this; }
  starc_private_reducer& operator|=(T v) { combine(v); return *this; }
  void finish() const {
    if (!any) return;
    sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device,
                     sycl::access::address_space::global_space> element(*target.data);
    T seen = element.load();
    while (!element.compare_exchange_strong(seen, static_cast<T>(target.op(seen, value)))) {
    }
  }
};

template <class T, class Op>
inline starc_private_reducer<T, Op> starc_private(const starc_reduction_of<T, Op>& reduction) {
  return {reduction};
}

/// Items of one kernel a work-item takes at a time on a CPU device (starc_cpu_runs): runs of
/// STARC_RUN_ITEMS where the work per item varies (a neighbour loop, a search), as GAPBS's
/// schedule(dynamic, 64); runs of STARC_UNIFORM_RUN_ITEMS where every item does the same small
/// work (the plan's Kernel.uniform_items: PageRank's per-vertex term). There a run of 64 costs
/// about what its claim does, the counter's cache line passing between the threads: pr's term
/// kernel took a fifth of its time (AdaptiveCpp 24.06, 2 threads, R-MAT 18), under 2% in runs
/// of 1024.
constexpr std::size_t STARC_RUN_ITEMS = 64;
constexpr std::size_t STARC_UNIFORM_RUN_ITEMS = 1024;

/// How launches run on a CPU device. AdaptiveCpp's OpenMP backend (24.06) splits a launch's
/// work-groups between its threads in equal contiguous blocks (an OpenMP static schedule), so
/// where the work per item grows with its id (a degree-ordered graph puts all of tc's work in
/// the top tenth of the ids) one thread does nearly all of it. There a launch is a few
/// work-groups of one work-item (4 per compute unit), each claiming runs of items from a
/// counter until none is left, as GAPBS's schedule(dynamic, 64) does, whatever the
/// implementation's schedule. Groups of one: AdaptiveCpp runs a group's work-items as one
/// loop, where 255 idle items would sit beside each busy one; one size also means one
/// JIT-compiled binary per kernel (--block-size sizes GPU work-groups only). Reductions are
/// private partials folded once per work-item (starc_private_reducer): AdaptiveCpp's
/// sycl::reduction lost updates with these groups (tc counted 39.9-40.8 million triangles of
/// 82.7 million, a different count each run). The counter is never reset: a launch of `runs`
/// runs over `groups` work-groups takes exactly runs + groups claims (one that finds nothing
/// per group), so the host knows where the next launch starts.
struct starc_cpu_runs {
  bool on = false;                       // the queue's device is a CPU
  std::size_t groups = 0;                // work-groups per launch: 4 per compute unit
  unsigned long long* next = nullptr;    // the claim counter (device memory)
  unsigned long long issued = 0;         // claims taken by every launch so far
};

/// The CPU-run state of the program's queue (one queue per program), made on first use:
/// starc_warm_up, before the timer starts.
inline starc_cpu_runs& starc_runs_of(sycl::queue& q) {
  static starc_cpu_runs runs = [&] {
    starc_cpu_runs made;
    const sycl::device device = q.get_device();
    made.on = device.is_cpu();
    if (made.on) {
      made.groups = 4 * std::max<std::size_t>(1, device.get_info<sycl::info::device::max_compute_units>());
      made.next = sycl::malloc_device<unsigned long long>(1, q);
      if (made.next == nullptr) starc_sycl_fail("cannot allocate the run counter on the device", "starc_sycl.hpp");
      q.fill(made.next, 0ULL, 1).wait();
    }
    return made;
  }();
  return runs;
}

/// Runs kernel(i, reducers...) for every i in [0, count) and returns without waiting (in-order
/// queue). On a CPU device (starc_cpu_runs): work-groups of one work-item that claim runs of
/// RunItems items. Elsewhere one work-item per item: over range<1>(count) when `block` is 0,
/// else an nd_range<1> of work-groups of `block` items with the global size rounded up (the
/// extra items return at once). Without reductions the SYCL kernel takes only its index (no
/// generic lambda).
template <std::size_t RunItems = STARC_RUN_ITEMS, class Kernel, class... Reductions>
inline void starc_parallel_for(sycl::queue& q, const char* where, std::size_t count, std::size_t block,
                               const Kernel& kernel, Reductions... reductions) {
  if (count == 0) return;  // nothing to do: every reduction keeps its value
  starc_cpu_runs& cpu = starc_runs_of(q);
  starc_at(where, [&] {
    if (cpu.on) {
      const std::size_t runs = (count + RunItems - 1) / RunItems;
      const std::size_t groups = std::min(cpu.groups, runs);
      const unsigned long long first = cpu.issued;
      unsigned long long* next = cpu.next;
      cpu.issued += runs + groups;
      // each work-item: claim a run, run its items, until none is left; then its reductions
      q.parallel_for(sycl::nd_range<1>(sycl::range<1>(groups), sycl::range<1>(1)), [=](sycl::nd_item<1>) {
        sycl::atomic_ref<unsigned long long, sycl::memory_order::relaxed, sycl::memory_scope::device,
                         sycl::access::address_space::global_space> counter(*next);
        auto reducers = std::make_tuple(starc_private(reductions)...);
        for (unsigned long long run = counter.fetch_add(1ULL) - first; run < runs;
             run = counter.fetch_add(1ULL) - first) {
          // an int counter, the kernel's own index type: with a size_t one cast to int, under
          // -fwrapv, the compiler cannot prove i + 1 does not wrap, so offsets[i + 1] is no
          // longer the element after offsets[i] and no item loop is vectorised (pr's term
          // kernel ran scalar on AdaptiveCpp's CPU JIT, vectorised by PoCL)
          const int begin = static_cast<int>(run * RunItems);
          const int end = static_cast<int>(std::min(count, static_cast<std::size_t>(run + 1) * RunItems));
          for (int i = begin; i < end; ++i)
            std::apply([&](auto&... reducer) { kernel(i, reducer...); }, reducers);
        }
        std::apply([](const auto&... reducer) { (reducer.finish(), ...); }, reducers);
      });
    } else if (block == 0) {
      if constexpr (sizeof...(Reductions) == 0) {
        q.parallel_for(sycl::range<1>(count), [=](sycl::item<1> item) { kernel(static_cast<int>(item.get_id(0))); });
      } else {
        q.parallel_for(sycl::range<1>(count), sycl::reduction(reductions.data, reductions.op)...,
                       [=](sycl::item<1> item, auto&... reducers) {
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
        q.parallel_for(groups, sycl::reduction(reductions.data, reductions.op)...,
                       [=](sycl::nd_item<1> item, auto&... reducers) {
          std::size_t i = item.get_global_id(0);
          if (i >= count) return;
          kernel(static_cast<int>(i), reducers...);
        });
      }
    }
  });
}

% if work_groups:
/// Work-items per work-group of a kernel whose groups share local memory and meet at barriers (a
/// binned kernel, a split worklist round), launched over starc_groups. On a GPU the launch's
/// `block` (--block-size; 256 when 0). On a CPU device (starc_cpu_runs) such a kernel still
/// needs real groups, not groups of one claiming runs: at most STARC_CPU_GROUP_ITEMS. There
/// AdaptiveCpp runs a group's work-items as loops on one thread, split at each barrier, and
/// gives each thread an equal block of groups: a group of 64 (a run's size, STARC_RUN_ITEMS)
/// keeps many groups for the threads to share and a short pass per barrier, while the vertices
/// of degree 64 or more still go to their group. A smaller --block-size is kept.
constexpr std::size_t STARC_CPU_GROUP_ITEMS = 64;

inline std::size_t starc_work_group_size(sycl::queue& q, std::size_t block) {
  const std::size_t group = block == 0 ? 256 : block;
  return starc_runs_of(q).on ? std::min(group, STARC_CPU_GROUP_ITEMS) : group;
}

/// The nd_range of a grouped kernel over `count` items: whole work-groups of `group` (the extra
/// items of the last group take no item, but meet their group at its barriers).
inline sycl::nd_range<1> starc_groups(long long count, std::size_t group) {
  const std::size_t items = (static_cast<std::size_t>(count) + group - 1) / group * group;
  return sycl::nd_range<1>(sycl::range<1>(items), sycl::range<1>(group));
}

% endif
% if staged_append:
// --- worklist appends staged per work-group --------------------------------------------------------
// An append takes a slot in its work-group's queue in local memory (a local atomic); at the end of
// the group's items the group's first work-item takes the group's slots in the worklist with one
// atomic and the work-items copy the entries there. Where the local queue is full, the append takes
// its own slot in the worklist at once. (STARC_LOCAL_QUEUE may be set lower before this point, as a
// test does, to force that.)
#ifndef ${local_queue}
#define ${local_queue} ${local_queue_default}
#endif

template <class Staged>
inline void starc_stage_append(const Staged& staged, int& count, int* queue, int* length, int value) {
  sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::work_group,
                   sycl::access::address_space::local_space> local(count);
  const int slot = local.load() < ${local_queue} ? local.fetch_add(1) : ${local_queue};
  if (slot < ${local_queue}) staged[slot] = value;
  else queue[sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::device,
                              sycl::access::address_space::global_space>(*length).fetch_add(1)] = value;
}

/// The work-groups of a kernel whose work-groups stage their appends, each work-item running a run of
/// items (the global size divided into equal contiguous runs): on a GPU whole work-groups of `block`
/// items (256 when 0), a run being one item; on a CPU device (starc_cpu_runs) work-groups of one
/// work-item, each running a run of STARC_RUN_ITEMS items and staging its appends as a group does (one
/// global atomic per run). Not starc_parallel_for's claimed runs: AdaptiveCpp 24.06's CPU JIT ran a
/// claim loop holding the group's barriers wrongly (sssp's staged frontier lost every append), and
/// segfaulted with real groups of 256 there. Groups of one meet no other item at their barriers.
inline sycl::nd_range<1> starc_staged_groups(sycl::queue& q, long long count, std::size_t block) {
  if (starc_runs_of(q).on) {
    const std::size_t runs = (static_cast<std::size_t>(count) + STARC_RUN_ITEMS - 1) / STARC_RUN_ITEMS;
    return sycl::nd_range<1>(sycl::range<1>(runs), sycl::range<1>(1));
  }
  return starc_groups(count, block == 0 ? 256 : block);
}

% endif
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

/// One element written from the host, without waiting: a fill carries the value itself (a copy
/// would read `value` after this returns), and the in-order queue runs it before later work.
template <class T>
inline void starc_write_element(sycl::queue& q, T* data, std::size_t index, T value, const char* where) {
  starc_at(where, [&] { q.fill(data + index, value, 1); });
}

// --- a batch's changed slots of rows with slack -----------------------------------------------------

/// The slots a batch wrote (or its moves read) in rows with slack, on the device, for
/// starc_scatter / starc_gather, and its moves, for starc_move: their ids and records, room for
/// one array's packed values and for the moved spans' scratch copy. Kept across the batches:
/// each buffer grows (by half again at least) only when a batch needs more than it holds.
struct starc_scatter_staging {
  struct buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  sycl::queue* queue = nullptr;
  buffer slots, values, moves, scratch;
  std::size_t count = 0;
  int move_count = 0, moved = 0;
  std::vector<int> host_slots;
  std::vector<unsigned char> packed;   // the host side of `values`
  starc_scatter_staging() = default;
  starc_scatter_staging(const starc_scatter_staging&) = delete;
  starc_scatter_staging& operator=(const starc_scatter_staging&) = delete;
  ~starc_scatter_staging() {
    for (buffer* b : {&slots, &values, &moves, &scratch})
      if (b->data != nullptr) sycl::free(b->data, *queue);
  }
};

/// `room` holding at least `count` elements of T (the work before that may use it done first).
template <class T>
inline T* starc_staging_room(sycl::queue& q, starc_scatter_staging& staging, starc_scatter_staging::buffer& room,
                             std::size_t count, const char* what, const char* where) {
  staging.queue = &q;
  if (sizeof(T) * count > room.bytes) {
    std::size_t grown = std::max(sizeof(T) * count, room.bytes + room.bytes / 2);
    starc_at(where, [&] { q.wait_and_throw(); });
    if (room.data != nullptr) sycl::free(room.data, q);
    room.data = starc_malloc<unsigned char>(q, grown, what, where);
    room.bytes = grown;
  }
  return static_cast<T*>(room.data);
}

inline void starc_stage_slots(sycl::queue& q, starc_scatter_staging& staging, const std::vector<int>& slots,
                              const char* where) {
  staging.host_slots = slots;
  staging.count = slots.size();
  if (slots.empty()) return;
  int* device = starc_staging_room<int>(q, staging, staging.slots, slots.size(), "the changed slots", where);
  starc_at(where, [&] { q.copy(staging.host_slots.data(), device, slots.size()).wait(); });
}

/// The moves of SlotChange::move_records (`moved` slots in all), for starc_move.
inline void starc_stage_moves(sycl::queue& q, starc_scatter_staging& staging, const std::vector<int>& records,
                              int moved, const char* where) {
  staging.move_count = static_cast<int>(records.size() / 4);
  staging.moved = moved;
  if (moved == 0) return;
  int* device = starc_staging_room<int>(q, staging, staging.moves, records.size(), "the moves", where);
  starc_at(where, [&] { q.copy(records.data(), device, records.size()).wait(); });
}

/// host[slot] for every staged slot, packed, copied to the device in one transfer and written to
/// data[slot] there by one kernel (waits: the packed values live in the staging's host buffer).
template <class T>
inline void starc_scatter(sycl::queue& q, starc_scatter_staging& staging, T* data, const T* host,
                          const char* where) {
  if (staging.count == 0) return;
  T* values = starc_staging_room<T>(q, staging, staging.values, staging.count, "the changed values", where);
  staging.packed.resize(sizeof(T) * staging.count);
  T* packed = reinterpret_cast<T*>(staging.packed.data());
  for (std::size_t i = 0; i < staging.count; ++i) packed[i] = host[staging.host_slots[i]];
  const int* slots = static_cast<const int*>(staging.slots.data);
  starc_at(where, [&] {
    q.copy(packed, values, staging.count);
    q.parallel_for(sycl::range<1>(staging.count), [=](sycl::id<1> i) { data[slots[i]] = values[i]; });
    q.wait_and_throw();
  });
}

/// data[slot] for every staged slot, gathered on the device by one kernel, copied back in one
/// transfer and written to host[slot].
template <class T>
inline void starc_gather(sycl::queue& q, starc_scatter_staging& staging, T* host, const T* data,
                         const char* where) {
  if (staging.count == 0) return;
  std::vector<T> packed(staging.count);
  T* values = starc_staging_room<T>(q, staging, staging.values, staging.count, "the gathered values", where);
  const int* slots = static_cast<const int*>(staging.slots.data);
  starc_at(where, [&] {
    q.parallel_for(sycl::range<1>(packed.size()), [=](sycl::id<1> i) { values[i] = data[slots[i]]; });
    q.copy(values, packed.data(), packed.size()).wait();
  });
  for (std::size_t i = 0; i < packed.size(); ++i) host[staging.host_slots[i]] = packed[i];
}

/// The move of a batch's moved slot i (SlotChange::move_records: from, to, length, first): the
/// last record whose first scratch slot is at most i.
inline int starc_move_of(const int* moves, int move_count, int slot) {
  int low = 0, high = move_count - 1;
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (moves[4 * mid + 3] <= slot) low = mid; else high = mid - 1;
  }
  return low;
}

/// The staged moves applied to `data` on the device: every moved span copied into the scratch
/// buffer, then each to its new slots (every move reads the values from before the batch). The
/// moved slots are split into one contiguous run per work item, copied move by move: one slot
/// each on a GPU, as many runs as moves on a CPU device (few long runs, as OpenCL's starc_move).
template <class T>
inline void starc_move(sycl::queue& q, starc_scatter_staging& staging, T* data, const char* where) {
  if (staging.moved == 0) return;
  T* scratch = starc_staging_room<T>(q, staging, staging.scratch, static_cast<std::size_t>(staging.moved),
                                     "the moved spans", where);
  const int* moves = static_cast<const int*>(staging.moves.data);
  const int move_count = staging.move_count, count = staging.moved;
  const int items = q.get_device().is_cpu() ? move_count : count, run = (count + items - 1) / items;
  starc_at(where, [&] {
    for (const bool out : {true, false})   // the scratch copy, then the moved spans' new slots
      q.parallel_for(sycl::range<1>(static_cast<std::size_t>(items)), [=](sycl::id<1> id) {
        const int first = static_cast<int>(id[0]) * run, last = first + run < count ? first + run : count;
        for (int m = first < last ? starc_move_of(moves, move_count, first) : 0, i = first; i < last; ++m) {
          const int end = moves[4 * m + 3] + moves[4 * m + 2] < last ? moves[4 * m + 3] + moves[4 * m + 2] : last;
          const int shift = moves[4 * m + (out ? 0 : 1)] - moves[4 * m + 3];
          for (; i < end; ++i) {
            if (out) scratch[i] = data[i + shift];
            else data[i + shift] = scratch[i];
          }
        }
      });
  });
}

/// Waits for all submitted work and reports any error it raised.
/// One empty kernel, waited for, before the timer starts: the first submission pays for
/// what later ones do not (the runtime's and the device's start, building the device image
/// that holds this file's kernels where the implementation builds per image, worker threads).
inline void starc_warm_up(sycl::queue& q, const char* where) {
  starc_at(where, [&] { starc_runs_of(q); });
  starc_at(where, [&] { q.parallel_for(sycl::range<1>(1), [=](sycl::id<1>) {}).wait_and_throw(); });
}

inline void starc_finish(sycl::queue& q, const char* where) {
  starc_at(where, [&] { q.wait_and_throw(); });
}

// --- sycl::atomic_ref ----------------------------------------------------------------------------
// The atomic helpers below work through sycl::atomic_ref (relaxed, device scope): fetch_add and
// fetch_sub on every type, fetch_and and fetch_or on integers; *= is a compare-and-swap loop.
//
// Min and max whose old value decides "this update won" (Min/Max assignments with secondary
// targets) are atomic_ref::fetch_min/fetch_max where those return the old value, as SYCL 2020
// says (DPC++), and compare-and-swap loops under STARC_SYCL_FETCH_MINMAX_RETURNS_NEW:
// AdaptiveCpp 24.06 returns the *new* value for floats on every target and for integers with
// --acpp-targets=omp, and a generic build cannot know its target, so it is defined for every
// AdaptiveCpp build (-DSTARC_SYCL_FETCH_MINMAX_RETURNS_NEW defines it for another such
// implementation). Where the result is unused the generator calls
// starc_atomic_update_<min|max>_<type> instead, a plain fetch_min/fetch_max returning nothing.
#if !defined(STARC_SYCL_FETCH_MINMAX_RETURNS_NEW) && \
    (defined(ACPP_VERSION_MAJOR) || defined(__ACPP__) || defined(__HIPSYCL__))
#define STARC_SYCL_FETCH_MINMAX_RETURNS_NEW 1
#endif

template <class T>
using starc_atomic = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device,
                                      sycl::access::address_space::global_space>;

${atomic_helpers}

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

${run_time_checks}

${graph_queries}

#endif  // STARC_SYCL_HPP
