// TEST DOUBLE: a subset of SYCL 2020 on OpenMP for starc's CI, not a SYCL implementation.
//
// No SYCL compiler exists in the package registries CI uses, so the tests compile starc's
// generated SYCL with `g++ -std=c++17 -fopenmp -I tests/support/sycl_host` against this
// header. It implements, with the standard SYCL 2020 names and signatures, exactly the subset
// the SYCL backend emits (see README.md next to this folder): one "cpu" host device, queue,
// USM allocation and copies, parallel_for over range<1>/nd_range<1> (work-groups with
// barriers, local memory and group algorithms: detail/work_groups.hpp), single_task,
// reduction, atomic_ref and exception. All work is done eagerly on the calling thread's
// OpenMP team, so every event is already complete. It is never shipped with starc and never emitted into
// generated code; generated code must stay standard SYCL 2020 and build with a real compiler.
// Without -fopenmp it still compiles and runs everything sequentially.
#ifndef STARC_TEST_SYCL_HOST_DOUBLE_HPP
#define STARC_TEST_SYCL_HOST_DOUBLE_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#define SYCL_HOST_DOUBLE_OMP(directive) _Pragma(directive)
#else
#define SYCL_HOST_DOUBLE_OMP(directive)
#endif

namespace sycl {

// ---------------------------------------------------------------- exceptions (SYCL 2020 4.13.2)
enum class errc {
  success = 0, runtime, kernel, accessor, nd_range, event, kernel_argument, build, invalid,
  memory_allocation, platform, profiling, feature_not_supported, kernel_not_supported,
  backend_mismatch
};

namespace detail {
class sycl_error_category : public std::error_category {
 public:
  const char* name() const noexcept override { return "sycl"; }
  std::string message(int code) const override { return "sycl error " + std::to_string(code); }
};
}  // namespace detail

inline const std::error_category& sycl_category() noexcept {
  static const detail::sycl_error_category category;
  return category;
}

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), sycl_category()}; }

class exception : public virtual std::exception {
 public:
  exception(std::error_code ec, const std::string& what_arg) : code_(ec), what_(what_arg) {}
  exception(std::error_code ec, const char* what_arg) : code_(ec), what_(what_arg) {}
  explicit exception(std::error_code ec) : code_(ec), what_(ec.message()) {}
  exception(int ev, const std::error_category& category, const std::string& what_arg)
      : code_(ev, category), what_(what_arg) {}
  const std::error_code& code() const noexcept { return code_; }
  const std::error_category& category() const noexcept { return code_.category(); }
  const char* what() const noexcept override { return what_.c_str(); }
  bool has_context() const noexcept { return false; }

 private:
  std::error_code code_;
  std::string what_;
};

}  // namespace sycl

template <>
struct std::is_error_code_enum<sycl::errc> : std::true_type {};

namespace sycl {

// ---------------------------------------------------------------- properties
namespace property {
namespace queue {
struct in_order {};
struct enable_profiling {};
}  // namespace queue
namespace reduction {
struct initialize_to_identity {};
}  // namespace reduction
}  // namespace property

namespace detail {
template <class P> struct property_bit { static constexpr unsigned value = 0; };
template <> struct property_bit<property::queue::in_order> { static constexpr unsigned value = 1; };
template <> struct property_bit<property::queue::enable_profiling> { static constexpr unsigned value = 2; };
template <> struct property_bit<property::reduction::initialize_to_identity> { static constexpr unsigned value = 4; };
}  // namespace detail

class property_list {
 public:
  template <class... Properties,
            class = std::enable_if_t<((detail::property_bit<Properties>::value != 0) && ...)>>
  property_list(Properties... properties) : bits_((0u | ... | detail::property_bit<Properties>::value)) {
    ((void)properties, ...);
  }
  template <class Property>
  bool has_property() const noexcept { return (bits_ & detail::property_bit<Property>::value) != 0; }

