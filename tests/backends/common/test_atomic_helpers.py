"""Each backend's atomic table (``ATOMICS`` in <backend>/kernels.py, on the records of
common/atomic_helpers.py) and the preludes rendered from it agree, and the rendered helpers
update correctly under contention (PoCL; the SYCL test double with OpenMP threads; nvcc
compiles them where it is installed)."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest

from starc.backends import get_backend
from starc.backends.common import atomic_helpers
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.cuda.kernels import CUDADialect, runtime_header as cuda_header
from starc.backends.opencl.kernels import OpenCLDialect, prelude as opencl_prelude
from starc.backends.opencl.kernels import required_extensions
from starc.backends.sycl.kernels import runtime_header as sycl_header
from starc.backends.sycl.kernels import SYCLDialect
from starc.ir.types import Scalar as S

ROOT = pathlib.Path(__file__).resolve().parents[3]
RENDER = {"opencl": opencl_prelude, "cuda": cuda_header, "sycl": sycl_header}
DIALECTS = {"opencl": OpenCLDialect(), "cuda": CUDADialect(), "sycl": SYCLDialect()}
BACKENDS = sorted(RENDER)


def definition(text: str, name: str) -> str:
    """The definition of function ``name`` in a prelude: its line if it is a one-line
    function, else up to its closing brace."""
    match = re.search(rf"^[^\n]*\b{name}\([^\n]*$", text, re.M)
    assert match, name
    if match.group(0).endswith("}"):
        return match.group(0)
    return text[match.start():text.index("\n}\n", match.start()) + 2]


def defined_atomics(text: str):
    return re.findall(r"^(?:__device__ )?inline \w+(?: \w+)? (starc_atomic_\w+)\(", text, re.M)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_family_the_dialect_declares_has_one_helper_in_the_prelude(backend):
    dialect, text = DIALECTS[backend], RENDER[backend]()
    expected = [dialect.atomic_helper(op, elem) for op, elem in dialect.atomics]
    if backend == "sycl":   # the result-less Min/Max of SYCL (fetch_min/fetch_max)
        expected += [dialect.atomic_helper(op, elem).replace("_atomic_", "_atomic_update_")
                     for op, elem in dialect.atomics if op in ("min", "max")]
    assert len(expected) >= 24
    assert sorted(defined_atomics(text)) == sorted(expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_helper_is_native_or_a_compare_and_swap_loop_as_the_table_says(backend):
    text = RENDER[backend]()
    table = get_backend(backend).atomics
    for op, elem in atomic_helpers.FAMILIES:
        suffix = atomic_helpers.ELEMENT_TYPES[elem]
        body = definition(text, f"starc_atomic_{op}_{suffix}")
        native = table.native.get((op, elem))
        loop = f"starc_compare_exchange_{suffix}(p, &old, " in re.sub(r"\(\s+", "(", body)
        if native is not None:
            assert f"return {native.call};" in body, body
        assert loop == (native is None or native.fallback_if is not None), body
        if native is not None and native.fallback_if:
            assert f"#if {native.fallback_if}\n" in body
        if op in ("min", "max"):
            better = "v < old" if op == "min" else "v > old"
            assert loop or native is not None
            assert not loop or f"while ({better} && !starc_compare_exchange_{suffix}(" in body


def test_only_the_families_the_kernels_use_are_rendered():
    features = {"atomic_min_node", "atomic_mul_double", "double"}
    for backend in BACKENDS:
        text = RENDER[backend](features)
        expected = {"starc_atomic_min_int", "starc_atomic_mul_double"}
        if backend == "sycl":
            expected.add("starc_atomic_update_min_int")
        assert set(defined_atomics(text)) == expected, backend
        # the loops' compare-and-swap, and the int one the run-time checks use
        assert re.findall(r"bool (starc_compare_exchange_\w+)\(", text) == [
            "starc_compare_exchange_int", "starc_compare_exchange_double"]
    pragmas = re.findall(r"#pragma OPENCL EXTENSION (\w+) : enable", opencl_prelude(features))
    assert pragmas == ["cl_khr_fp64", "cl_khr_int64_base_atomics"]


def test_opencl_extensions_come_from_the_table():
    base, extended = ["cl_khr_int64_base_atomics"], ["cl_khr_int64_extended_atomics"]
    expected = {("add", S.LONG): base, ("sub", S.LONG): base, ("mul", S.LONG): base,
                ("min", S.LONG): extended, ("max", S.LONG): extended,
                ("and", S.LONG): extended, ("or", S.LONG): extended}
    for op, elem in atomic_helpers.FAMILIES:
        want = base if elem is S.DOUBLE else expected.get((op, elem), [])
        assert required_extensions({f"atomic_{op}_{elem}"}) == want, (op, elem)
    assert required_extensions({"double", "atomic_add_double", "atomic_min_long"}) == [
        "cl_khr_fp64", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"]
    assert required_extensions({"atomic_add_float", "atomic_min_node"}) == []
    assert required_extensions(None) == required_extensions(
        {"double"} | {f"atomic_{op}_{elem}" for op, elem in atomic_helpers.FAMILIES})


# --- every helper under contention ---------------------------------------------------------

N = 4096
#: (operator, initial cell value, the value work item i applies), per family
CASES = [("add", 0, "1"), ("sub", 0, "1"), ("mul", 1, "i % 512 == 0 ? 2 : 1"),
         ("min", N, "n - 1 - i"), ("max", -1, "i"),
         ("and", -1, "~(1 << (i % 16))"), ("or", 0, "1 << (i % 16)")]
TYPES = {"int": np.int32, "long": np.int64, "float": np.float32, "double": np.float64}


def cases(suffix: str):
    return [(op, init, value) for op, init, value in CASES
            if (op, {v: k for k, v in atomic_helpers.ELEMENT_TYPES.items()}[suffix])
            in atomic_helpers.FAMILIES]


def exercise_lines(suffix: str, ctype: str):
    """One statement per family of the type: work item i updates cell k, keeps the old value."""
    return [f"olds[{k} * n + i] = starc_atomic_{op}_{suffix}(&cells[{k}], ({ctype})({value}));"
            for k, (op, _, value) in enumerate(cases(suffix))]


def check(suffix: str, cells: np.ndarray, olds: np.ndarray) -> None:
    """Final cells and returned old values: each add/sub/doubling saw a distinct old value;
    the one work item applying the extreme Min/Max value (i = N - 1) saw the value before it."""
    final = {"add": N, "sub": -N, "mul": 2 ** (N // 512), "min": 0, "max": N - 1,
             "and": ~0xFFFF, "or": 0xFFFF}
    for k, (op, init, _) in enumerate(cases(suffix)):
        mine = olds[k * N:(k + 1) * N]
        seen = np.sort(mine)
        assert cells[k] == final[op], (suffix, op, cells[k])
        if op == "add":
            np.testing.assert_array_equal(seen, np.arange(N))
        elif op == "sub":
            np.testing.assert_array_equal(seen, -np.arange(N)[::-1])
        elif op == "min":
            assert seen[0] >= 0 and 0 < mine[N - 1] <= N, (suffix, mine[N - 1])
        elif op == "max":
            assert seen[-1] <= N - 1 and -1 <= mine[N - 1] < N - 1, (suffix, mine[N - 1])
        elif op == "mul":     # the work items that double saw 1, 2, 4 ... in some order
            np.testing.assert_array_equal(np.sort(mine[::512]), 2 ** np.arange(N // 512))


def initial_cells(suffix: str) -> np.ndarray:
    return np.array([init for _, init, _ in cases(suffix)], dtype=TYPES[suffix])


@pytest.mark.opencl
def test_opencl_helpers_under_contention(tmp_path):
    """N work items of a real OpenCL device (PoCL here) hammer one cell per helper, through the
    OpenCL host runtime generated programs use (no pyopencl)."""
    from starc.backends.opencl.toolchain import HOST_HEADERS
    ctypes = {"int": "cl_int", "long": "cl_long", "float": "cl_float", "double": "cl_double"}
    kernels = [f"__kernel void exercise_{suffix}(__global {suffix} *cells, "
               f"__global {suffix} *olds, int n) {{\n    int i = get_global_id(0);\n"
               "    if (i >= n) return;\n"
               + "".join(f"    {line}\n" for line in exercise_lines(suffix, suffix)) + "}\n"
               for suffix in TYPES]
    (tmp_path / "exercise.cl").write_text(opencl_prelude() + "\n" + "\n".join(kernels))
    runs = []
    for suffix, ctype in ctypes.items():
        count = len(cases(suffix))
        init = ", ".join(str(value) for value in initial_cells(suffix))
        runs.append(f"""  {{
    std::vector<{ctype}> cells{{{init}}}, olds({count} * {N});
    starc_kernel kernel = starc_create_kernel(device, "exercise_{suffix}", 64, "test");
    cl_mem d_cells = starc_malloc<{ctype}>(device, cells.size(), "cells", "test");
    cl_mem d_olds = starc_malloc<{ctype}>(device, olds.size(), "olds", "test");
    starc_copy_to_device(device, d_cells, cells.data(), cells.size(), "test");
    starc_set_arg(kernel, 0, d_cells, "test");
    starc_set_arg(kernel, 1, d_olds, "test");
    starc_set_arg(kernel, 2, cl_int({N}), "test");
    starc_launch(device, kernel, {N}, "test");
    starc_copy_to_host(device, cells.data(), d_cells, cells.size(), "test");
    starc_copy_to_host(device, olds.data(), d_olds, olds.size(), "test");
    starc_finish(device, "test");
    for (auto x : cells) std::printf("%.17g ", (double)x);
    for (auto x : olds) std::printf("%.17g ", (double)x);
    std::printf("\\n");
  }}
