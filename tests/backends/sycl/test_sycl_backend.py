"""The SYCL backend: generated text (focused goldens), toolchain discovery, and every dsl program
compiled with g++ against the SYCL host test double and run against the reference executor.

No SYCL compiler is available to CI (see tests/support/sycl_host/README.md), so "compiles" here
means "g++ -Wall -Wextra -Werror accepts it against the test double", and "runs" means on the
double's OpenMP host device. The generated code itself is standard SYCL 2020 and never names
the double.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import pytest

from starc.backends.base import BackendError, BackendOptions
from starc.backends.sycl import toolchain
from starc.backends.cuda.kernels import runtime_header as cuda_header
from starc.backends.sycl.emitter import SYCLBackend
from starc.backends.sycl.kernels import SYCL_RUNTIME, UNIFORM_LAUNCH, runtime_header
from starc.backends.sycl.kernels import native_reductions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source
from starc.graphs import Graph, load_graph, write_mtx
from starc.reference import execute
from starc.results import compare_results, parse_results
from starc import toolchains

from hostbuild import GXX, build_with_test_double

import numpy as np

pytestmark = pytest.mark.sycl

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = ROOT / "dsl"
PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
SOURCES = {p.stem: p for p in sorted(DSL.glob("*.sp")) + sorted(PROGRAMS.glob("*.sp"))}

# Parameters, symmetric input and float tolerance per program (the rest run with defaults).
PARAMS = {"sssp": {"src": "0"}, "sswp": {"src": "0"}, "bfs": {"src": "0"}, "kcore": {"k": "2"},
          "pr": {"beta": "0.0001", "delta": "0.85", "maxIter": "50"},
          "bc": {"sourceSet": "0,1,3"}}
UNDIRECTED = {"tc", "kcore"}
TOLERANCE = {"pr": (1e-4, 1e-6), "bc": (1e-4, 1e-4)}
#: Four threads, so reductions really combine several partial results.
RUN_ENV = dict(os.environ, OMP_NUM_THREADS="4")


def compile_sycl(path: pathlib.Path):
    sink = DiagnosticSink()
    comp = compile_source(path.read_text(), str(path), sink, backend="sycl")
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


_COMPILED: Dict[str, object] = {}


def compiled(name: str):
    if name not in _COMPILED:
        _COMPILED[name] = compile_sycl(SOURCES[name])
    return _COMPILED[name]


def main_text(name: str) -> str:
    generated = compiled(name).generated
    return generated.files[generated.main]


def kernel_text(name: str, kernel: str) -> str:
    """The kernel function ``kernel`` of program ``name`` (up to the closing brace)."""
    text = main_text(name)
    start = text.index(f"static void {kernel}(")
    return text[start:text.index("\n}\n", start)]


# --- graphs ----------------------------------------------------------------------------------

def _graph(n, pairs, weights, name) -> Graph:
    return Graph.from_edges(n, np.array([p[0] for p in pairs], dtype=np.int64),
                            np.array([p[1] for p in pairs], dtype=np.int64),
                            np.array(weights, dtype=np.float64), True, name)


def small_graphs() -> Dict[str, Graph]:
    """A weighted digraph with two parts, self-loops, duplicates and an isolated vertex; a
    denser one with a triangle-rich core; and a graph without edges."""
    return {
        "mixed": _graph(10, [(0, 1), (1, 2), (2, 0), (0, 2), (2, 3), (3, 3), (3, 4), (4, 1),
                             (0, 1), (5, 6), (6, 7), (7, 5), (5, 7), (8, 5)],
                        [4, 2, 7, 1, 3, 9, 2, 5, 6, 1, 2, 3, 8, 4], "mixed"),
        "dense": _graph(7, [(u, w) for u in range(6) for w in range(6) if u != w and (u + w) % 3]
                        + [(6, 0)], [1 + (u * 7 + w) % 5 for u in range(6) for w in range(6)
                                     if u != w and (u + w) % 3] + [2], "dense"),
        "no_edges": _graph(4, [], [], "no edges"),
    }


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory) -> Dict[str, pathlib.Path]:
    folder = tmp_path_factory.mktemp("sycl-graphs")
    files = {}
    for name, graph in small_graphs().items():
        files[name] = folder / f"{name}.mtx"      # .mtx keeps isolated trailing vertices
        write_mtx(graph, files[name])
    return files


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Dict[str, object]:
    """Every program built once with g++ against the test double (in parallel): name -> argv
    prefix, or the build error."""
    if GXX is None:
        pytest.skip("g++ not found")
    folder = tmp_path_factory.mktemp("sycl-builds")

    def build(name):
        try:
            return build_with_test_double(compiled(name).generated, folder / name)
        except AssertionError as error:
            return error

    for name in SOURCES:      # generate sequentially (the pipeline is not thread-safe-audited)
        compiled(name)
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        return dict(zip(SOURCES, pool.map(build, SOURCES)))


def run_program(argv: List[str], graph: pathlib.Path, name: str, out: pathlib.Path,
                extra=()) -> subprocess.CompletedProcess:
    args = argv + [str(graph)]
    if name in UNDIRECTED:
        args.append("--undirected")
    for key, value in PARAMS.get(name, {}).items():
        args += [f"--{key}", value]
    return subprocess.run(args + ["--out", str(out), *extra], capture_output=True, text=True,
                          env=RUN_ENV, timeout=300)


def reference(name: str, graph: pathlib.Path):
    comp = compiled(name)
    return execute(comp.ir, load_graph(str(graph), undirected=name in UNDIRECTED),
                   PARAMS.get(name, {}), function=comp.function.name)


# --- every program, compiled against the test double and run -----------------------------------

@pytest.mark.parametrize("name", sorted(SOURCES))
def test_program_builds_with_warnings_as_errors(name, built):
    result = built[name]
    assert not isinstance(result, AssertionError), str(result)
    assert pathlib.Path(result[0]).is_file()


@pytest.mark.parametrize("graph", ["mixed", "dense", "no_edges"])
@pytest.mark.parametrize("name", sorted(set(SOURCES) - {"mixed"}))
def test_program_matches_reference(name, graph, built, graph_files, tmp_path):
    argv = built[name]
    if isinstance(argv, AssertionError):
        pytest.fail(str(argv))
    proc = run_program(argv, graph_files[graph], name, tmp_path / "out.txt")
    assert proc.returncode == 0, proc.stderr
    actual = parse_results((tmp_path / "out.txt").read_text())
    assert actual.backend == "sycl"
    rtol, atol = TOLERANCE.get(name, (0.0, 0.0))
    problems = compare_results(reference(name, graph_files[graph]), actual, rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["sssp", "pr", "tc", "bc", "ops"])
def test_nd_range_launch_with_block_size(name, built, graph_files, tmp_path):
    """--block-size 4 launches nd_range<1> work-groups of 4 (global size rounded up from the 10
    vertices and 14 edges, the extra work-items return at once); --device cpu picks the CPU
    device."""
    graph = graph_files["mixed"]
    proc = run_program(built[name], graph, name, tmp_path / "out.txt",
                       ["--block-size", "4", "--device", "cpu"])
    assert proc.returncode == 0, proc.stderr
    rtol, atol = TOLERANCE.get(name, (0.0, 0.0))
    problems = compare_results(reference(name, graph),
                               parse_results((tmp_path / "out.txt").read_text()),
                               rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


def test_mixed_operators_use_atomics_and_give_the_sequential_result(built, graph_files,
                                                                    tmp_path):
    """`total += 10; total -= 3` in one kernel: 7 per vertex. (Computed here: the result
    does not depend on the order of the updates.)"""
    graph = graph_files["mixed"]
    proc = run_program(built["mixed"], graph, "mixed", tmp_path / "out.txt")
    assert proc.returncode == 0, proc.stderr
    actual = parse_results((tmp_path / "out.txt").read_text())
    g = load_graph(str(graph))
    assert actual.ret == 7 * g.num_nodes
    expected = reference("mixed", graph)
    problems = compare_results(expected, actual)
    assert [p for p in problems if not p.startswith("return")] == []


def test_time_option_reports_the_algorithm_time(built, graph_files, tmp_path):
    proc = run_program(built["sssp"], graph_files["mixed"], "sssp", tmp_path / "out.txt",
                       ["--time"])
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^starc-time \d+\.\d+$", proc.stderr, re.M), proc.stderr


def test_an_unavailable_device_is_no_internal_error(built, graph_files, tmp_path):
    """The test double has no GPU: the queue's sycl::exception becomes "tc: error: no usable
    SYCL device for --device gpu (<what>)" and exit status 1 (not 3, a bug in starc)."""
    proc = run_program(built["tc"], graph_files["dense"], "tc", tmp_path / "out.txt",
                       ["--device", "gpu"])
    assert proc.returncode == 1
    assert proc.stderr.startswith("tc: error: no usable SYCL device for --device gpu ("), \
        proc.stderr


