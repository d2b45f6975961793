// TEST DOUBLE, part of <sycl/sycl.hpp> (see there): work-groups of nd_range launches on fibers.
//
// A barrier needs every work-item of a work-group to be alive at once, so each work-group runs
// on one OS thread as fibers (ucontext): a scheduler starts the group's work-items one after
// the other on a fiber; a work-item that reaches a barrier parks its fiber and the next
// work-item starts on another one; when every work-item waits at the barrier, they resume in
// local-id order, and so on until all have returned. Work-groups are shared out over the
// OpenMP threads in contiguous blocks; while no work-item reaches a barrier, one fiber runs the
// thread's work-groups one after the other, so a kernel without barriers costs two context
// switches per thread and launch.
// Work-items of one group never run concurrently, so local memory and the group algorithms
// need no locks, and results are deterministic (lane order). A group whose work-items do not
// all reach the same barriers (undefined behaviour in SYCL; a hang on a GPU) aborts with a
// message naming the work-items and the barriers' source lines.
#ifndef STARC_TEST_SYCL_HOST_DOUBLE_HPP
#error "include <sycl/sycl.hpp>, not this detail header of the SYCL test double"
#endif
#ifndef STARC_TEST_SYCL_HOST_WORK_GROUPS_HPP
#define STARC_TEST_SYCL_HOST_WORK_GROUPS_HPP

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>

// Each work-item's fiber gets this much stack (kernel locals and calls), with a guard page
// below it so an overflow is a segmentation fault, not silent corruption.
#ifndef SYCL_HOST_DOUBLE_FIBER_STACK_KIB
#define SYCL_HOST_DOUBLE_FIBER_STACK_KIB 128
#endif

namespace sycl {
namespace access {
enum class fence_space { local_space, global_space, global_and_local };
enum class decorated { no, yes, legacy };
}  // namespace access

template <int Dimensions = 1> class group;
class sub_group;

namespace detail {
/// Where a barrier or group algorithm was called (GCC's __builtin_FILE/LINE at the caller);
/// the tag keeps any argument of the caller from converting to it.
struct call_site {
  struct here {};
  call_site(here = {}, const char* file = __builtin_FILE(), int line = __builtin_LINE()) : file(file), line(line) {}
  bool operator==(const call_site& other) const { return line == other.line && std::strcmp(file, other.file) == 0; }
  const char* file;
  int line;
};

// Messages go out through fprintf, not std::string: every program with an nd_range launch
// compiles this machinery, and string and vector code added 0.2 s to each such g++ build.
[[noreturn]] __attribute__((cold, noinline)) inline void abort_with(const char* message, const call_site* where = nullptr) {
  if (where) std::fprintf(stderr, "SYCL host test double: %s (%s:%d)\n", message, where->file, where->line);
  else std::fprintf(stderr, "SYCL host test double: %s\n", message);
  std::abort();
}

/// Bytes each work-item may pass through a group algorithm (one value of type T).
constexpr std::size_t collective_slot_bytes = 64;

/// One OS thread's work-group machinery: its fibers (kept across launches, so their stacks
/// are mapped once) and the state of the work-group it is running.
class work_group_runner {
 public:
  static work_group_runner& of_this_thread() {
    thread_local work_group_runner runner;
    return runner;
  }
  work_group_runner(const work_group_runner&) = delete;
  work_group_runner& operator=(const work_group_runner&) = delete;
  ~work_group_runner() {
    for (std::size_t f = 0; f < fiber_count_; ++f) delete fibers_[f];
    delete[] fibers_;
    delete[] idle_;
    delete[] lanes_;
    std::free(local_memory_);
    std::free(collective_);
  }

  /// Runs work-groups [first_group, end_group) of `local_size` work-items each, one after the
  /// other: run_item(group, local_id) runs one work-item.
  template <class RunItem>
  void run(std::size_t first_group, std::size_t end_group, std::size_t local_size, std::size_t local_bytes,
           const RunItem& run_item) {
    body_ = &run_item;
    invoke_ = [](const void* body, std::size_t group, std::size_t lane) {
      (*static_cast<const RunItem*>(body))(group, lane);
    };
    run_groups(first_group, end_group, local_size, local_bytes);
  }

  /// Called by work-item `lane` at a barrier: parks it until the whole group is there.
  void barrier(std::size_t lane, const call_site& where) {
    if (!active_) abort_with("a group barrier outside an nd_range kernel", &where);
    lanes_[lane].site = where;
    reached_barrier_ = true;
    fiber& self = *fibers_[lanes_[lane].fiber];
    swapcontext(&self.context, next_context());
  }

