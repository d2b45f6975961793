"""The OpenACC prelude's two atomic branches (issue 33, item 2): GCC's __atomic builtins for g++
-fopenacc, CUDA's device atomics under NVIDIA's nvc++, whose device code rejects GCC's builtins.

nvc++ is not packaged for this machine, so the NVIDIA branch is checked as far as it can be
here: the preprocessor selects it under ``__NVCOMPILER`` and leaves no GCC builtin in it, and
nvcc compiles its CUDA parts (every helper, the locks and the run-time checks, each called from
one kernel) to device code. The GCC branch builds and runs in every other OpenACC test.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from starc.backends.common import atomic_helpers
from starc.backends.openacc.kernels import ATOMICS, CUDA_ATOMICS, runtime_header
from starc.ir.types import Scalar

pytestmark = pytest.mark.openacc

GXX = shutil.which("g++")
NVCC = shutil.which("nvcc")
#: the helpers and locks of the prelude: from the compiler's atomics to the expressions
_START, _END = "// --- the compiler's device atomics", "// --- expressions"


def helpers() -> str:
    """The device-atomic part of the prelude with every helper family."""
    text = runtime_header()
    return text[text.index(_START):text.index(_END)]


def preprocessed(*defines: str) -> str:
    """``helpers()`` after g++'s preprocessor with these macros defined."""
    if GXX is None:
        pytest.skip("g++ not found")
    proc = subprocess.run([GXX, "-E", "-P", "-x", "c++", *[f"-D{d}" for d in defines], "-"],
                          input=helpers(), capture_output=True, text=True, check=True)
    return proc.stdout


def test_nvcompiler_selects_cuda_atomics_and_no_gcc_builtin_remains():
    nvidia = preprocessed("__NVCOMPILER")
    assert "__atomic" not in nvidia
    for cuda in ("atomicCAS(", "atomicMin(p, v)", "atomicMax(p, v)", "atomicExch(lock, 0)",
                 "__threadfence()"):
        assert cuda in nvidia, cuda
    # floats are exchanged as the bits they are (NaN, -0.0), never compared as values
    assert re.search(r"unsigned int seen = atomicCAS\(\(unsigned int\*\)p, old, wanted\);",
                     nvidia)
    gcc = preprocessed()
    assert not re.search(r"\batomic(CAS|Min|Max|Exch)\(|__threadfence", gcc)
    assert "__atomic_compare_exchange(" in gcc and "__atomic_store_n(" in gcc


def test_the_table_says_where_cuda_atomics_replace_the_builtins():
    cuda_if = f"defined({CUDA_ATOMICS})"
    for elem in atomic_helpers.ELEMENT_TYPES:
        exchange = ATOMICS.compare_exchange[elem]
        assert "__atomic_compare_exchange" in exchange.call
        assert exchange.alternative_if == cuda_if and exchange.alternative.exchange == "atomicCAS"
    for op in ("min", "max"):
        native = ATOMICS.native[(op, Scalar.INT)]     # CUDA has int min/max instructions
        assert native.call == f"atomic{op.capitalize()}(p, v)"
        assert native.fallback_if == f"!{cuda_if}"    # elsewhere the compare-and-swap loop
        for elem in (Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE):
            assert (op, elem) not in ATOMICS.native
    # MPI's OpenMP table (host threads) keeps GCC's builtins only
    from starc.backends.mpi.kernels import ATOMICS as OPENMP
    assert all(e.alternative is None for e in OPENMP.compare_exchange.values())


def test_nvcc_compiles_the_cuda_branch_to_device_code(tmp_path):
    """Every helper of the NVIDIA branch as CUDA device functions (the OpenACC directives taken
    out: they are g++'s and nvc++'s business), called from one kernel. The GCC branch does
    not compile there: nvcc, like nvc++, rejects __atomic builtins in device code."""
    if NVCC is None:
        pytest.skip("nvcc not found")
    body = re.sub(r"^#pragma acc .*\n", "", helpers(), flags=re.M)
    body = re.sub(r"^inline ", "__device__ inline ", body, flags=re.M)
    helpers_used = re.findall(r"__device__ inline \w+(?: \w+)? (starc_atomic_\w+)\("
                              r"(\w+(?: \w+)?)\* p", body)
    assert len(helpers_used) == 40      # every family and its result-less form where it has one
    calls = "\n".join(f"  {name}(({ctype}*)cell, ({ctype})1);" for name, ctype in helpers_used)
    source = tmp_path / "helpers.cu"
    source.write_text(f"""#include <climits>
#include <cfloat>
{body}
__global__ void every_helper(long long* cell, int* lock, int* err, long long* err_value) {{
{calls}
  if (starc_lock_try(lock)) starc_lock_release(lock);
  (void)starc_check_index(5, 3, err, err_value, 1);
}}
""")

    def nvcc(*defines: str) -> subprocess.CompletedProcess:
        return subprocess.run([NVCC, "-arch=sm_75", "-std=c++17", "-Werror", "all-warnings",
                               *[f"-D{d}" for d in defines], "-c", str(source),
                               "-o", str(tmp_path / "helpers.o")],
                              capture_output=True, text=True, timeout=300)

    proc = nvcc(CUDA_ATOMICS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = nvcc()
    assert proc.returncode != 0 and "__atomic_compare_exchange" in proc.stderr
