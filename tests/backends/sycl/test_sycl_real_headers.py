"""The generated SYCL type-checks against a real SYCL 2020 implementation's headers.

No SYCL compiler exists in our package registries, but Intel's SYCL runtime wheel
(`pip install intel-sycl-rt`, the `sycl-headers` extra) ships the real DPC++ headers, which
also serve g++ as a host compiler. Compiling the generated host+kernel source against them
with `g++ -fsyntax-only` checks every SYCL call, type and template we emit against a real
implementation, not only against our test double (tests/support/sycl_host). Device code
generation needs a SYCL compiler and is not checked here.
"""

from __future__ import annotations

import glob
import pathlib
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata

import pytest

from starc.backends.base import BackendOptions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = sorted(glob.glob(str(ROOT / "dsl" / "*.sp")))


def real_sycl_include() -> pathlib.Path | None:
    """The include directory of the installed intel-sycl-rt wheel, if any."""
    try:
        dist = metadata.distribution("intel-sycl-rt")
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if str(file).replace("\\", "/").endswith("include/sycl/sycl.hpp"):
            header = pathlib.Path(dist.locate_file(file)).resolve()
            return header.parent.parent if header.exists() else None
    return None


INCLUDE = real_sycl_include()
pytestmark = [
    pytest.mark.sycl,
    pytest.mark.skipif(INCLUDE is None, reason="real SYCL headers not found "
                       "(pip install intel-sycl-rt, or the 'sycl-headers' extra)"),
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found"),
]


def _check(path: str, outdir: pathlib.Path) -> str:
    sink = DiagnosticSink()
    comp = compile_file(path, sink, backend="sycl", options=BackendOptions())
    assert comp is not None and comp.ok, [d.header() for d in sink.diagnostics]
    comp.generated.write(outdir)
    proc = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
         "-DSYCL_DISABLE_FSYCL_SYCLHPP_WARNING", "-isystem", str(INCLUDE), "-I", str(outdir),
         str(outdir / comp.generated.main)], capture_output=True, text=True)
    return "" if proc.returncode == 0 else proc.stderr[-3000:]


def test_every_dsl_program_typechecks_against_real_sycl_headers(tmp_path):
    with ThreadPoolExecutor(max_workers=2) as pool:
        errors = dict(zip(DSL, pool.map(
            lambda p: _check(p, tmp_path / pathlib.Path(p).stem), DSL)))
    failed = {pathlib.Path(p).name: e for p, e in errors.items() if e}
    assert not failed, "\n\n".join(f"{name}:\n{err}" for name, err in failed.items())
