"""The CUDA toolchain: nvcc (``$STARC_NVCC``, PATH, ``$CUDA_HOME``), a GPU if one is here, and
the command that builds a generated ``.cu`` file."""

from __future__ import annotations

import pathlib
import re
from typing import List

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import RuntimeEntries, compile_executable
from starc.backends.cuda import GPU_ARCH

__all__ = ["availability", "build_command", "build_lines", "compile_program"]

_MISSING = "nvcc not found (set STARC_NVCC or CUDA_HOME)"


def availability() -> Availability:
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        return Availability(False, False, _MISSING)
    version = toolchains.tool_version(nvcc)
    match = re.search(r"release ([\d.]+)", version)
    found = f"nvcc {match.group(1)}" if match else (version or nvcc)
    gpus = toolchains.nvidia_gpus()
    if not gpus:
        return Availability(True, False, f"{found} found; no GPU: build only")
    return Availability(True, True, f"{found}; {gpus[0]}")


def build_command(program: str, arch: str, strict: bool = True) -> List[str]:
    """The nvcc command line that builds ``program``.cu into ``program`` (in its folder);
    ``strict`` adds the warnings-as-errors flags the tests build with."""
    # -fwrapv: host code wraps on signed overflow, as the reference (LANGUAGE.md §2);
    # -fopenmp: the host runtime's passes over the edges (renumbering by degree) use the cores
    argv = ["nvcc", "-O3", "-std=c++17", f"-arch={arch}", "-Xcompiler", "-fwrapv,-fopenmp"]
    if strict:
        # a constant expression that overflows (`int x = 2147483647 + 1`) wraps as the
        # language says (-fwrapv): diagnostic 61 and the host compiler's -Woverflow would
        # reject a valid program
        argv += ["-Werror", "all-warnings", "-diag-suppress", "61", "-Xcompiler",
                 "-Wall,-Wextra,-Wno-overflow"]
    return argv + ["-o", program, f"{program}.cu"]


def build_lines(program: str, options: BackendOptions) -> List[str]:
    """The build command a generated program's header shows (its build hint)."""
    return [" ".join(build_command(program, options.value(GPU_ARCH), strict=False))]


def compile_program(outdir: pathlib.Path, program: str,
                    options: BackendOptions) -> pathlib.Path:
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        raise BackendError(f"cannot build CUDA: {_MISSING}", code="E0502")
    argv = build_command(program, options.value(GPU_ARCH))
    argv[0] = nvcc
    return compile_executable(argv, outdir, program, f"nvcc failed to build {program}.cu",
                              entries=RuntimeEntries())
