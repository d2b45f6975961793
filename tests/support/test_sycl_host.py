"""The SYCL 2020 host test double (tests/support/sycl_host): standard programs, compiled with g++.

Each program below is plain SYCL 2020 that a real implementation also accepts; it prints
"key value" lines that the tests compare with values computed here. Programs are compiled
once per session (in parallel) with ``g++ -std=c++17 -fopenmp -Wall -Wextra -Werror`` and run
with four OpenMP threads, so the reductions really combine several partials.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.sycl

INCLUDE = Path(__file__).resolve().parent / "sycl_host"
GXX = shutil.which("g++")
FLAGS = ["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}"]

QUEUE_AND_DEVICE = r"""
#include <sycl/sycl.hpp>
#include <cstdio>
#include <string>

int main() {
  sycl::queue plain;
  sycl::queue chosen{sycl::default_selector_v};
  sycl::queue cpu{sycl::cpu_selector_v, sycl::property_list{sycl::property::queue::in_order{}}};
  sycl::queue ordered{sycl::property::queue::in_order{}};
  sycl::device d = cpu.get_device();
  std::string name = d.get_info<sycl::info::device::name>();
  std::printf("name_nonempty %d\n", !name.empty());
  std::printf("atomic64 %d\nfp64 %d\ngpu_aspect %d\n", d.has(sycl::aspect::atomic64), d.has(sycl::aspect::fp64),
              d.has(sycl::aspect::gpu));
  std::printf("is_cpu %d\nis_gpu %d\n", d.is_cpu(), d.is_gpu());
  std::printf("in_order %d %d %d\n", plain.is_in_order(), cpu.is_in_order(), ordered.is_in_order());
  std::printf("units_positive %d\n", d.get_info<sycl::info::device::max_compute_units>() > 0);
  plain.wait();
  chosen.wait_and_throw();
  try {
    sycl::queue gpu{sycl::gpu_selector_v};
    std::printf("gpu_queue created\n");
  } catch (const sycl::exception& e) {
    std::printf("gpu_error %s|%d\n", e.what(), e.code() == sycl::errc::runtime);
  }
  try {  // a sycl::exception is a std::exception
    throw sycl::exception(sycl::make_error_code(sycl::errc::invalid), "custom message");
  } catch (const std::exception& e) {
    std::printf("std_exception %s\n", e.what());
  }
  sycl::exception k(sycl::errc::kernel_argument, "bad argument");
  std::printf("errc %d %d %s\n", k.code() == sycl::errc::kernel_argument,
              k.code() == sycl::make_error_code(sycl::errc::memory_allocation), k.code().category().name());
  return 0;
}
"""

USM = r"""
#include <sycl/sycl.hpp>
#include <cstdio>
#include <cstddef>
#include <vector>

int main() {
  sycl::queue q;
  const int n = 1000;
  std::vector<int> host(n), back(n, -1);
  for (int i = 0; i < n; ++i) host[i] = i * 3;
  int* dev = sycl::malloc_device<int>(n, q);
  int* shared = sycl::malloc_shared<int>(n, q);
  double* pinned = sycl::malloc_host<double>(n, q);
  void* raw = sycl::malloc_device(64, q);
  q.memcpy(dev, host.data(), n * sizeof(int)).wait();
  q.copy(dev, shared, n).wait_and_throw();
  q.memcpy(back.data(), shared, n * sizeof(int)).wait();
  long long sum = 0;
  for (int v : back) sum += v;
  std::printf("copied_sum %lld\n", sum);
  q.memset(dev, 0xff, n * sizeof(int)).wait();
  q.memcpy(back.data(), dev, n * sizeof(int)).wait();
  std::printf("memset_first_last %d %d\n", back[0], back[n - 1]);
  q.fill(pinned, 2.5, n).wait();
  double dsum = 0;
  for (int i = 0; i < n; ++i) dsum += pinned[i];
  std::printf("fill_sum %.1f\n", dsum);
  q.submit([&](sycl::handler& h) { h.fill(shared, 7, n); }).wait();
  q.submit([&](sycl::handler& h) { h.memcpy(back.data(), shared, n * sizeof(int)); }).wait();
  std::printf("handler_fill %d %d\n", back[0], back[n - 1]);
  int* huge = sycl::malloc_device<int>(static_cast<std::size_t>(-1) / 2, q);
  std::printf("huge_is_null %d\n", huge == nullptr);
  std::printf("zero_count_not_null %d\n", sycl::malloc_device<int>(0, q) != nullptr);
  sycl::free(dev, q);
  sycl::free(shared, q);
  sycl::free(pinned, q);
  sycl::free(raw, q);
  return 0;
}
"""

KERNELS = r"""
#include <sycl/sycl.hpp>
#include <cstdio>
#include <cstddef>