  unsigned char* local_memory(std::size_t offset) {
    if (!active_) abort_with("a local_accessor used outside an nd_range kernel");
    return local_memory_ + offset;
  }

  /// Room for one value per work-item, and after it one result per work-item, of a group algorithm.
  unsigned char* collective_slots() { return collective_; }

 private:
  struct fiber {
    ucontext_t context;  // never moves: glibc's context points into itself
    void* mapping = nullptr;
    std::size_t mapped = 0;
    ~fiber() { if (mapping) munmap(mapping, mapped); }
  };
  struct lane {
    std::size_t fiber = 0;
    bool returned = false;
    call_site site{call_site::here{}, "", 0};
  };

  ucontext_t scheduler_;
  // Plain arrays, not std::vector: every program with an nd_range launch compiles this class,
  // and the vectors' instantiations took as long as the rest. A group has at most
  // max_work_group_size work-items, each holding at most one fiber, so that many fibers suffice.
  fiber** fibers_ = new fiber*[max_work_group_size];
  std::size_t* idle_ = new std::size_t[max_work_group_size];  // fibers parked between work-items
  lane* lanes_ = new lane[max_work_group_size];
  std::size_t fiber_count_ = 0, idle_count_ = 0, local_capacity_ = 0;
  unsigned char* local_memory_ = nullptr;  // malloc'd: aligned for any local_accessor type
  unsigned char* collective_ = static_cast<unsigned char*>(std::malloc(2 * max_work_group_size * collective_slot_bytes));
  const void* body_ = nullptr;
  void (*invoke_)(const void*, std::size_t, std::size_t) = nullptr;
  std::size_t group_id_ = 0, next_group_ = 0, end_group_ = 0, local_size_ = 0, local_bytes_ = 0;
  std::size_t next_unstarted_ = 0, returned_ = 0, starting_ = 0, resume_next_ = 0;
  bool active_ = false, reached_barrier_ = false, resuming_ = false;

  work_group_runner() = default;

  // not a template, so that each kernel instantiates only the two lines above
  void run_groups(std::size_t first_group, std::size_t end_group, std::size_t local_size, std::size_t local_bytes) {
    local_size_ = local_size;
    local_bytes_ = local_bytes;
    if (local_capacity_ < local_bytes) {
      std::free(local_memory_);
      local_memory_ = static_cast<unsigned char*>(std::malloc(local_bytes));
      local_capacity_ = local_bytes;
    }
    if ((local_bytes != 0 && local_memory_ == nullptr) || collective_ == nullptr)
      abort_with("cannot allocate work-group local memory");
    next_group_ = first_group;
    end_group_ = end_group;
    active_ = true;
    while (next_group_ < end_group_) {
      begin_group(next_group_++);
      // a fiber runs the work-items, and the next groups too while none reaches a barrier
      while (next_unstarted_ < local_size_) switch_to(idle_fiber());
      for (std::size_t phase = 1;; ++phase) {  // each work-item now waits at a barrier or has returned
        if (returned_ == local_size_) break;
        check_same_barrier(phase);
        resuming_ = true;  // each work-item hands over to the next one (next_context)
        resume_next_ = 1;
        switch_to(lanes_[0].fiber);
        resuming_ = false;
      }
    }
    active_ = false;
  }

  void begin_group(std::size_t group_id) {
    group_id_ = group_id;
    next_unstarted_ = returned_ = 0;
    reached_barrier_ = false;
    for (std::size_t i = 0; i < local_size_; ++i) lanes_[i].returned = false;
    // local memory is undefined at group start: a poison pattern makes reads before writes show
    if (local_bytes_ != 0) std::memset(local_memory_, 0xA5, local_bytes_);
  }

  void switch_to(std::size_t f) { swapcontext(&scheduler_, &fibers_[f]->context); }

  /// Where a work-item that parks goes: while the group resumes from a barrier, straight to
  /// the next work-item (one context switch each, not two through the scheduler), else back
  /// to the scheduler.
  ucontext_t* next_context() {
    if (resuming_ && resume_next_ < local_size_) return &fibers_[lanes_[resume_next_++].fiber]->context;
    return &scheduler_;
  }

