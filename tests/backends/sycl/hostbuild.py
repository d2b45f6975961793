"""Test-only: build generated SYCL with g++ against the SYCL host test double.

No SYCL compiler exists in the package registries CI uses, so the SYCL tests (and the e2e
matrix, through ``STARC_SYCL_TEST_DOUBLE``) compile the generated standard SYCL 2020 with g++
and OpenMP against ``tests/support/sycl_host``, a small host implementation of exactly the
subset starc emits. This is a test double, not a SYCL implementation: the generated code never
refers to it, and a real SYCL compiler builds the same files unchanged.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
from typing import List, Sequence

__all__ = ["TEST_DOUBLE", "GXX", "STRICT_FLAGS", "build_with_test_double", "DoubleBuildError"]

ROOT = pathlib.Path(__file__).resolve().parents[3]
#: The include folder holding the test double's ``sycl/sycl.hpp``.
TEST_DOUBLE = ROOT / "tests" / "support" / "sycl_host"
GXX = shutil.which("g++")
#: Every warning is an error: generated code must compile cleanly.
STRICT_FLAGS = ["-std=c++17", "-O1", "-fopenmp", "-fwrapv", "-Wall", "-Wextra", "-Werror"]


class DoubleBuildError(AssertionError):
    """g++ rejected a generated program (the message holds the command and its output)."""


def build_with_test_double(generated, outdir, extra_flags: Sequence[str] = ()) -> List[str]:
    """Write ``generated`` (a ``GeneratedProgram`` of the sycl backend) into ``outdir`` and
    compile it with g++ against the test double; returns the argv prefix that runs it.
    ``extra_flags`` go to g++ (e.g. ``-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW``).

    The program's folder is the only other include path: the runtime headers must have been
    generated next to the program (the output folder is self-contained)."""
    if GXX is None:
        raise DoubleBuildError("g++ not found")
    outdir = pathlib.Path(outdir)
    generated.write(outdir)
    program = pathlib.Path(generated.main).stem
    argv = [GXX, *STRICT_FLAGS, *extra_flags, f"-I{TEST_DOUBLE}", f"-I{outdir}", "-o", str(outdir / program),
            str(outdir / generated.main)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise DoubleBuildError("$ " + " ".join(argv) + "\n" + proc.stdout + proc.stderr)
    return [str(outdir / program)]