int main() {
  sycl::queue q{sycl::default_selector_v, sycl::property::queue::in_order{}};
  const std::size_t n = 1003;
  long long* a = sycl::malloc_shared<long long>(n, q);
  long long* b = sycl::malloc_shared<long long>(n, q);
  const long long offset = 10;  // captured by value
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { a[i] = static_cast<long long>(i[0]) + offset; }).wait();
  q.parallel_for<class with_item>(sycl::range<1>{n}, [=](sycl::item<1> it) {
    b[it.get_linear_id()] = static_cast<long long>(it.get_id(0) + it[0] + it.get_range(0));
  });
  long long sa = 0, sb = 0;
  for (std::size_t i = 0; i < n; ++i) { sa += a[i]; sb += b[i]; }
  std::printf("range_id %lld\nrange_item %lld\n", sa, sb);

  const std::size_t global = 256, local = 32;
  std::size_t* info = sycl::malloc_shared<std::size_t>(4 * global, q);
  q.submit([&](sycl::handler& h) {
    h.parallel_for(sycl::nd_range<1>(sycl::range<1>(global), sycl::range<1>(local)), [=](sycl::nd_item<1> it) {
      std::size_t g = it.get_global_id(0);
      info[4 * g + 0] = it.get_local_id(0);
      info[4 * g + 1] = it.get_group(0);
      info[4 * g + 2] = it.get_global_range(0);
      info[4 * g + 3] = it.get_local_range(0);
    });
  }).wait();
  bool ok = true;
  for (std::size_t g = 0; g < global; ++g)
    ok = ok && info[4 * g] == g % local && info[4 * g + 1] == g / local && info[4 * g + 2] == global &&
         info[4 * g + 3] == local;
  std::printf("nd_range_ok %d\n", ok);

  try {
    q.parallel_for(sycl::nd_range<1>(sycl::range<1>(100), sycl::range<1>(32)), [=](sycl::nd_item<1>) {});
    std::printf("nd_range_error none\n");
  } catch (const sycl::exception& e) {
    std::printf("nd_range_error %d\n", e.code() == sycl::errc::nd_range);
  }

  int* flag = sycl::malloc_shared<int>(1, q);
  *flag = 0;
  q.single_task([=]() { *flag = 42; }).wait();
  q.submit([&](sycl::handler& h) { h.single_task<class bump>([=]() { *flag += 1; }); }).wait();
  std::printf("single_task %d\n", *flag);
  q.parallel_for(sycl::range<1>(0), [=](sycl::id<1>) { *flag = -1; }).wait();  // no work-items
  std::printf("empty_range %d\n", *flag);
  sycl::free(a, q);
  sycl::free(b, q);
  sycl::free(info, q);
  sycl::free(flag, q);
  return 0;
}
"""

REDUCTIONS = r"""
#include <sycl/sycl.hpp>
#include <cstdio>
#include <cstddef>