 private:
  unsigned bits_;
};

// ---------------------------------------------------------------- device and selectors
enum class aspect {
  cpu, gpu, accelerator, custom, emulated, host_debuggable, fp16, fp64, atomic64, image,
  online_compiler, online_linker, queue_profiling, usm_device_allocations, usm_host_allocations,
  usm_atomic_host_allocations, usm_shared_allocations, usm_atomic_shared_allocations,
  usm_system_allocations
};

namespace info {
enum class device_type { cpu, gpu, accelerator, custom, automatic, host, all };
namespace device {
struct name { using return_type = std::string; };
struct vendor { using return_type = std::string; };
struct device_type { using return_type = info::device_type; };
struct max_compute_units { using return_type = std::uint32_t; };
struct max_work_group_size { using return_type = std::size_t; };
}  // namespace device
}  // namespace info

namespace detail {
constexpr std::size_t max_work_group_size = 1024;

inline int thread_count() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
}  // namespace detail

/// The one device of the test double: the host CPU, driven by OpenMP. Where the environment
/// sets STARC_SYCL_DOUBLE_GPU=1 it says it is a GPU instead, so that a test runs the launches a
/// program makes for a GPU (one work-item per item, real work-groups of --block-size).
class device {
 public:
  bool is_cpu() const noexcept { return !as_gpu(); }
  bool is_gpu() const noexcept { return as_gpu(); }
  bool is_accelerator() const noexcept { return false; }
  bool has(aspect a) const noexcept {
    if (a == aspect::gpu) return as_gpu();
    if (a == aspect::cpu) return !as_gpu();
    return a != aspect::gpu && a != aspect::accelerator && a != aspect::custom && a != aspect::fp16 &&
           a != aspect::image && a != aspect::online_compiler && a != aspect::online_linker;
  }
  template <class Param>
  typename Param::return_type get_info() const {
    if constexpr (std::is_same_v<Param, info::device::name>) {
      return "starc SYCL host test double (OpenMP, " + std::to_string(detail::thread_count()) + " threads)";
    } else if constexpr (std::is_same_v<Param, info::device::vendor>) {
      return "starc tests";
    } else if constexpr (std::is_same_v<Param, info::device::device_type>) {
      return as_gpu() ? info::device_type::gpu : info::device_type::cpu;
    } else if constexpr (std::is_same_v<Param, info::device::max_compute_units>) {
      return static_cast<std::uint32_t>(detail::thread_count());
    } else {
      static_assert(std::is_same_v<Param, info::device::max_work_group_size>,
                    "this info::device descriptor is not in the SYCL test double's subset");
      return detail::max_work_group_size;
    }
  }

 private:
  static bool as_gpu() noexcept {
    const char* gpu = std::getenv("STARC_SYCL_DOUBLE_GPU");
    return gpu != nullptr && std::string(gpu) == "1";
  }
};

// Selectors are callables scoring a device; a negative score rejects it (SYCL 2020 4.6.1.1).
inline int default_selector_v(const device&) { return 1; }
inline int cpu_selector_v(const device& d) { return d.is_cpu() ? 1 : -1; }
inline int gpu_selector_v(const device& d) { return d.is_gpu() ? 1 : -1; }
inline int accelerator_selector_v(const device& d) { return d.is_accelerator() ? 1 : -1; }

// ---------------------------------------------------------------- range, id, item, nd_range
template <int Dimensions = 1> class item;

template <int Dimensions = 1>
class range {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional ranges");

 public:
  range(std::size_t dim0) : size_(dim0) {}
  std::size_t get(int) const { return size_; }
  std::size_t& operator[](int) { return size_; }
  std::size_t operator[](int) const { return size_; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
};
range(std::size_t) -> range<1>;

template <int Dimensions = 1>
class id {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional ids");

 public:
  id() : value_(0) {}
  id(std::size_t dim0) : value_(dim0) {}
  id(const item<Dimensions>& it) : value_(it.get_id(0)) {}
  std::size_t get(int) const { return value_; }
  std::size_t& operator[](int) { return value_; }
  std::size_t operator[](int) const { return value_; }
  operator std::size_t() const { return value_; }  // only for 1 dimension, as in SYCL 2020

 private:
  std::size_t value_;
};
id(std::size_t) -> id<1>;

template <int Dimensions>
class item {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional items");

 public:
  item(std::size_t index, std::size_t extent) : index_(index), extent_(extent) {}
  id<Dimensions> get_id() const { return id<Dimensions>(index_); }
  std::size_t get_id(int) const { return index_; }
  std::size_t operator[](int) const { return index_; }
  range<Dimensions> get_range() const { return range<Dimensions>(extent_); }
  std::size_t get_range(int) const { return extent_; }
  std::size_t get_linear_id() const { return index_; }
  operator std::size_t() const { return index_; }

