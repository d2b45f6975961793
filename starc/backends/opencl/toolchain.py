"""The OpenCL toolchain: g++ with the OpenCL headers and ICD loader; a probe for a device.

Building a generated program needs a C++17 compiler, the OpenCL headers and ``libOpenCL`` (the
ICD loader): on Debian ``apt install g++ opencl-headers ocl-icd-opencl-dev``. Running it needs
an installed OpenCL platform (an ICD), e.g. ``pocl-opencl-icd`` for the CPU. ``probe`` checks
both once per process with a tiny program built on the program's own runtime header, so what
it reports is what a generated program would find.
"""

from __future__ import annotations

import functools
import hashlib
import pathlib
import shutil
import subprocess
from typing import List, Optional, Tuple

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import RuntimeEntries, compile_executable
from starc.backends.common.runtime_paths import RUNTIME_DIR

__all__ = ["HOST_HEADERS", "HOST_RUNTIME", "INSTALL_HINT", "build_command", "build_lines",
           "compile_program", "availability"]

#: The OpenCL host helpers a generated program includes.
HOST_RUNTIME = pathlib.Path(__file__).resolve().parent / "runtime" / "starc_opencl_host.hpp"

#: Every header of the OpenCL host runtime, generated next to every program: HOST_RUNTIME and
#: the ones it includes (starc_opencl_device.hpp).
HOST_HEADERS = tuple(sorted(HOST_RUNTIME.parent.glob("*.hpp")))

#: The runtime entry points its programs call (compiled once: runtime_object.py).
ENTRIES = RuntimeEntries(("starc_runtime.hpp", HOST_RUNTIME.name), (HOST_RUNTIME.parent,))

INSTALL_HINT = "apt install opencl-headers ocl-icd-opencl-dev"

# -fwrapv: signed integer overflow wraps on the host as in the reference (LANGUAGE.md §2);
# -fopenmp: the host runtime's passes over the edges (renumbering by degree) use the cores
_FLAGS = ["-std=c++17", "-O2", "-fwrapv", "-fopenmp"]
_LIBRARIES = ["-lOpenCL"]

_PROBE_SOURCE = """\
// starc's OpenCL probe: the device a generated program would choose, built like one.
#include "starc_runtime.hpp"
#include "starc_opencl_host.hpp"

int main() {
  starc_opencl device = starc_open_device("default", "starc_probe.cl", {}, "the OpenCL probe");
  std::printf("%s\\n", device.description.c_str());
  return 0;
}
"""
_PROBE_KERNEL = "__kernel void starc_probe(__global int *a) { a[get_global_id(0)] = 1; }\n"


def build_command(program: str, compiler: str = "g++") -> List[str]:
    """The command that builds ``program.cpp`` into ``program`` (in its folder)."""
    return [compiler, *_FLAGS, "-o", program, f"{program}.cpp", *_LIBRARIES]


def build_lines(program: str, options: Optional[BackendOptions] = None) -> List[str]:
    """The build command a generated program's header shows (its build hint)."""
    return [" ".join(build_command(program))]


def compile_program(outdir: pathlib.Path, program: str,
                    options: Optional[BackendOptions] = None) -> pathlib.Path:
    """Compile ``outdir/program.cpp`` into ``outdir/program``: complete or not at all (the
    compiler writes ``program.partial``, renamed when it succeeds). BackendError otherwise."""
    compiler = toolchains.find_cxx()
    if compiler is None:
        raise BackendError("cannot build OpenCL: no C++ compiler (g++) found", code="E0502")
    return compile_executable(build_command(program, compiler), outdir, program,
                              f"the C++ compiler failed to build {program}.cpp", _install_hint,
                              ENTRIES)


def _install_hint(log: str) -> str:
    """The packages to install when the compiler's words say the OpenCL SDK is missing."""
    output = log.split("\n", 1)[-1]       # the compiler's words, after "$ command"
    missing = "CL/cl.h: No such file" in output or "cannot find -lOpenCL" in output
    return f"\n(are the OpenCL headers and loader installed? {INSTALL_HINT})" if missing else ""


def _probe_binary(compiler: str) -> Tuple[Optional[pathlib.Path], str]:
    """The probe executable, built once into the build cache (keyed by its sources and the
    compiler); (None, the compiler's log) when it does not build."""
    from starc.cachedir import cache_root, cache_workdir
    digest = hashlib.sha256("\0".join(
        [compiler, _PROBE_SOURCE, _PROBE_KERNEL]
        + [header.read_text() for header in HOST_HEADERS]
        + [header.read_text() for header in sorted(RUNTIME_DIR.glob("*.hpp"))]).encode())
    folder = cache_root() / f"opencl-probe-{digest.hexdigest()[:16]}"
    if (folder / "probe").is_file():
        return folder / "probe", ""
    work = cache_workdir("opencl-probe-")
    (work / "probe.cpp").write_text(_PROBE_SOURCE)
    (work / "starc_probe.cl").write_text(_PROBE_KERNEL)
    ok, log = toolchains.run_compiler(
        [compiler, "-std=c++17", f"-I{RUNTIME_DIR}", f"-I{HOST_RUNTIME.parent}", "-o", "probe",
         "probe.cpp", *_LIBRARIES], cwd=work)
    if not ok:
        shutil.rmtree(work, ignore_errors=True)
        return None, log
    try:
        work.replace(folder)
    except OSError:  # another process built it first
        shutil.rmtree(work, ignore_errors=True)
    return folder / "probe", ""


@functools.lru_cache(maxsize=None)
def availability() -> Availability:
    """Can build: a C++ compiler, the OpenCL headers and libOpenCL (the probe compiles). Can
    run: the probe finds a device that builds a trivial kernel; the detail names it."""
    compiler = toolchains.find_cxx()
    if compiler is None:
        return Availability(False, False, "no C++ compiler (g++) found")
    binary, log = _probe_binary(compiler)
    if binary is None:
        reason = next((line for line in log.splitlines() if "error" in line), "")
        return Availability(False, False, "cannot build OpenCL programs: the OpenCL headers "
                                          f"or libOpenCL are missing ({INSTALL_HINT})"
                                          + (f": {reason.strip()}" if reason else ""))
    try:
        proc = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as error:
        return Availability(True, False, f"the OpenCL probe did not run: {error}")
    if proc.returncode != 0:
        message = " ".join(proc.stderr.split()) or f"exit status {proc.returncode}"
        return Availability(True, False, f"build only: {message}")
    return Availability(True, True, proc.stdout.strip())