int main() {
  sycl::queue q;
  const std::size_t n = 1000;
  int* v = sycl::malloc_shared<int>(n, q);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>((i * 37) % 1001) - 500;  // -500..500
  sycl::property_list init{sycl::property::reduction::initialize_to_identity{}};

  int* sum = sycl::malloc_shared<int>(1, q);
  *sum = 1000;  // kept: no initialize_to_identity
  q.parallel_for(sycl::range<1>(n), sycl::reduction(sum, sycl::plus<int>()),
                 [=](sycl::id<1> i, auto& r) { r += v[i]; }).wait();
  std::printf("plus_keep %d\n", *sum);
  *sum = 1000;
  q.parallel_for(sycl::range<1>(n), sycl::reduction(sum, sycl::plus<>(), init),
                 [=](sycl::id<1> i, auto& r) { r.combine(v[i]); }).wait();
  std::printf("plus_init %d\n", *sum);
  *sum = 5;
  q.parallel_for(sycl::range<1>(n), sycl::reduction(sum, sycl::plus<int>()), [=](sycl::id<1> i, auto& r) {
    if (v[i] > 0) r++;
    if (v[i] > 400) ++r;
  }).wait();
  std::printf("plus_increment %d\n", *sum);

  double* product = sycl::malloc_shared<double>(1, q);
  *product = 3.0;
  q.parallel_for(sycl::range<1>(40), sycl::reduction(product, sycl::multiplies<double>()),
                 [=](sycl::id<1> i, auto& r) { r *= (i % 2 == 0) ? 2.0 : 0.5; if (i < 3) r *= 2.0; }).wait();
  std::printf("multiplies %.17g\n", *product);

  int* mn = sycl::malloc_shared<int>(1, q);
  float* mx = sycl::malloc_shared<float>(1, q);
  long long* count = sycl::malloc_shared<long long>(1, q);
  *mn = -10; *mx = 0.0f; *count = 0;
  q.parallel_for(sycl::range<1>(n), sycl::reduction(mn, sycl::minimum<int>()),
                 sycl::reduction(mx, sycl::maximum<>(), init), sycl::reduction(count, 0LL, sycl::plus<long long>()),
                 [=](sycl::id<1> i, auto& lo, auto& hi, auto& c) {
                   lo.combine(v[i]);
                   hi.combine(static_cast<float>(v[i]) - 1000.0f);
                   c += 1;
                 }).wait();
  std::printf("minimum %d\nmaximum %.9g\nthree_count %lld\n", *mn, static_cast<double>(*mx), *count);

  unsigned* band = sycl::malloc_shared<unsigned>(1, q);
  unsigned* bor = sycl::malloc_shared<unsigned>(1, q);
  *band = 0xffu; *bor = 0x100u;
  q.parallel_for(sycl::range<1>(64), sycl::reduction(band, sycl::bit_and<unsigned>()),
                 sycl::reduction(bor, sycl::bit_or<>()), [=](sycl::id<1> i, auto& a, auto& o) {
                   a &= ~(1u << (i % 4));
                   o |= 1u << (i % 6);
                 }).wait();
  std::printf("bit_and %u\nbit_or %u\n", *band, *bor);

  bool* all = sycl::malloc_shared<bool>(1, q);
  bool* any = sycl::malloc_shared<bool>(1, q);
  *all = true; *any = false;
  q.parallel_for(sycl::range<1>(n), sycl::reduction(all, sycl::logical_and<bool>()),
                 sycl::reduction(any, sycl::logical_or<>()), [=](sycl::id<1> i, auto& a, auto& o) {
                   a.combine(v[i] > -501);
                   o.combine(v[i] == 500);
                 }).wait();
  std::printf("logical %d %d\n", *all, *any);
  *all = true;  // an empty kernel keeps the old value, or resets to the identity
  *any = true;
  q.parallel_for(sycl::range<1>(0), sycl::reduction(all, false, sycl::logical_and<bool>(), init),
                 sycl::reduction(any, sycl::logical_or<bool>()), [=](sycl::id<1>, auto&, auto&) {}).wait();
  std::printf("empty %d %d\n", *all, *any);

  int* ndsum = sycl::malloc_shared<int>(1, q);
  *ndsum = 0;
  q.submit([&](sycl::handler& h) {
    h.parallel_for(sycl::nd_range<1>(sycl::range<1>(1024), sycl::range<1>(64)),
                   sycl::reduction(ndsum, sycl::plus<int>(), init),
                   [=](sycl::nd_item<1> it, auto& r) { r += static_cast<int>(it.get_group(0)); });
  }).wait();
  std::printf("nd_range_sum %d\n", *ndsum);

  double* dsum = sycl::malloc_shared<double>(1, q);
  *dsum = 0.25;
  q.parallel_for(sycl::range<1>(n), sycl::reduction(dsum, 0.0, sycl::plus<double>()),
                 [=](sycl::item<1> it, auto& r) { r += 0.5 * static_cast<double>(it.get_id(0)); }).wait();
  std::printf("double_sum %.17g\n", *dsum);
  return 0;
}
"""

ATOMICS = r"""
#include <sycl/sycl.hpp>
#include <cstdint>
#include <cstdio>
#include <cstddef>