@pytest.mark.parametrize("option", [["--device", "tpu"], ["--block-size", "many"],
                                    ["--block-size", "-4"], ["--block-size", "0"],
                                    ["--block-size", "3"], ["--block-size", "96"]])
def test_bad_backend_options_are_usage_errors(option, built, graph_files, tmp_path):
    proc = run_program(built["tc"], graph_files["dense"], "tc", tmp_path / "out.txt", option)
    assert proc.returncode == 2
    assert option[0] in proc.stderr


# --- AdaptiveCpp: fetch_min/fetch_max returning the new value ----------------------------------

#: Every program with a Min/Max update, plus a float SSSP (AdaptiveCpp returns the new value
#: for floats on every target) made from dsl/sssp.sp.
MINMAX_PROGRAMS = ["sssp", "sswp", "cc", "bc", "ops", "mixed", "sssp_float"]


@pytest.fixture(scope="module")
def built_returns_new(tmp_path_factory) -> Dict[str, List[str]]:
    """The Min/Max programs built against the double in its AdaptiveCpp mode, where
    atomic_ref::fetch_min/fetch_max return the new value (SYCL_HOST_FETCH_MINMAX_RETURNS_NEW)."""
    if GXX is None:
        pytest.skip("g++ not found")
    folder = tmp_path_factory.mktemp("sycl-acpp-mode")
    floating = folder / "sssp_float.sp"
    floating.write_text((DSL / "sssp.sp").read_text().replace("propNode<int> dist",
                                                              "propNode<float> dist"))
    SOURCES.setdefault("sssp_float", floating)
    PARAMS.setdefault("sssp_float", PARAMS["sssp"])
    for name in MINMAX_PROGRAMS:
        compiled(name)
    flags = ["-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW", "-DSTARC_SYCL_FETCH_MINMAX_RETURNS_NEW"]
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 2)) as pool:
        jobs = {name: pool.submit(build_with_test_double, compiled(name).generated,
                                  folder / name, flags) for name in MINMAX_PROGRAMS}
        return {name: job.result() for name, job in jobs.items()}