  /// A parked fiber, or a new one whose stack is mapped now and kept for later launches.
  std::size_t idle_fiber() {
    if (idle_count_ != 0) return idle_[--idle_count_];
    if (fiber_count_ == max_work_group_size) abort_with("more fibers than work-items in a work-group");
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t stack = SYCL_HOST_DOUBLE_FIBER_STACK_KIB * std::size_t(1024);
    fiber* made = new fiber();
    made->mapped = stack + page;
    made->mapping = mmap(nullptr, made->mapped, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (made->mapping == MAP_FAILED) {
      made->mapping = nullptr;
      abort_with("cannot map a work-item's fiber stack");
    }
    mprotect(made->mapping, page, PROT_NONE);  // the guard page: stacks grow down into it
    getcontext(&made->context);
    made->context.uc_stack.ss_sp = static_cast<char*>(made->mapping) + page;
    made->context.uc_stack.ss_size = stack;
    made->context.uc_link = nullptr;
    starting_ = fiber_count_;
    makecontext(&made->context, &work_group_runner::fiber_main, 0);
    fibers_[fiber_count_] = made;
    return fiber_count_++;
  }

  /// A fiber's life: start the next work-items of the current group one after the other
  /// (parking inside barrier() when one waits there); when none is left, go on with the next
  /// group if no work-item of this one reached a barrier (so a kernel without barriers costs
  /// two context switches per thread and launch), else park as idle.
  static void fiber_main() {
    work_group_runner& self = of_this_thread();
    const std::size_t me = self.starting_;
    for (;;) {
      for (;;) {
        while (self.next_unstarted_ < self.local_size_) {
          const std::size_t lane = self.next_unstarted_++;
          self.lanes_[lane].fiber = me;
          self.invoke_(self.body_, self.group_id_, lane);
          self.lanes_[lane].returned = true;
          ++self.returned_;
        }
        if (self.reached_barrier_ || self.next_group_ == self.end_group_) break;
        self.begin_group(self.next_group_++);
      }
      self.idle_[self.idle_count_++] = me;
      swapcontext(&self.fibers_[me]->context, self.next_context());
    }
  }

  void check_same_barrier(std::size_t phase) const {
    const lane* first = nullptr;
    std::size_t first_id = 0;
    for (std::size_t i = 0; i < local_size_; ++i) {
      if (lanes_[i].returned) continue;
      if (first == nullptr) {
        first = &lanes_[i];
        first_id = i;
      } else if (!(lanes_[i].site == first->site)) {
        diverged(phase, first_id, i);
      }
    }
    for (std::size_t i = 0; i < local_size_; ++i)
      if (lanes_[i].returned) diverged(phase, first_id, i);
  }

  /// Work-item `waiting` waits at a barrier; `other` has returned or waits at another one.
  [[noreturn]] __attribute__((cold, noinline)) void diverged(std::size_t phase, std::size_t waiting,
                                                             std::size_t other) const {
    const call_site& at = lanes_[waiting].site;
    std::fprintf(stderr,
                 "SYCL host test double: divergent barrier in work-group %zu (barrier number %zu): work-item %zu "
                 "waits at the barrier at %s:%d but work-item %zu ",
                 group_id_, phase, waiting, at.file, at.line, other);
    if (lanes_[other].returned) std::fprintf(stderr, "has returned from the kernel");
    else std::fprintf(stderr, "at the one at %s:%d", lanes_[other].site.file, lanes_[other].site.line);
    std::fprintf(stderr, "; every work-item of a work-group must reach the same barriers and group algorithms "
                         "(undefined behaviour in SYCL 2020; a GPU hangs)\n");
    std::abort();
  }
};
}  // namespace detail

// ---------------------------------------------------------------- groups (SYCL 2020 4.9.1.7-8)
template <int Dimensions>
class group {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional groups");

 public:
  using id_type = id<Dimensions>;
  using range_type = range<Dimensions>;
  using linear_id_type = std::size_t;
  static constexpr int dimensions = Dimensions;
  static constexpr memory_scope fence_scope = memory_scope::work_group;

  group(std::size_t group_id, std::size_t local_id, std::size_t local_size, std::size_t group_count)
      : group_id_(group_id), local_id_(local_id), local_size_(local_size), group_count_(group_count) {}
  id_type get_group_id() const { return id_type(group_id_); }
  std::size_t get_group_id(int) const { return group_id_; }
  std::size_t operator[](int) const { return group_id_; }
  id_type get_local_id() const { return id_type(local_id_); }
  std::size_t get_local_id(int) const { return local_id_; }
  range_type get_local_range() const { return range_type(local_size_); }
  std::size_t get_local_range(int) const { return local_size_; }
  range_type get_group_range() const { return range_type(group_count_); }
  std::size_t get_group_range(int) const { return group_count_; }
  range_type get_max_local_range() const { return range_type(local_size_); }
  linear_id_type get_group_linear_id() const { return group_id_; }
  linear_id_type get_local_linear_id() const { return local_id_; }
  linear_id_type get_group_linear_range() const { return group_count_; }
  linear_id_type get_local_linear_range() const { return local_size_; }
  bool leader() const { return local_id_ == 0; }