""")
    source = ('#include <cstdio>\n#include <vector>\n#include "starc_runtime.hpp"\n'
              '#include "starc_opencl_host.hpp"\n\nint main() {\n'
              '  starc_opencl device = starc_open_device("default", "exercise.cl", {}, "test");\n'
              + "".join(runs) + "  return 0;\n}\n")
    for name, text in runtime_files(*HOST_HEADERS).items():
        (tmp_path / name).write_text(text)
    (tmp_path / "exercise.cpp").write_text(source)
    build = subprocess.run(["g++", "-std=c++17", "-O1", f"-I{tmp_path}", "exercise.cpp",
                            "-o", "exercise", "-lOpenCL"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "exercise")], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    for suffix, line in zip(ctypes, run.stdout.splitlines()):
        values = np.array([float(x) for x in line.split()]).astype(TYPES[suffix])
        count = len(cases(suffix))
        check(suffix, values[:count], values[count:])


def _write_headers(outdir, header_name: str, header: str) -> None:
    for name, text in {**runtime_files(), header_name: header}.items():
        (outdir / name).write_text(text)


@pytest.mark.sycl
@pytest.mark.parametrize("mode", [
    ["-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW", "-DSTARC_SYCL_FETCH_MINMAX_RETURNS_NEW"], []],
    ids=["adaptivecpp", "standard"])
def test_sycl_helpers_under_contention(mode, tmp_path):
    """With the double's fetch_min/fetch_max returning the new value (as AdaptiveCpp does),
    Min/Max still return the old one: they are compare-and-swap loops there; with the
    standard's fetch_min/fetch_max (the double's default) they are those."""
    ctypes = {"int": "int", "long": "long long", "float": "float", "double": "double"}
    functions, calls = [], []
    for suffix, ctype in ctypes.items():
        body = "".join(f"    {line}\n" for line in exercise_lines(suffix, ctype))
        functions.append(f"void exercise_{suffix}({ctype}* cells, {ctype}* olds, int n) {{\n"
                         f"#pragma omp parallel for\n  for (int i = 0; i < n; ++i) {{\n{body}"
                         "  }\n}\n")
        count = len(cases(suffix))
        init = ", ".join(str(value) for value in initial_cells(suffix))
        calls.append(f"  {{ std::vector<{ctype}> cells{{{init}}}, olds({count} * {N});\n"
                     f"    exercise_{suffix}(cells.data(), olds.data(), {N});\n"
                     f"    for (auto x : cells) std::printf(\"%.17g \", (double)x);\n"
                     f"    for (auto x : olds) std::printf(\"%.17g \", (double)x);\n"
                     f"    std::printf(\"\\n\"); }}\n")
    source = ('#include <vector>\n#include "starc_sycl.hpp"\n' + "\n".join(functions)
              + "int main() {\n" + "".join(calls) + "  return 0;\n}\n")
    _write_headers(tmp_path, "starc_sycl.hpp", sycl_header())
    (tmp_path / "exercise.cpp").write_text(source)
    build = subprocess.run(
        ["g++", "-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror",
         *mode, f"-I{ROOT / 'tests' / 'support' / 'sycl_host'}",
         f"-I{tmp_path}", "exercise.cpp", "-o", "exercise"],
        cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "exercise")], capture_output=True, text=True,
                         env={"OMP_NUM_THREADS": "4"}, timeout=60)
    assert run.returncode == 0, run.stderr
    for suffix, line in zip(ctypes, run.stdout.splitlines()):
        values = np.array([float(x) for x in line.split()]).astype(TYPES[suffix])
        count = len(cases(suffix))
        check(suffix, values[:count], values[count:])


@pytest.mark.cuda
def test_cuda_helpers_compile(tmp_path):
    ctypes = {"int": "int", "long": "long long", "float": "float", "double": "double"}
    kernels = "".join(
        f"__global__ void exercise_{suffix}({ctype}* cells, {ctype}* olds, int n) {{\n"
        f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n"
        + "".join(f"    {line}\n" for line in exercise_lines(suffix, ctype)) + "}\n"
        for suffix, ctype in ctypes.items())
    _write_headers(tmp_path, "starc_cuda.cuh", cuda_header())
    (tmp_path / "exercise.cu").write_text(
        '#include "starc_runtime.hpp"\n#include "starc_cuda.cuh"\n' + kernels)
    build = subprocess.run(
        [shutil.which("nvcc"), "-std=c++17", "-arch=sm_75", "-Werror", "all-warnings",
         "-Xcompiler", "-Wall,-Wextra", "-c", "exercise.cu", "-o", "exercise.o"],
        cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