template <typename T>
using device_atomic = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device,
                                       sycl::access::address_space::global_space>;

template <typename T>
void check_integer(sycl::queue& q, const char* name) {
  const std::size_t n = 20000;
  T* x = sycl::malloc_shared<T>(6, q);
  x[0] = 0; x[1] = static_cast<T>(1000000); x[2] = static_cast<T>(100000); x[3] = 0;
  x[4] = static_cast<T>(-1); x[5] = 0;
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) {
    T k = static_cast<T>(i[0]);
    device_atomic<T>(x[0]).fetch_add(static_cast<T>(2));
    device_atomic<T>(x[1]).fetch_sub(static_cast<T>(1));
    device_atomic<T>(x[2]).fetch_min(static_cast<T>(k + 7));
    device_atomic<T>(x[3]).fetch_max(k);
    device_atomic<T>(x[4]).fetch_and(static_cast<T>(~(static_cast<T>(1) << (k % 8))));
    device_atomic<T>(x[5]).fetch_or(static_cast<T>(static_cast<T>(1) << (k % 5)));
  }).wait();
  std::printf("%s %lld %lld %lld %lld %llu %lld\n", name, static_cast<long long>(x[0]), static_cast<long long>(x[1]),
              static_cast<long long>(x[2]), static_cast<long long>(x[3]),
              static_cast<unsigned long long>(x[4]) & 0xffffu, static_cast<long long>(x[5]));
  sycl::free(x, q);
}

template <typename T>
void check_floating(sycl::queue& q, const char* name) {
  const std::size_t n = 20000;
  T* x = sycl::malloc_shared<T>(4, q);
  x[0] = 0; x[1] = 0; x[2] = 1e30f; x[3] = -1e30f;
  q.parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) {
    T k = static_cast<T>(i[0]);
    device_atomic<T>(x[0]).fetch_add(static_cast<T>(0.5));
    device_atomic<T>(x[1]).fetch_sub(static_cast<T>(0.25));
    device_atomic<T>(x[2]).fetch_min(static_cast<T>(k - 3.5));
    device_atomic<T>(x[3]).fetch_max(static_cast<T>(k + 0.5));
  }).wait();
  std::printf("%s %.17g %.17g %.17g %.17g\n", name, static_cast<double>(x[0]), static_cast<double>(x[1]),
              static_cast<double>(x[2]), static_cast<double>(x[3]));
  sycl::free(x, q);
}

