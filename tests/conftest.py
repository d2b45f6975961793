"""Toolchain probing (once per session) and the per-backend markers' skips."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

import pathlib

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis profiles: 'ci' (the default; the CLI fuzzer takes about a minute) and 'long'
# (pytest --hypothesis-profile=long, e.g. tests/fuzz for a nightly run). Registered here, in
# the top conftest, because the hypothesis plugin loads the profile before the test
# directories' conftests are read.
settings.register_profile("ci", deadline=None)
settings.register_profile("long", deadline=None, max_examples=4000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.load_profile("ci")

ROOT = pathlib.Path(__file__).resolve().parents[1]
# No SYCL compiler exists in our package registries: where none is on PATH, the SYCL backend
# builds the generated (standard SYCL 2020) code with g++ against the test-only host
# implementation in tests/support/sycl_host (see its README). Never used outside the tests.
os.environ.setdefault("STARC_SYCL_TEST_DOUBLE", str(ROOT / "tests" / "support" / "sycl_host"))


@functools.lru_cache(maxsize=None)
def opencl_availability():
    """Whether generated OpenCL programs build (g++, OpenCL headers, libOpenCL) and run (a
    device that builds a kernel) here; the detail names the device, or what is missing."""
    from starc.backends.opencl.emitter import OpenCLBackend
    return OpenCLBackend().availability()


@functools.lru_cache(maxsize=None)
def have_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


@functools.lru_cache(maxsize=None)
def mpi_missing() -> str:
    """The MPI tool generated MPI programs need that is not here ("mpicxx", "mpirun"), or ""."""
    from starc.backends.mpi import toolchain
    compiler = toolchain.find()
    if not compiler:
        return "mpicxx"
    return "" if toolchain.find_launcher(compiler[0]) else "mpirun"


SKIPS = {
    "opencl": (lambda: opencl_availability().can_run,
               lambda: f"cannot run OpenCL programs here: {opencl_availability().detail}"),
    "cuda": (lambda: shutil.which("nvcc") is not None, "nvcc not found"),
    "gpu": (have_gpu, "no NVIDIA GPU (nvidia-smi -L lists none)"),
    "sycl": (lambda: shutil.which("g++") is not None, "g++ not found (needed for SYCL tests)"),
    "openacc": (lambda: bool(shutil.which("nvc++") or shutil.which("g++")),
                "no OpenACC compiler (nvc++ or g++) found"),
    "mpi": (lambda: not mpi_missing(),
            lambda: f"{mpi_missing()} not found (Debian: openmpi-bin libopenmpi-dev)"),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, (available, reason) in SKIPS.items():
            if marker in item.keywords and not available():
                item.add_marker(pytest.mark.skip(reason=reason() if callable(reason)
                                                 else reason))


@pytest.fixture(autouse=True, scope="session")
def _isolated_build_cache(tmp_path_factory):
    """Builds made by tests go to a per-session cache, never the user's ~/.cache; MPI
    programs start under mpirun with the ranks each test asks for, whatever launcher the
    user's shell names for their own runs."""
    if "STARC_CACHE_DIR" not in os.environ:
        # One cache for the whole run, shared by pytest-xdist's workers (the build cache is
        # safe across processes): a program two workers need is compiled once.
        base = tmp_path_factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        cache = shared / "starc-cache"
        cache.mkdir(exist_ok=True)
        os.environ["STARC_CACHE_DIR"] = str(cache)
    os.environ.pop("STARC_MPI_LAUNCHER", None)
    yield


@pytest.fixture
def graph(tmp_path):
    """A three-vertex weighted path, 0 -4-> 1 -1-> 2, as an edge-list file (a test module's own
    ``graph`` fixture takes its place there)."""
    path = tmp_path / "g.el"
    path.write_text("0 1 4\n1 2 1\n")
    return str(path)