 private:
  std::size_t index_, extent_;
};

template <int Dimensions = 1>
class nd_range {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional nd_ranges");

 public:
  nd_range(range<Dimensions> global, range<Dimensions> local) : global_(global), local_(local) {}
  range<Dimensions> get_global_range() const { return global_; }
  range<Dimensions> get_local_range() const { return local_; }
  range<Dimensions> get_group_range() const { return range<Dimensions>(global_.size() / local_.size()); }

 private:
  range<Dimensions> global_, local_;
};

// ---------------------------------------------------------------- function objects (SYCL 2020 4.17.2)
#define SYCL_HOST_DOUBLE_BINARY_OP(NAME, EXPRESSION)                                  \
  template <typename T = void>                                                        \
  struct NAME {                                                                       \
    T operator()(const T& x, const T& y) const { return static_cast<T>(EXPRESSION); } \
  };                                                                                  \
  template <>                                                                         \
  struct NAME<void> {                                                                 \
    template <typename T, typename U>                                                 \
    auto operator()(T&& x, U&& y) const { return EXPRESSION; }                        \
  };
SYCL_HOST_DOUBLE_BINARY_OP(plus, x + y)
SYCL_HOST_DOUBLE_BINARY_OP(multiplies, x * y)
SYCL_HOST_DOUBLE_BINARY_OP(bit_and, x & y)
SYCL_HOST_DOUBLE_BINARY_OP(bit_or, x | y)
SYCL_HOST_DOUBLE_BINARY_OP(bit_xor, x ^ y)
SYCL_HOST_DOUBLE_BINARY_OP(logical_and, x && y)
SYCL_HOST_DOUBLE_BINARY_OP(logical_or, x || y)
SYCL_HOST_DOUBLE_BINARY_OP(minimum, (x < y) ? x : y)
SYCL_HOST_DOUBLE_BINARY_OP(maximum, (x < y) ? y : x)
#undef SYCL_HOST_DOUBLE_BINARY_OP

// ---------------------------------------------------------------- reductions (SYCL 2020 4.9.2)
namespace detail {
template <class Op, template <class> class Known, class T>
constexpr bool is_op_v = std::is_same_v<Op, Known<T>> || std::is_same_v<Op, Known<void>>;

/// The identity of a known operator (SYCL 2020 known_identity), or false in `known`.
template <class T, class Op>
struct known_identity {
  static constexpr bool known = is_op_v<Op, plus, T> || is_op_v<Op, multiplies, T> || is_op_v<Op, minimum, T> ||
                                is_op_v<Op, maximum, T> || is_op_v<Op, bit_and, T> || is_op_v<Op, bit_or, T> ||
                                is_op_v<Op, bit_xor, T> || is_op_v<Op, logical_and, T> || is_op_v<Op, logical_or, T>;
  static T value() {
    using limits = std::numeric_limits<T>;
    if constexpr (is_op_v<Op, multiplies, T>) return T(1);
    else if constexpr (is_op_v<Op, minimum, T>) return limits::has_infinity ? limits::infinity() : limits::max();
    else if constexpr (is_op_v<Op, maximum, T>) return limits::has_infinity ? -limits::infinity() : limits::lowest();
    else if constexpr (is_op_v<Op, bit_and, T>) return static_cast<T>(~T(0));
    else if constexpr (is_op_v<Op, logical_and, T>) return T(true);
    else return T(0);  // plus, bit_or, bit_xor, logical_or
  }
};

/// What sycl::reduction returns: the variable, its identity and operator, and whether the
/// variable's old value takes part (it does unless initialize_to_identity is given).
template <class T, class Op>
struct reduction_descriptor {
  T* variable;
  T identity;
  Op op;
  bool initialize_to_identity;
};
}  // namespace detail

/// Each thread's private accumulator; the kernel receives it by reference.
template <typename T, typename BinaryOperation>
class reducer {
 public:
  explicit reducer(const detail::reduction_descriptor<T, BinaryOperation>& d)
      : value_(d.identity), identity_(d.identity), op_(d.op) {}
  reducer(const reducer&) = delete;
  reducer& operator=(const reducer&) = delete;