int main() {
  sycl::queue q;
  check_integer<int>(q, "int");
  check_integer<unsigned>(q, "unsigned");
  check_integer<long long>(q, "long_long");
  check_integer<unsigned long long>(q, "unsigned_long_long");
  check_integer<std::int64_t>(q, "int64_t");
  check_integer<std::uint64_t>(q, "uint64_t");
  check_floating<float>(q, "float");
  check_floating<double>(q, "double");

  int* slot = sycl::malloc_shared<int>(2, q);
  slot[0] = 5; slot[1] = 0;
  device_atomic<int> ref(slot[0]);
  int expected = 4;
  bool first = ref.compare_exchange_strong(expected, 9);  // fails, expected := 5
  bool second = ref.compare_exchange_strong(expected, 9);
  int old = ref.exchange(11);
  ref.store(12);
  std::printf("cas %d %d %d %d %d\n", first, second, expected, old, ref.load());
  // A compare_exchange_weak loop used as a lock-free "claim once": exactly one winner.
  q.parallel_for(sycl::range<1>(5000), [=](sycl::id<1> i) {
    int none = 0;
    device_atomic<int> owner(slot[1]);
    while (!owner.compare_exchange_weak(none, static_cast<int>(i[0]) + 1)) {
      if (none != 0) break;
    }
  }).wait();
  std::printf("claimed %d\n", slot[1] > 0 && slot[1] <= 5000);
  sycl::free(slot, q);
  return 0;
}
"""

PROGRAMS = {
    "queue_and_device": QUEUE_AND_DEVICE,
    "usm": USM,
    "kernels": KERNELS,
    "reductions": REDUCTIONS,
    "atomics": ATOMICS,
}


def _compile(source: Path, exe: Path, openmp: bool) -> subprocess.CompletedProcess:
    flags = FLAGS + (["-fopenmp"] if openmp else [])
    return subprocess.run([GXX, *flags, str(source), "-o", str(exe)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict:
    """Every program compiled with OpenMP, plus one without it (sequential fallback)."""
    if GXX is None:
        pytest.skip("g++ not found")
    folder = tmp_path_factory.mktemp("sycl_host")
    probe = folder / "probe.cpp"
    probe.write_text("#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
    if _compile(probe, folder / "probe", openmp=True).returncode != 0:
        pytest.skip("g++ without OpenMP (-fopenmp)")
    jobs = {}
    for name, text in PROGRAMS.items():
        source = folder / f"{name}.cpp"
        source.write_text(text)
        jobs[name] = (source, folder / name, True)
    jobs["reductions_sequential"] = (folder / "reductions.cpp", folder / "reductions_sequential", False)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = {name: pool.submit(_compile, *job) for name, job in jobs.items()}
    out = {}
    for name, future in results.items():
        result = future.result()
        assert result.returncode == 0, f"{name}:\n{result.stderr}"
        out[name] = jobs[name][1]
    return out


def run_program(binaries: dict, name: str) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="4")
    result = subprocess.run([str(binaries[name])], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return dict(line.partition(" ")[::2] for line in result.stdout.splitlines())


def test_queue_device_selectors_and_exceptions(binaries):
    got = run_program(binaries, "queue_and_device")
    assert got["name_nonempty"] == "1"
    assert (got["atomic64"], got["fp64"], got["gpu_aspect"]) == ("1", "1", "0")
    assert (got["is_cpu"], got["is_gpu"]) == ("1", "0")
    assert got["in_order"] == "0 1 1"
    assert got["units_positive"] == "1"
    assert got["gpu_error"] == "No device of requested type available|1"
    assert got["std_exception"] == "custom message"
    assert got["errc"] == "1 0 sycl"


def test_usm_allocation_and_copies(binaries):
    got = run_program(binaries, "usm")
    assert got["copied_sum"] == str(sum(3 * i for i in range(1000)))
    assert got["memset_first_last"] == "-1 -1"
    assert got["fill_sum"] == "2500.0"
    assert got["handler_fill"] == "7 7"
    assert got["huge_is_null"] == "1"
    assert got["zero_count_not_null"] == "1"


def test_range_nd_range_single_task_and_handler(binaries):
    got = run_program(binaries, "kernels")
    n = 1003
    assert got["range_id"] == str(sum(i + 10 for i in range(n)))
    assert got["range_item"] == str(sum(2 * i + n for i in range(n)))
    assert got["nd_range_ok"] == "1"
    assert got["nd_range_error"] == "1"
    assert got["single_task"] == "43"
    assert got["empty_range"] == "43"


def _expected_reductions() -> dict:
    values = [(i * 37) % 1001 - 500 for i in range(1000)]
    product = 3.0
    for i in range(40):
        product *= 2.0 if i % 2 == 0 else 0.5
        if i < 3:
            product *= 2.0
    band, bor = 0xFF, 0x100
    for i in range(64):
        band &= ~(1 << (i % 4)) & 0xFFFFFFFF
        bor |= 1 << (i % 6)
    return {
        "plus_keep": str(1000 + sum(values)),
        "plus_init": str(sum(values)),
        "plus_increment": str(5 + sum(v > 0 for v in values) + sum(v > 400 for v in values)),
        "multiplies": "%.17g" % product,
        "minimum": str(min(-10, min(values))),
        "maximum": "%.9g" % (max(values) - 1000.0),
        "three_count": "1000",
        "bit_and": str(band),
        "bit_or": str(bor),
        "logical": "1 1",
        "empty": "0 1",
        "nd_range_sum": str(sum(g // 64 for g in range(1024))),
        "double_sum": "%.17g" % (0.25 + sum(0.5 * i for i in range(1000))),
    }


@pytest.mark.parametrize("build", ["reductions", "reductions_sequential"])
def test_reductions_every_operator_and_property(binaries, build):
    assert run_program(binaries, build) == _expected_reductions()


def test_atomic_ref_every_type_and_operation(binaries):
    got = run_program(binaries, "atomics")
    n = 20000
    for name in ("int", "unsigned", "long_long", "unsigned_long_long", "int64_t", "uint64_t"):
        fields = got[name].split()
        assert fields[:4] == [str(2 * n), str(1000000 - n), "7", str(n - 1)], name
        assert fields[4] == str(0xFFFF & ~0xFF), name  # every low bit cleared by fetch_and
        assert fields[5] == str(0b11111), name
    for name in ("float", "double"):
        assert got[name].split() == ["%.17g" % x for x in (0.5 * n, -0.25 * n, -3.5, n - 0.5)], name
    assert got["cas"] == "0 1 5 9 12"
    assert got["claimed"] == "1"


def test_header_labels_itself_a_test_double_and_is_not_package_data():
    text = (INCLUDE / "sycl" / "sycl.hpp").read_text()
    assert text.startswith("// TEST DOUBLE: a subset of SYCL 2020 on OpenMP for starc's CI, "
                           "not a SYCL implementation.")
    package = Path(__file__).resolve().parents[2] / "starc"
    assert not list(package.rglob("sycl.hpp"))  # never shipped next to the backends


MINMAX_RETURN = r"""
#include <sycl/sycl.hpp>
#include <cstdio>