 private:
  std::size_t group_id_, local_id_, local_size_, group_count_;
};

/// The double's sub-groups have one work-item each (the size is implementation-defined in
/// SYCL 2020), so every sub-group algorithm returns its own work-item's value.
class sub_group {
 public:
  using id_type = id<1>;
  using range_type = range<1>;
  using linear_id_type = std::uint32_t;
  static constexpr int dimensions = 1;
  static constexpr memory_scope fence_scope = memory_scope::sub_group;

  sub_group(std::size_t index, std::size_t count) : index_(index), count_(count) {}
  id_type get_group_id() const { return id_type(index_); }
  id_type get_local_id() const { return id_type(0); }
  range_type get_local_range() const { return range_type(1); }
  range_type get_group_range() const { return range_type(count_); }
  range_type get_max_local_range() const { return range_type(1); }
  linear_id_type get_group_linear_id() const { return static_cast<linear_id_type>(index_); }
  linear_id_type get_local_linear_id() const { return 0; }
  linear_id_type get_group_linear_range() const { return static_cast<linear_id_type>(count_); }
  linear_id_type get_local_linear_range() const { return 1; }
  bool leader() const { return true; }

 private:
  std::size_t index_, count_;
};

template <class T> struct is_group : std::false_type {};
template <int D> struct is_group<group<D>> : std::true_type {};
template <> struct is_group<sub_group> : std::true_type {};
template <class T> inline constexpr bool is_group_v = is_group<T>::value;

/// A work-item of an nd_range launch; its work-group's items run as fibers (detail/work_groups.hpp).
template <int Dimensions = 1>
class nd_item {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional nd_items");

 public:
  nd_item(std::size_t global, std::size_t global_size, std::size_t local_size)
      : global_(global), global_size_(global_size), local_size_(local_size) {}
  id<Dimensions> get_global_id() const { return id<Dimensions>(global_); }
  std::size_t get_global_id(int) const { return global_; }
  std::size_t get_global_linear_id() const { return global_; }
  id<Dimensions> get_local_id() const { return id<Dimensions>(global_ % local_size_); }
  std::size_t get_local_id(int) const { return global_ % local_size_; }
  std::size_t get_local_linear_id() const { return global_ % local_size_; }
  group<Dimensions> get_group() const {
    return group<Dimensions>(global_ / local_size_, global_ % local_size_, local_size_, global_size_ / local_size_);
  }
  std::size_t get_group(int) const { return global_ / local_size_; }
  std::size_t get_group_linear_id() const { return global_ / local_size_; }
  sub_group get_sub_group() const { return sub_group(global_ % local_size_, local_size_); }
  std::size_t get_global_range(int) const { return global_size_; }
  std::size_t get_local_range(int) const { return local_size_; }
  std::size_t get_group_range(int) const { return global_size_ / local_size_; }
  range<Dimensions> get_global_range() const { return range<Dimensions>(global_size_); }
  range<Dimensions> get_local_range() const { return range<Dimensions>(local_size_); }
  range<Dimensions> get_group_range() const { return range<Dimensions>(global_size_ / local_size_); }
  nd_range<Dimensions> get_nd_range() const { return nd_range<Dimensions>(get_global_range(), get_local_range()); }
  /// SYCL 1.2.1's spelling of group_barrier(get_group()), still in DPC++ and AdaptiveCpp.
  void barrier(access::fence_space = access::fence_space::global_and_local,
               detail::call_site where = {}) const {
    detail::work_group_runner::of_this_thread().barrier(get_local_linear_id(), where);
  }