  reducer& combine(const T& partial) {
    value_ = static_cast<T>(op_(value_, partial));
    return *this;
  }
  T identity() const { return identity_; }

  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, plus, T>>>
  reducer& operator+=(const T& x) { return combine(x); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, plus, T> && std::is_integral_v<T>>>
  reducer& operator++() { return combine(T(1)); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, plus, T> && std::is_integral_v<T>>>
  void operator++(int) { combine(T(1)); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, multiplies, T>>>
  reducer& operator*=(const T& x) { return combine(x); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, bit_and, T>>>
  reducer& operator&=(const T& x) { return combine(x); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, bit_or, T>>>
  reducer& operator|=(const T& x) { return combine(x); }
  template <class O = BinaryOperation, class = std::enable_if_t<detail::is_op_v<O, bit_xor, T>>>
  reducer& operator^=(const T& x) { return combine(x); }

  const T& value() const { return value_; }  // test-double internals, not SYCL API

 private:
  T value_;
  T identity_;
  BinaryOperation op_;
};

template <typename T, typename BinaryOperation>
detail::reduction_descriptor<T, BinaryOperation> reduction(T* variable, BinaryOperation combiner,
                                                           const property_list& properties = {}) {
  static_assert(detail::known_identity<T, BinaryOperation>::known,
                "the SYCL test double needs an explicit identity for this reduction operator");
  return {variable, detail::known_identity<T, BinaryOperation>::value(), combiner,
          properties.has_property<property::reduction::initialize_to_identity>()};
}

template <typename T, typename BinaryOperation>
detail::reduction_descriptor<T, BinaryOperation> reduction(T* variable, const T& identity, BinaryOperation combiner,
                                                           const property_list& properties = {}) {
  return {variable, identity, combiner, properties.has_property<property::reduction::initialize_to_identity>()};
}

// ---------------------------------------------------------------- atomic_ref (SYCL 2020 4.15.3)
enum class memory_order { relaxed, acquire, release, acq_rel, seq_cst };
enum class memory_scope { work_item, sub_group, work_group, device, system };
namespace access {
enum class address_space { global_space, local_space, constant_space, private_space, generic_space };
}  // namespace access

namespace detail {
constexpr int gcc_order(memory_order order) {
  switch (order) {
    case memory_order::relaxed: return __ATOMIC_RELAXED;
    case memory_order::acquire: return __ATOMIC_ACQUIRE;
    case memory_order::release: return __ATOMIC_RELEASE;
    case memory_order::acq_rel: return __ATOMIC_ACQ_REL;
    case memory_order::seq_cst: return __ATOMIC_SEQ_CST;
  }
  return __ATOMIC_SEQ_CST;
}
constexpr memory_order read_order(memory_order order) {  // a load cannot release
  return order == memory_order::acq_rel ? memory_order::acquire
                                        : order == memory_order::release ? memory_order::relaxed : order;
}
constexpr memory_order write_order(memory_order order) {  // a store cannot acquire
  return order == memory_order::acq_rel ? memory_order::release
                                        : order == memory_order::acquire ? memory_order::relaxed : order;
}
}  // namespace detail

template <typename T, memory_order DefaultOrder, memory_scope DefaultScope,
          access::address_space AddressSpace = access::address_space::generic_space>
class atomic_ref {
  static_assert((std::is_integral_v<T> || std::is_floating_point_v<T>) && (sizeof(T) == 4 || sizeof(T) == 8) &&
                    !std::is_same_v<T, bool>,
                "atomic_ref supports int, unsigned, long, long long (and unsigned), float and double");
  static_assert(DefaultOrder == memory_order::relaxed || DefaultOrder == memory_order::acq_rel ||
                    DefaultOrder == memory_order::seq_cst,
                "SYCL 2020: the default order of atomic_ref is relaxed, acq_rel or seq_cst");

 public:
  using value_type = T;
  static constexpr std::size_t required_alignment = sizeof(T);
  static constexpr bool is_always_lock_free = true;
  static constexpr memory_order default_read_order = detail::read_order(DefaultOrder);
  static constexpr memory_order default_write_order = detail::write_order(DefaultOrder);
  static constexpr memory_order default_read_modify_write_order = DefaultOrder;
  static constexpr memory_scope default_scope = DefaultScope;

  explicit atomic_ref(T& ref) : ptr_(&ref) {}
  atomic_ref(const atomic_ref&) noexcept = default;
  atomic_ref& operator=(const atomic_ref&) = delete;

  bool is_lock_free() const noexcept { return true; }

  T load(memory_order order = default_read_order, memory_scope = default_scope) const noexcept {
    T value;
    __atomic_load(ptr_, &value, detail::gcc_order(detail::read_order(order)));
    return value;
  }
  void store(T operand, memory_order order = default_write_order, memory_scope = default_scope) const noexcept {
    __atomic_store(ptr_, &operand, detail::gcc_order(detail::write_order(order)));
  }
  operator T() const noexcept { return load(); }
  T operator=(T desired) const noexcept {
    store(desired);
    return desired;
  }
  T exchange(T operand, memory_order order = default_read_modify_write_order,
             memory_scope = default_scope) const noexcept {
    T old;
    __atomic_exchange(ptr_, &operand, &old, detail::gcc_order(order));
    return old;
  }

  bool compare_exchange_weak(T& expected, T desired, memory_order success, memory_order failure,
                             memory_scope = default_scope) const noexcept {
    return __atomic_compare_exchange(ptr_, &expected, &desired, true, detail::gcc_order(success),
                                     detail::gcc_order(detail::read_order(failure)));
  }
  bool compare_exchange_weak(T& expected, T desired, memory_order order = default_read_modify_write_order,
                             memory_scope scope = default_scope) const noexcept {
    return compare_exchange_weak(expected, desired, order, order, scope);
  }
  bool compare_exchange_strong(T& expected, T desired, memory_order success, memory_order failure,
                               memory_scope = default_scope) const noexcept {
    return __atomic_compare_exchange(ptr_, &expected, &desired, false, detail::gcc_order(success),
                                     detail::gcc_order(detail::read_order(failure)));
  }
  bool compare_exchange_strong(T& expected, T desired, memory_order order = default_read_modify_write_order,
                               memory_scope scope = default_scope) const noexcept {
    return compare_exchange_strong(expected, desired, order, order, scope);
  }

  T fetch_add(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    if constexpr (std::is_integral_v<T>) return __atomic_fetch_add(ptr_, operand, detail::gcc_order(order));
    else return update([operand](T old) { return old + operand; }, order);
  }
  T fetch_sub(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    if constexpr (std::is_integral_v<T>) return __atomic_fetch_sub(ptr_, operand, detail::gcc_order(order));
    else return update([operand](T old) { return old - operand; }, order);
  }
  // With SYCL_HOST_FETCH_MINMAX_RETURNS_NEW defined, fetch_min/fetch_max return the value they
  // leave in memory instead of the old one, as AdaptiveCpp 24.06 does (floats on every target,
  // integers with --acpp-targets=omp); the tests build starc's programs once in that mode.
  T fetch_min(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    auto next = [operand](T old) { return operand < old ? operand : old; };
#ifdef SYCL_HOST_FETCH_MINMAX_RETURNS_NEW
    return next(update(next, order));
#else
    return update(next, order);
#endif
  }
  T fetch_max(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    auto next = [operand](T old) { return old < operand ? operand : old; };
#ifdef SYCL_HOST_FETCH_MINMAX_RETURNS_NEW
    return next(update(next, order));
#else
    return update(next, order);
#endif
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_and(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    return __atomic_fetch_and(ptr_, operand, detail::gcc_order(order));
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_or(T operand, memory_order order = default_read_modify_write_order,
             memory_scope = default_scope) const noexcept {
    return __atomic_fetch_or(ptr_, operand, detail::gcc_order(order));
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_xor(T operand, memory_order order = default_read_modify_write_order,
              memory_scope = default_scope) const noexcept {
    return __atomic_fetch_xor(ptr_, operand, detail::gcc_order(order));
  }

 private:
  T* ptr_;

  /// Compare-and-swap loop applying `next` (floats, and min/max of every type); returns the old value.
  template <class F>
  T update(F next, memory_order order) const noexcept {
    T old = load(memory_order::relaxed);
    while (!compare_exchange_weak(old, next(old), order, memory_order::relaxed)) {
    }
    return old;
  }
};

}  // namespace sycl

// nd_item, groups, barriers, group algorithms, multi_ptr: work-groups run as fibers
#include "detail/work_groups.hpp"

namespace sycl {

// ---------------------------------------------------------------- events and kernel execution
class event {
 public:
  void wait() {}  // all work of the test double is done before the event is returned
  void wait_and_throw() {}
  static void wait(const std::vector<event>&) {}
  static void wait_and_throw(const std::vector<event>&) {}
};

namespace detail {
struct unnamed_kernel;

/// Runs `body(i)` for i in [0, n) on the OpenMP team, statically scheduled.
template <class Body>
void for_each_index(std::size_t n, const Body& body) {
  SYCL_HOST_DOUBLE_OMP("omp parallel for schedule(static)")
  for (std::size_t i = 0; i < n; ++i) body(i);
}

/// Runs run_unit(i, reducers...) for every unit i in [0, n) (a work-item of a range launch, a
/// work-group of an nd_range launch) with one thread-private reducer per reduction; partials
/// are combined in thread order (deterministic for a fixed thread count), then into the
/// user's variables.
template <class RunUnit, class... T, class... Op>
void run_with_reductions(std::size_t n, const RunUnit& run_unit, reduction_descriptor<T, Op>&... reductions) {
  std::tuple<T...> totals(reductions.identity...);
  SYCL_HOST_DOUBLE_OMP("omp parallel")
  {
    std::tuple<reducer<T, Op>...> partial(reductions...);  // built in place: reducers do not move
    SYCL_HOST_DOUBLE_OMP("omp for schedule(static)")
    for (std::size_t i = 0; i < n; ++i)
      std::apply([&](auto&... r) { run_unit(i, r...); }, partial);
#ifdef _OPENMP
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
#else
    const int threads = 1, me = 0;
#endif
    for (int t = 0; t < threads; ++t) {
      if (t == me)
        std::apply([&](auto&... total) {
          std::apply([&](auto&... r) { ((total = static_cast<T>(reductions.op(total, r.value()))), ...); }, partial);
        }, totals);
      SYCL_HOST_DOUBLE_OMP("omp barrier")
    }
  }
  std::apply([&](auto&... total) {
    ((*reductions.variable = reductions.initialize_to_identity
                                 ? total
                                 : static_cast<T>(reductions.op(*reductions.variable, total))),
     ...);
  }, totals);
}

/// Splits parallel_for's arguments after the range into reductions and the kernel, and runs
/// run_unit(i, kernel, reducers...) for every unit i in [0, units).
template <class Tuple, std::size_t... Is, class RunUnit>
void launch(std::size_t units, Tuple&& args, std::index_sequence<Is...>, const RunUnit& run_unit) {
  constexpr std::size_t last = sizeof...(Is);
  const auto& kernel = std::get<last>(args);  // kernels are called as const, as in SYCL
  if constexpr (last == 0) {
    for_each_index(units, [&](std::size_t i) { run_unit(i, kernel); });
  } else {
    run_with_reductions(units, [&](std::size_t i, auto&... r) { run_unit(i, kernel, r...); }, std::get<Is>(args)...);
  }
}

/// parallel_for(range, reductions..., kernel): the shared body of queue and handler. Each
/// work-item is one loop iteration.
template <class... Rest>
event parallel_for(range<1> r, Rest&&... rest) {
  static_assert(sizeof...(Rest) >= 1, "parallel_for needs a kernel");
  const std::size_t n = r.size();
  launch(n, std::forward_as_tuple(rest...), std::make_index_sequence<sizeof...(Rest) - 1>(),
         [n](std::size_t i, const auto& kernel, auto&... r) { kernel(item<1>(i, n), r...); });
  return {};
}

/// parallel_for(nd_range, reductions..., kernel) with `local_bytes` of local_accessor memory
/// per work-group: work-groups are spread over the OpenMP team; each runs on its thread's
/// fibers (detail/work_groups.hpp).
template <class... Rest>
event parallel_for_groups(nd_range<1> r, std::size_t local_bytes, Rest&&... rest) {
  static_assert(sizeof...(Rest) >= 1, "parallel_for needs a kernel");
  const std::size_t global = r.get_global_range().size(), local = r.get_local_range().size();
  if (local == 0 || global % local != 0)
    throw exception(make_error_code(errc::nd_range),
                    "nd_range: the global range " + std::to_string(global) +
                        " is not a multiple of the local range " + std::to_string(local));
  if (local > max_work_group_size)
    throw exception(make_error_code(errc::nd_range),
                    "nd_range: the local range " + std::to_string(local) +
                        " exceeds the device's max_work_group_size " + std::to_string(max_work_group_size));
  // one unit per thread: a contiguous share of the work-groups, which its fibers run in turn
  const std::size_t groups = global / local;
  const std::size_t threads = static_cast<std::size_t>(thread_count()), shares = groups < threads ? groups : threads;
  launch(shares, std::forward_as_tuple(rest...), std::make_index_sequence<sizeof...(Rest) - 1>(),
         [=](std::size_t share, const auto& kernel, auto&... r) {
           const std::size_t size = groups / shares, extra = groups % shares;
           const std::size_t first = share * size + (share < extra ? share : extra);
           work_group_runner::of_this_thread().run(
               first, first + size + (share < extra), local, local_bytes,
               [&](std::size_t g, std::size_t lane) { kernel(nd_item<1>(g * local + lane, global, local), r...); });
         });
  return {};
}

template <class Kernel>
event single_task(const Kernel& kernel) {
  kernel();
  return {};
}

inline event memcpy(void* dest, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dest, src, bytes);
  return {};
}

inline event memset(void* ptr, int value, std::size_t bytes) {
  if (bytes) std::memset(ptr, value, bytes);
  return {};
}

template <class T>
event fill(void* ptr, const T& pattern, std::size_t count) {
  T* out = static_cast<T*>(ptr);
  for_each_index(count, [&](std::size_t i) { out[i] = pattern; });
  return {};
}
}  // namespace detail

// ---------------------------------------------------------------- handler and queue
class handler {
 public:
  template <typename KernelName = detail::unnamed_kernel, typename... Rest>
  void parallel_for(range<1> r, Rest&&... rest) {
    if (local_bytes_ != 0)
      throw exception(make_error_code(errc::kernel_argument), "a local_accessor needs an nd_range launch");
    detail::parallel_for(r, std::forward<Rest>(rest)...);
  }
  template <typename KernelName = detail::unnamed_kernel, typename... Rest>
  void parallel_for(nd_range<1> r, Rest&&... rest) {
    detail::parallel_for_groups(r, local_bytes_, std::forward<Rest>(rest)...);
  }
  template <typename KernelName = detail::unnamed_kernel, typename Kernel>
  void single_task(const Kernel& kernel) { detail::single_task(kernel); }
  void memcpy(void* dest, const void* src, std::size_t bytes) { detail::memcpy(dest, src, bytes); }
  void memset(void* ptr, int value, std::size_t bytes) { detail::memset(ptr, value, bytes); }
  template <typename T>
  void fill(void* ptr, const T& pattern, std::size_t count) { detail::fill(ptr, pattern, count); }
  template <typename T>
  void copy(const T* src, T* dest, std::size_t count) { detail::memcpy(dest, src, count * sizeof(T)); }
  void depends_on(const event&) {}  // events are complete when returned
  void depends_on(const std::vector<event>&) {}

 private:
  template <typename, int> friend class local_accessor;
  std::size_t local_bytes_ = 0;  // local memory of the command group's local_accessors, per work-group

  /// Room for one more local_accessor; its offset in each work-group's local memory.
  std::size_t reserve_local_memory(std::size_t bytes, std::size_t alignment) {
    const std::size_t offset = (local_bytes_ + alignment - 1) / alignment * alignment;
    local_bytes_ = offset + bytes;
    return offset;
  }
};

// ---------------------------------------------------------------- local_accessor (SYCL 2020 4.7.6.11)
/// Work-group local memory, declared in a command group: each running work-group has its own
/// (the thread's arena, at this accessor's offset), filled with 0xA5 bytes when the group
/// starts, since its contents are undefined then.
template <typename DataT, int Dimensions = 1>
class local_accessor {
  static_assert(Dimensions == 1, "the SYCL test double supports only 1-dimensional local_accessors");

 public:
  using value_type = DataT;
  using reference = DataT&;
  using const_reference = const DataT&;
  using size_type = std::size_t;

  local_accessor() = default;
  local_accessor(range<Dimensions> allocation_size, handler& command_group_handler,
                 const property_list& = {})
      : offset_(command_group_handler.reserve_local_memory(allocation_size.size() * sizeof(DataT),
                                                            alignof(DataT) < 16 ? 16 : alignof(DataT))),
        count_(allocation_size.size()) {}

  size_type size() const noexcept { return count_; }
  size_type byte_size() const noexcept { return count_ * sizeof(DataT); }
  range<Dimensions> get_range() const { return range<Dimensions>(count_); }
  reference operator[](id<Dimensions> index) const { return data()[index[0]]; }
  reference operator[](std::size_t index) const { return data()[index]; }
  template <access::decorated IsDecorated>
  local_ptr<DataT, IsDecorated> get_multi_ptr() const noexcept { return local_ptr<DataT, IsDecorated>(data()); }
  local_ptr<DataT> get_pointer() const noexcept { return local_ptr<DataT>(data()); }  // deprecated in SYCL 2020

 private:
  std::size_t offset_ = 0, count_ = 0;

  DataT* data() const {
    return reinterpret_cast<DataT*>(detail::work_group_runner::of_this_thread().local_memory(offset_));
  }
};

class queue {
 public:
  explicit queue(const property_list& properties = {}) : in_order_(is_in_order(properties)) {}
  template <typename DeviceSelector,
            typename = std::enable_if_t<std::is_invocable_r_v<int, const DeviceSelector&, const device&>>>
  explicit queue(const DeviceSelector& selector, const property_list& properties = {})
      : in_order_(is_in_order(properties)) {
    if (selector(device_) < 0)
      throw exception(make_error_code(errc::runtime), "No device of requested type available");
  }
  explicit queue(const device& d, const property_list& properties = {})
      : device_(d), in_order_(is_in_order(properties)) {}

  device get_device() const { return device_; }
  bool is_in_order() const { return in_order_; }
  void wait() {}
  void wait_and_throw() {}

  template <typename CommandGroup>
  event submit(CommandGroup&& command_group) {
    handler h;
    command_group(h);
    return {};
  }

  template <typename KernelName = detail::unnamed_kernel, typename... Rest>
  event parallel_for(range<1> r, Rest&&... rest) { return detail::parallel_for(r, std::forward<Rest>(rest)...); }
  template <typename KernelName = detail::unnamed_kernel, typename... Rest>
  event parallel_for(nd_range<1> r, Rest&&... rest) {
    return detail::parallel_for_groups(r, 0, std::forward<Rest>(rest)...);
  }
  template <typename KernelName = detail::unnamed_kernel, typename Kernel>
  event single_task(const Kernel& kernel) { return detail::single_task(kernel); }

  event memcpy(void* dest, const void* src, std::size_t bytes) { return detail::memcpy(dest, src, bytes); }
  event memset(void* ptr, int value, std::size_t bytes) { return detail::memset(ptr, value, bytes); }
  template <typename T>
  event fill(void* ptr, const T& pattern, std::size_t count) { return detail::fill(ptr, pattern, count); }
  template <typename T>
  event copy(const T* src, T* dest, std::size_t count) { return detail::memcpy(dest, src, count * sizeof(T)); }

 private:
  device device_;
  bool in_order_;

  static bool is_in_order(const property_list& properties) {
    return properties.has_property<property::queue::in_order>();
  }
};

// ---------------------------------------------------------------- USM (SYCL 2020 4.8.3)
namespace detail {
inline void* allocate(std::size_t bytes) {
  // Aligned like a device allocation; a zero-byte request still returns a unique pointer.
  std::size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded < bytes) return nullptr;
  return std::aligned_alloc(64, rounded ? rounded : 64);
}
template <class T>
T* allocate_array(std::size_t count) {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) return nullptr;  // as SYCL: nullptr
  return static_cast<T*>(allocate(count * sizeof(T)));
}
}  // namespace detail

inline void* malloc_device(std::size_t bytes, const queue&) { return detail::allocate(bytes); }
inline void* malloc_shared(std::size_t bytes, const queue&) { return detail::allocate(bytes); }
inline void* malloc_host(std::size_t bytes, const queue&) { return detail::allocate(bytes); }
template <typename T>
T* malloc_device(std::size_t count, const queue&) { return detail::allocate_array<T>(count); }
template <typename T>
T* malloc_shared(std::size_t count, const queue&) { return detail::allocate_array<T>(count); }
template <typename T>
T* malloc_host(std::size_t count, const queue&) { return detail::allocate_array<T>(count); }
inline void free(void* ptr, const queue&) { std::free(ptr); }

}  // namespace sycl

#endif  // STARC_TEST_SYCL_HOST_DOUBLE_HPP