@pytest.mark.parametrize("graph", ["mixed", "dense"])
@pytest.mark.parametrize("name", MINMAX_PROGRAMS)
def test_min_max_programs_when_fetch_min_returns_the_new_value(name, graph, built_returns_new,
                                                               graph_files, tmp_path):
    """On AdaptiveCpp 24.06 fetch_min/fetch_max return the new value; a program that read it
    as the old one never saw its own update win (SSSP stopped after one round)."""
    proc = run_program(built_returns_new[name], graph_files[graph], name, tmp_path / "out.txt")
    assert proc.returncode == 0, proc.stderr
    rtol, atol = TOLERANCE.get(name, (0.0, 0.0))
    problems = compare_results(reference(name, graph_files[graph]),
                               parse_results((tmp_path / "out.txt").read_text()),
                               rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


# --- focused goldens of the generated text ------------------------------------------------------

def test_exclusive_reductions_use_sycl_reduction():
    """The paper's SYCL reduction optimisation: tc's triangle_count and pr's diff (through the
    prelude's starc_reduction: a sycl::reduction, or private partials on a CPU device)."""
    tc = kernel_text("tc", "Compute_TC_forall_6")
    assert "starc_reduction(triangle_count_dev, sycl::plus<long long>())" in tc
    assert re.search(r"\[=\]\(int v, auto& triangle_count_sum\)", tc)
    assert "triangle_count_sum += 1LL;" in tc
    assert "starc_atomic" not in tc
    pr_kernel = next(k for k in compiled("pr").plan.kernels if k.reductions)
    pr = kernel_text("pr", pr_kernel.name)
    assert "starc_reduction(diff_dev, sycl::plus<float>())" in pr
    assert re.search(r"diff_sum \+= ", pr)
    # The host writes the scalar's current value before and reads it back after (the
    # reduction combines with it; no initialize_to_identity).
    assert "initialize_to_identity" not in main_text("pr")
    assert re.search(r"starc_write_element<float>\(starc_queue, d_diff_dev, 0, diff,",
                     main_text("pr"))


def test_every_reduction_operator_maps_to_a_sycl_function_object():
    ops = main_text("ops")
    for reduction in ("starc_reduction(product_dev, sycl::multiplies<double>())",
                      "starc_reduction(bits_dev, sycl::bit_or<long long>())",
                      "starc_reduction(mask_dev, sycl::bit_and<int>())",
                      "starc_reduction(count_dev, sycl::plus<int>())",
                      "starc_reduction(least_dev, sycl::minimum<float>())"):
        assert reduction in ops
    assert "product_reducer *= 1.5;" in ops
    assert "least_reducer.combine(" in ops


def test_non_exclusive_reduction_uses_atomics():
    kernel = next(k for k in compiled("mixed").plan.kernels if k.reductions)
    assert not kernel.reductions[0].exclusive
    assert native_reductions(kernel) == []
    text = kernel_text("mixed", kernel.name)
    assert "starc_reduction" not in text and "sycl::reduction" not in text
    assert "starc_atomic_add_long(&total_dev[0], 10LL);" in text
    assert "starc_atomic_sub_long(&total_dev[0], 3LL);" in text


def test_min_max_helpers_are_fetch_min_or_the_loop_where_it_returns_the_new_value():
    """A Min without secondaries is a plain atomic_ref fetch_min (its result unused); one whose
    old value decides the winner calls the helper: fetch_min, or the compare-and-swap loop
    where fetch_min/fetch_max return the new value (AdaptiveCpp)."""
    assert re.search(r"^ *starc_atomic_update_min_float\(&best\[w\], ", main_text("mixed"), re.M)
    # (read first: the element is loaded through atomic_ref, never read plainly)
    assert re.search(r"if \(dist_new < starc_atomic<int>\(dist\[nbr\]\)\.load\(\) && "
                     r"starc_atomic_min_int\(&dist\[nbr\], dist_new\) > dist_new\)",
                     main_text("sssp"))
    assert re.search(r"if \(width_new > starc_atomic<int>\(width\[nbr\]\)\.load\(\) && "
                     r"starc_atomic_max_int\(&width\[nbr\], width_new\) < width_new\)",
                     main_text("sswp"))
    runtime = runtime_header()
    assert re.search(r"using starc_atomic = sycl::atomic_ref<T, sycl::memory_order::relaxed, "
                     r"sycl::memory_scope::device,\s+sycl::access::address_space::global_space>",
                     runtime)
    for suffix, t in (("float", "float"), ("double", "double"), ("int", "int"),
                      ("long", "long long")):
        assert re.search(rf"inline bool starc_compare_exchange_{suffix}\({t}\* p, {t}\* expected,"
                         rf"\s+{t} desired\) {{\s+return starc_atomic<{t}>\(\*p\)"
                         rf"\.compare_exchange_strong\(\*expected, desired\);\s+}}", runtime)
        for op, better in (("min", "<"), ("max", ">")):
            assert re.search(rf"inline void starc_atomic_update_{op}_{suffix}\({t}\* p, {t} v\) "
                             rf"{{\s+starc_atomic<{t}>\(\*p\)\.fetch_{op}\(v\);\s+}}", runtime)
            assert re.search(rf"inline {t} starc_atomic_{op}_{suffix}\({t}\* p, {t} v\) {{\n"
                             r"#if defined\(STARC_SYCL_FETCH_MINMAX_RETURNS_NEW\)\n"
                             rf"  {t} old = starc_atomic<{t}>\(\*p\)\.load\(\);\n"
                             rf"  while \(v {better} old && "
                             rf"!starc_compare_exchange_{suffix}\(p, &old, v\)\) {{\n  }}\n"
                             rf"  return old;\n#else\n"
                             rf"  return starc_atomic<{t}>\(\*p\)\.fetch_{op}\(v\);\n"
                             r"#endif\n}", runtime)
    # in the update helper and the helper of each type
    assert runtime.count(".fetch_min(") == runtime.count(".fetch_max(") == 8


#: a call of one of the prelude helpers every backend defines under the same name
_HELPER_CALL = (r"\b(starc_atomic_\w+|starc_lock_\w+|starc_find_edge"
                r"|starc_(?:lower|upper)_bound|starc_gallop)\(")


def test_runtime_defines_the_helper_api_of_the_other_backends():
    defined = set(re.findall(_HELPER_CALL, runtime_header()))
    cuda_atomics = set(re.findall(r"\b(starc_atomic_(?:add|sub|mul|and|or|min|max)_\w+)\(",
                                  cuda_header()))
    assert cuda_atomics and cuda_atomics <= defined
    for name, source in SOURCES.items():
        # Each program's own starc_sycl.hpp defines the helpers it calls.
        own = compiled(name).generated.files[SYCL_RUNTIME]
        used = set(re.findall(_HELPER_CALL, main_text(name)))
        assert used <= set(re.findall(_HELPER_CALL, own)), (name, used - defined)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_generated_code_is_portable_sycl_2020(name):
    generated = compiled(name).generated
    for file_name, text in generated.files.items():
        for forbidden in ("sycl::ext", "intel::", "sycl_host", "SYCL_HOST_DOUBLE", "__CUDA",
                          "INTEL_", "hipsycl", "ONEAPI"):
            assert forbidden not in text, (file_name, forbidden)
    assert set(generated.files) >= {generated.main, "starc_runtime.hpp", "starc_cli.hpp",
                                    "starc_graph.hpp", "starc_results.hpp", "starc_support.hpp",
                                    "starc_sycl.hpp"}
    assert "#include <sycl/sycl.hpp>" in generated.files["starc_sycl.hpp"]
    main = main_text(name)
    assert '#include "starc_sycl.hpp"' in main
    stem = generated.main[:-len(".cpp")]
    for command in (f"acpp -O3 -fwrapv -o {stem} {stem}.cpp", f"icpx -fsycl -O3 -fwrapv -o {stem} {stem}.cpp",
                    f"clang++ -fsycl -O3 -fwrapv -o {stem} {stem}.cpp"):
        assert command in main
    assert main.startswith("// Generated by starc ")


def test_device_option_selects_the_queue():
    main = main_text("sssp")
    assert 'starc_make_queue(cl.get_extra("device", "default"));' in main
    runtime = runtime_header()
    for selector in ("sycl::cpu_selector_v", "sycl::gpu_selector_v", "sycl::default_selector_v"):
        assert f"sycl::queue({selector}, in_order)" in runtime
    assert "sycl::property::queue::in_order{}" in runtime
    # One allocation per device array (malloc_device) and one free each, at the ends.
    assert main.count("starc_malloc<") == main.count("starc_free(")
    assert "sycl::malloc_device<T>" in runtime and "sycl::free(data, q)" in runtime


def test_min_max_use_fetch_min_unless_it_returns_the_new_value():
    """Issue 33, item 3: fetch_min/fetch_max where the implementation returns the old value, the
    compare-and-swap loop under STARC_SYCL_FETCH_MINMAX_RETURNS_NEW, which the prelude defines
    for AdaptiveCpp (its config header's ACPP_VERSION_MAJOR). Both branches run: the double's
    default mode (fetch_min returns the old value) in every Min/Max program test here, its
    AdaptiveCpp mode in test_min_max_programs_when_fetch_min_returns_the_new_value."""
    runtime = runtime_header()
    head = runtime.index("inline int starc_atomic_min_int(int* p, int v) {")
    assert runtime[head:runtime.index("\n}\n", head) + 3] == """\
inline int starc_atomic_min_int(int* p, int v) {
#if defined(STARC_SYCL_FETCH_MINMAX_RETURNS_NEW)
  int old = starc_atomic<int>(*p).load();
  while (v < old && !starc_compare_exchange_int(p, &old, v)) {
  }
  return old;
#else
  return starc_atomic<int>(*p).fetch_min(v);
#endif
}
"""
    if GXX is None:
        pytest.skip("g++ not found")
    detect = runtime[runtime.index("#if !defined(STARC_SYCL_FETCH_MINMAX_RETURNS_NEW)"):]
    detect = detect[:detect.index("#endif") + 6] + "\nSTARC_SYCL_FETCH_MINMAX_RETURNS_NEW\n"
    for defines, expected in (([], "STARC_SYCL_FETCH_MINMAX_RETURNS_NEW"),
                              (["-DACPP_VERSION_MAJOR=24"], "1"),
                              (["-D__HIPSYCL__"], "1")):
        proc = subprocess.run([GXX, "-E", "-P", "-x", "c++", *defines, "-"], input=detect,
                              capture_output=True, text=True, check=True)
        assert proc.stdout.strip() == expected, defines


def test_single_element_writes_do_not_wait():
    """A fill carries its value, so the write returns at once (the in-order queue orders it);
    a copy from the stack would have to wait. Every SYCL program test runs through it."""
    runtime = runtime_header()
    head = runtime.index("inline void starc_write_element(")
    body = runtime[head:runtime.index("\n}\n", head)]
    assert "q.fill(data + index, value, 1);" in body and "wait" not in body


def test_kernels_are_one_parallel_for_each():
    runtime = runtime_header()
    assert "q.parallel_for(sycl::range<1>(count), sycl::reduction(reductions.data, reductions.op)...," \
        in runtime
    assert "q.parallel_for(sycl::range<1>(count), [=](sycl::item<1> item)" in runtime
    assert "const sycl::nd_range<1> groups(sycl::range<1>((count + block - 1) / block * block), " \
           "sycl::range<1>(block));" in runtime
    assert runtime.count("if (i >= count) return;") == 2
    main = main_text("bc")
    kernels = [k.name for k in compiled("bc").plan.kernels]
    # (a kernel that stages appends in local memory, a BFS queue's, runs on an nd_range of
    # its own; a BFS's rounds on one work-group's: bfs_rounds)
    one_group = "starc_handler.parallel_for(sycl::nd_range<1>(sycl::range<1>(starc_group), "
    assert main.count("starc_parallel_for(q, where, ") + \
        main.count(f"{UNIFORM_LAUNCH}(q, where, ") + \
        main.count("starc_handler.parallel_for(starc_range, ") + \
        main.count(one_group) == len(set(kernels)) >= 2
    assert main.count(one_group) == 2


def test_uniform_kernels_claim_long_cpu_runs_and_items_count_in_int():
    """pr's per-vertex term kernel (the plan's uniform_items) launches with runs of 1024 on a
    CPU, its pull kernel with the default 64; the prelude's item loop counts in int (a size_t
    cast to int under -fwrapv kept AdaptiveCpp's JIT from vectorising the term kernel)."""
    main = main_text("pr")
    term = main[main.index("static void Compute_PR_forall_13_pageRank_term("):]
    pull = main[main.index("static void Compute_PR_forall_13("):]
    assert term[:term.index("\n}\n")].count(f"{UNIFORM_LAUNCH}(q, where, n, block, [=](int nbr)") == 1
    assert "starc_parallel_for(q, where, n, block, [=](int v, auto& diff_sum)" in pull
    assert UNIFORM_LAUNCH not in pull[:pull.index("\n}\n")]
    runtime = runtime_header()
    assert "constexpr std::size_t STARC_RUN_ITEMS = 64;" in runtime
    assert "constexpr std::size_t STARC_UNIFORM_RUN_ITEMS = 1024;" in runtime
    assert "template <std::size_t RunItems = STARC_RUN_ITEMS, class Kernel, class... Reductions>" in runtime
    assert "for (int i = begin; i < end; ++i)" in runtime
    assert "kernel(i, reducer...)" in runtime and "kernel(static_cast<int>(i), reducer...)" not in runtime


# --- toolchain discovery and the backend API -----------------------------------------------------

def _fake_tool(folder: pathlib.Path, name: str, script: str = "exit 0") -> pathlib.Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    """PATH holding only a folder for fake compilers; caches cleared before and after."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("STARC_SYCL_COMPILER", raising=False)
    toolchains.find_sycl_compiler.cache_clear()
    toolchains._compiles_sycl.cache_clear()
    yield folder
    toolchains.find_sycl_compiler.cache_clear()
    toolchains._compiles_sycl.cache_clear()


def test_find_sycl_compiler_order(fake_path):
    assert toolchains.find_sycl_compiler() is None
    clang = _fake_tool(fake_path, "clang++", "exit 1")    # a clang++ without SYCL support
    assert toolchains.find_sycl_compiler() is None
    toolchains.find_sycl_compiler.cache_clear()
    toolchains._compiles_sycl.cache_clear()
    _fake_tool(fake_path, "clang++")                      # probes fine now
    assert toolchains.find_sycl_compiler() == (str(clang), "-fsycl")
    toolchains.find_sycl_compiler.cache_clear()
    icpx = _fake_tool(fake_path, "icpx")
    assert toolchains.find_sycl_compiler() == (str(icpx), "-fsycl")
    toolchains.find_sycl_compiler.cache_clear()
    acpp = _fake_tool(fake_path, "acpp")
    assert toolchains.find_sycl_compiler() == (str(acpp),)
    assert toolchains.find_sycl_compiler("icpx") == (str(icpx), "-fsycl")
    assert toolchains.find_sycl_compiler("clang++ -fsycl -O1") == (str(clang), "-fsycl", "-O1")
    assert toolchains.find_sycl_compiler("no-such-compiler") is None


def test_availability_names_the_toolchain(fake_path, monkeypatch):
    monkeypatch.delenv(toolchain.TEST_DOUBLE_VARIABLE, raising=False)
    backend = SYCLBackend()
    avail = backend.availability()
    assert (avail.can_build, avail.can_run) == (False, False)
    assert avail.detail.startswith("no SYCL compiler on PATH: install AdaptiveCpp (acpp) or "
                                   "Intel oneAPI (icpx)")
    assert "--sycl-compiler CMD" in avail.detail and "-b sycl -o DIR" in avail.detail
    acpp = _fake_tool(fake_path, "acpp")
    toolchains.find_sycl_compiler.cache_clear()
    avail = backend.availability()
    assert avail.can_build and avail.detail.startswith(str(acpp))


def test_availability_with_the_test_double(fake_path, monkeypatch, tmp_path):
    """The detail names the double and a digest of its headers: it is part of the build
    cache's key, so an edited double builds every program again."""
    if GXX is None:
        pytest.skip("g++ not found")
    _fake_tool(fake_path, "g++", f'exec {GXX} "$@"')
    double = tmp_path / "double"
    shutil.copytree(ROOT / "tests" / "support" / "sycl_host", double)
    monkeypatch.setenv(toolchain.TEST_DOUBLE_VARIABLE, str(double))
    avail = SYCLBackend().availability()
    assert avail.can_build and avail.can_run
    assert re.fullmatch(rf"g\+\+ \+ SYCL test double \({re.escape(str(double))}, headers "
                        r"[0-9a-f]{12}\) — not a SYCL implementation", avail.detail)
    assert SYCLBackend().availability().detail == avail.detail
    header = double / "sycl" / "detail" / "work_groups.hpp"
    header.write_text(header.read_text() + "\n// edited\n")
    assert SYCLBackend().availability().detail != avail.detail


def test_build_failure_raises_backend_error_with_the_log(fake_path, tmp_path):
    broken = _fake_tool(fake_path, "mysycl", 'echo "boom: cannot compile" >&2; exit 1')
    with pytest.raises(BackendError) as raised:
        SYCLBackend().build(compiled("tc").generated, tmp_path / "out",
                            BackendOptions(extra={"sycl_compiler": str(broken)}))
    assert "boom: cannot compile" in str(raised.value)
    assert not (tmp_path / "out" / "tc").exists()


def test_build_with_a_named_compiler_passes_the_program(fake_path, tmp_path):
    """A fake compiler records its arguments: -O3 -o <program> <program>.cpp."""
    log = tmp_path / "argv.txt"
    fake = _fake_tool(fake_path, "acpp", f'echo "$@" > {log}; : > tc.partial')
    built = SYCLBackend().build(compiled("tc").generated, tmp_path / "out",
                                BackendOptions(extra={"sycl_compiler": str(fake)}))
    assert log.read_text().split() == ["-O3", "-fwrapv", "-o", "tc.partial", "tc.cpp"]
    assert built.argv_prefix == [str(tmp_path / "out" / "tc")]
    assert (tmp_path / "out" / "starc_sycl.hpp").is_file()


def test_backend_build_uses_the_test_double_when_no_compiler(tmp_path, graph_files):
    """The e2e matrix path: STARC_SYCL_TEST_DOUBLE (set by tests/conftest.py) and no real
    SYCL compiler on PATH -> SYCLBackend.build compiles with g++ against the double."""
    if toolchains.find_sycl_compiler() is not None:
        pytest.skip("a real SYCL compiler is installed; it is used instead of the double")
    built = SYCLBackend().build(compiled("bfs").generated, tmp_path, BackendOptions())
    proc = run_program(built.argv_prefix, graph_files["mixed"], "bfs", tmp_path / "out.txt")
    assert proc.returncode == 0, proc.stderr
    problems = compare_results(reference("bfs", graph_files["mixed"]),
                               parse_results((tmp_path / "out.txt").read_text()))
    assert not problems


def test_cli_writes_the_program(tmp_path):
    out = tmp_path / "bc_sycl"
    proc = subprocess.run([sys.executable, "-m", "starc", str(DSL / "bc.sp"), "-b", "sycl",
                           "-o", str(out)], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert (out / "bc.cpp").is_file() and (out / "starc_sycl.hpp").is_file()
    assert "build: acpp -O3 -fwrapv -o bc bc.cpp" in proc.stdout