 private:
  std::size_t global_, global_size_, local_size_;
};

template <int D>
void group_barrier(group<D> g, memory_scope = group<D>::fence_scope, detail::call_site where = {}) {
  detail::work_group_runner::of_this_thread().barrier(g.get_local_linear_id(), where);
}
inline void group_barrier(sub_group, memory_scope = sub_group::fence_scope) {}

inline void atomic_fence(memory_order order, memory_scope) { __atomic_thread_fence(detail::gcc_order(order)); }

// ---------------------------------------------------------------- group algorithms (SYCL 2020 4.17.4)
namespace detail {
/// One group algorithm: every work-item leaves `x` in its slot and waits at a barrier; the
/// scheduler resumes work-item 0 first, which fills the results with compute(values, results,
/// n) before any other work-item reads its own (`read_at(local_id)`). The results stay
/// untouched until the next group algorithm's barrier, which every reader reaches only after
/// reading, so one barrier suffices.
template <class T, class Compute, class ReadAt>
T over_group(const group<1>& g, const T& x, const call_site& where, const Compute& compute, const ReadAt& read_at) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= collective_slot_bytes,
                "the SYCL test double's group algorithms take trivially copyable values of up to 64 bytes");
  work_group_runner& runner = work_group_runner::of_this_thread();
  const std::size_t n = g.get_local_linear_range(), me = g.get_local_linear_id();
  T* values = reinterpret_cast<T*>(runner.collective_slots());
  T* results = reinterpret_cast<T*>(runner.collective_slots() + n * collective_slot_bytes);
  std::memcpy(static_cast<void*>(values + me), &x, sizeof(T));
  runner.barrier(me, where);
  if (me == 0) compute(values, results, n);
  return results[read_at(me)];
}

template <class T, class Op>
T identity_of() {
  static_assert(known_identity<T, Op>::known,
                "exclusive_scan_over_group without an init needs an operator with a known identity");
  return known_identity<T, Op>::value();
}

inline std::size_t first_result(std::size_t) { return 0; }
inline std::size_t own_result(std::size_t me) { return me; }

/// Left fold of values[0..n) in local-id order.
template <class T, class Op>
T fold(const T* values, std::size_t n, const Op& op) {
  T total = values[0];
  for (std::size_t i = 1; i < n; ++i) total = static_cast<T>(op(total, values[i]));
  return total;
}
}  // namespace detail

template <class T, int D>
T group_broadcast(group<D> g, T x, typename group<D>::linear_id_type local_linear_id,
                  detail::call_site where = {}) {
  return detail::over_group(g, x, where, [local_linear_id](const T* values, T* results, std::size_t) {
    results[0] = values[local_linear_id];
  }, detail::first_result);
}
template <class T, int D>
T group_broadcast(group<D> g, T x, typename group<D>::id_type local_id, detail::call_site where = {}) {
  return group_broadcast(g, x, local_id[0], where);
}
template <class T, int D>
T group_broadcast(group<D> g, T x, detail::call_site where = {}) {
  return group_broadcast(g, x, std::size_t(0), where);
}

template <class T, class BinaryOperation, int D>
T reduce_over_group(group<D> g, T x, BinaryOperation op, detail::call_site where = {}) {
  return detail::over_group(g, x, where, [op](const T* values, T* results, std::size_t n) {
    results[0] = detail::fold(values, n, op);
  }, detail::first_result);
}
template <class V, class T, class BinaryOperation, int D>
T reduce_over_group(group<D> g, V x, T init, BinaryOperation op, detail::call_site where = {}) {
  return static_cast<T>(op(init, reduce_over_group(g, static_cast<T>(x), op, where)));
}

template <int D>
bool any_of_group(group<D> g, bool pred, detail::call_site where = {}) {
  return reduce_over_group(g, pred, logical_or<bool>(), where);
}
template <int D>
bool all_of_group(group<D> g, bool pred, detail::call_site where = {}) {
  return reduce_over_group(g, pred, logical_and<bool>(), where);
}
template <int D>
bool none_of_group(group<D> g, bool pred, detail::call_site where = {}) {
  return !any_of_group(g, pred, where);
}
template <class T, class Predicate, int D, class = std::enable_if_t<!std::is_same_v<Predicate, detail::call_site>>>
bool any_of_group(group<D> g, T x, Predicate pred, detail::call_site where = {}) {
  return any_of_group(g, static_cast<bool>(pred(x)), where);
}
template <class T, class Predicate, int D, class = std::enable_if_t<!std::is_same_v<Predicate, detail::call_site>>>
bool all_of_group(group<D> g, T x, Predicate pred, detail::call_site where = {}) {
  return all_of_group(g, static_cast<bool>(pred(x)), where);
}
template <class T, class Predicate, int D, class = std::enable_if_t<!std::is_same_v<Predicate, detail::call_site>>>
bool none_of_group(group<D> g, T x, Predicate pred, detail::call_site where = {}) {
  return none_of_group(g, static_cast<bool>(pred(x)), where);
}

