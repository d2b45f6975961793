"""The OpenACC toolchain: nvc++ -acc when found, else g++ -fopenacc (``--openacc-compiler``
overrides), and the command that builds a generated ``.cpp`` file.

g++ without an offload compiler runs every compute region on the host, one thread (GCC's
"host fallback"): correct, and how the tests and CI run OpenACC programs, but sequential. With
Debian's gcc-12-offload-nvptx installed, g++ also compiles every region for NVIDIA GPUs (its
default ``-foffload`` is every configured target); ``gcc_offloads_to`` tells the tests, which
then compile each program with ``-foffload=nvptx-none`` as a compile tier.
"""

from __future__ import annotations

import functools
import os
import pathlib
import re
import subprocess
import tempfile
from typing import List, Optional

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import compile_executable
from starc.backends.openacc import OPENACC_COMPILER

__all__ = ["find", "availability", "build_command", "compile_program", "gcc_offloads_to",
           "NVPTX_FLAGS"]

#: the OpenACC flag of each compiler family (anything not NVIDIA's is taken to be GCC-like)
_NVIDIA = ("nvc++", "pgc++")


def _flags(compiler: str, strict: bool) -> List[str]:
    """Everything but the compiler, ``-o`` and the source; ``strict`` adds warnings as errors
    (as the tests build)."""
    if os.path.basename(compiler) in _NVIDIA:
        return ["-acc", "-O2", "-std=c++17"] + (["-Werror"] if strict else [])
    # -fwrapv: signed overflow wraps, as in the reference (docs/language-notes.md)
    flags = ["-fopenacc", "-O2", "-std=c++17", "-fwrapv"]
    return flags + (["-Wall", "-Wextra", "-Werror"] if strict else [])


def find(preferred: Optional[str] = None) -> List[str]:
    """The compiler command (argv prefix, no flags): ``preferred`` if given and found, else
    nvc++, else g++; [] when none is found."""
    if preferred:
        return toolchains.find_command(preferred)
    for name in (*_NVIDIA[:1], "g++"):
        found = toolchains.find_program(name)
        if found:
            return [found]
    return []


#: g++'s flags for NVIDIA offloading: GCC 12 defaults to sm_35, which the ptxas of CUDA 12 and
#: later (run by nvptx-as when it is on PATH) no longer knows
NVPTX_FLAGS = ["-foffload=nvptx-none", "-foffload-options=nvptx-none=-misa=sm_80"]

#: the smallest program with a compute region, to see whether g++ can offload it
_PROBE = "int main() { int x[4];\n#pragma acc parallel loop copyout(x)\n" \
         "for (int i = 0; i < 4; i++) x[i] = i;\nreturn x[3] - 3; }\n"


@functools.lru_cache(maxsize=None)
def gcc_offloads_to(target: str = "nvptx-none") -> bool:
    """Whether g++ compiles OpenACC regions for ``target`` (its offload compiler is
    installed): builds a one-loop program with ``-foffload=<target>``."""
    cxx = toolchains.find_program("g++")
    if cxx is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / "probe.cpp"
        source.write_text(_PROBE)
        try:
            flags = NVPTX_FLAGS if target == "nvptx-none" else [f"-foffload={target}"]
            proc = subprocess.run([cxx, "-fopenacc", *flags, str(source), "-o",
                                   str(pathlib.Path(folder) / "probe")],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError):
            return False
    return proc.returncode == 0


def availability() -> Availability:
    argv = find()
    if not argv:
        return Availability(False, False, "no OpenACC compiler (nvc++ or g++) on PATH")
    name = os.path.basename(argv[0])
    match = re.search(r"\d+\.\d+(\.\d+)?", toolchains.tool_version(argv[0]))
    found = f"{name} {match.group(0)}" if match else name
    if name in _NVIDIA:
        return Availability(True, True, f"{found} -acc")
    if gcc_offloads_to("nvptx-none"):
        return Availability(True, True, f"{found} -fopenacc, offloading to nvptx-none")
    return Availability(True, True, f"{found} -fopenacc (host fallback: one thread)")


def build_command(program: str, compiler: str = "g++", strict: bool = False) -> List[str]:
    """The command line that builds ``program``.cpp into ``program`` (in its folder)."""
    return [compiler, *_flags(compiler, strict), "-o", program, f"{program}.cpp"]


def compile_program(outdir: pathlib.Path, program: str,
                    options: BackendOptions) -> pathlib.Path:
    preferred = options.value(OPENACC_COMPILER)
    argv = find(preferred)
    if not argv:
        wanted = f"'{preferred}'" if preferred else "nvc++ or g++"
        raise BackendError(f"cannot build OpenACC: no OpenACC compiler ({wanted}) found",
                           code="E0502")
    command = argv + build_command(program, argv[0], strict=True)[1:]
    return compile_executable(command, outdir, program,
                              f"the OpenACC compiler failed to build {program}.cpp")