template <typename T>
using device_atomic = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device,
                                       sycl::access::address_space::global_space>;

int main() {
  int i = 5;
  double d = 5.0;
  int a = device_atomic<int>(i).fetch_min(3), b = device_atomic<int>(i).fetch_max(8);
  double c = device_atomic<double>(d).fetch_min(2.5), e = device_atomic<double>(d).fetch_max(1.0);
  std::printf("%d %d %d %g %g %g\n", a, b, i, c, e, d);
  return 0;
}
"""


@pytest.mark.parametrize("define, expected", [
    ([], "5 3 8 5 2.5 2.5"),                                       # SYCL 2020: the old value
    (["-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW"], "3 8 8 2.5 2.5 2.5"),  # AdaptiveCpp 24.06: new
])
def test_fetch_min_max_return_value_mode(define, expected, tmp_path):
    """The double can reproduce AdaptiveCpp's fetch_min/fetch_max returning the new value, so
    starc's programs are tested against that behaviour too (tests/backends/sycl)."""
    if GXX is None:
        pytest.skip("g++ not found")
    source = tmp_path / "minmax.cpp"
    source.write_text(MINMAX_RETURN)
    proc = subprocess.run([GXX, *FLAGS, *define, str(source), "-o", str(tmp_path / "minmax")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(tmp_path / "minmax")], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == expected.split()