template <class T, class BinaryOperation, int D>
T inclusive_scan_over_group(group<D> g, T x, BinaryOperation op, detail::call_site where = {}) {
  return detail::over_group(g, x, where, [op](const T* values, T* results, std::size_t n) {
    results[0] = values[0];
    for (std::size_t i = 1; i < n; ++i) results[i] = static_cast<T>(op(results[i - 1], values[i]));
  }, detail::own_result);
}
template <class V, class BinaryOperation, class T, int D>
T inclusive_scan_over_group(group<D> g, V x, BinaryOperation op, T init, detail::call_site where = {}) {
  return static_cast<T>(op(init, inclusive_scan_over_group(g, static_cast<T>(x), op, where)));
}
template <class V, class T, class BinaryOperation, int D>
T exclusive_scan_over_group(group<D> g, V x, T init, BinaryOperation op, detail::call_site where = {}) {
  return detail::over_group(g, static_cast<T>(x), where, [op, init](const T* values, T* results, std::size_t n) {
    results[0] = init;
    for (std::size_t i = 1; i < n; ++i) results[i] = static_cast<T>(op(results[i - 1], values[i - 1]));
  }, detail::own_result);
}
template <class T, class BinaryOperation, int D>
T exclusive_scan_over_group(group<D> g, T x, BinaryOperation op, detail::call_site where = {}) {
  return exclusive_scan_over_group(g, x, detail::identity_of<T, BinaryOperation>(), op, where);
}

// Sub-groups of one work-item: each algorithm is its own work-item's answer.
template <class T> T group_broadcast(sub_group, T x) { return x; }
template <class T> T group_broadcast(sub_group, T x, sub_group::linear_id_type) { return x; }
template <class T> T group_broadcast(sub_group, T x, sub_group::id_type) { return x; }
template <class T> T select_from_group(sub_group, T x, sub_group::id_type) { return x; }
template <class T> T shift_group_left(sub_group, T x, sub_group::linear_id_type = 1) { return x; }
template <class T> T shift_group_right(sub_group, T x, sub_group::linear_id_type = 1) { return x; }
template <class T> T permute_group_by_xor(sub_group, T x, sub_group::linear_id_type) { return x; }
template <class T, class BinaryOperation> T reduce_over_group(sub_group, T x, BinaryOperation) { return x; }
template <class V, class T, class BinaryOperation>
T reduce_over_group(sub_group, V x, T init, BinaryOperation op) { return static_cast<T>(op(init, static_cast<T>(x))); }
inline bool any_of_group(sub_group, bool pred) { return pred; }
inline bool all_of_group(sub_group, bool pred) { return pred; }
inline bool none_of_group(sub_group, bool pred) { return !pred; }
template <class T, class BinaryOperation> T inclusive_scan_over_group(sub_group, T x, BinaryOperation) { return x; }
template <class V, class BinaryOperation, class T>
T inclusive_scan_over_group(sub_group, V x, BinaryOperation op, T init) { return static_cast<T>(op(init, static_cast<T>(x))); }
template <class T, class BinaryOperation>
T exclusive_scan_over_group(sub_group, T, BinaryOperation) { return detail::identity_of<T, BinaryOperation>(); }
template <class V, class T, class BinaryOperation>
T exclusive_scan_over_group(sub_group, V, T init, BinaryOperation) { return init; }

// ---------------------------------------------------------------- multi_ptr, the pointer local_accessor hands out
template <typename ElementType, access::address_space Space, access::decorated DecorateAddress>
class multi_ptr {
 public:
  using value_type = ElementType;
  using pointer = ElementType*;
  using reference = ElementType&;
  explicit multi_ptr(ElementType* ptr) : ptr_(ptr) {}
  pointer get() const { return ptr_; }
  ElementType* get_raw() const { return ptr_; }
  reference operator*() const { return *ptr_; }
  pointer operator->() const { return ptr_; }
  reference operator[](std::ptrdiff_t i) const { return ptr_[i]; }

 private:
  ElementType* ptr_;
};
template <typename ElementType, access::decorated IsDecorated = access::decorated::legacy>
using local_ptr = multi_ptr<ElementType, access::address_space::local_space, IsDecorated>;

}  // namespace sycl

#endif  // STARC_TEST_SYCL_HOST_WORK_GROUPS_HPP
