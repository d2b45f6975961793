"""The OpenACC toolchain: nvc++ -acc when found, else g++ -fopenacc (``--openacc-compiler``
overrides), and the command that builds a generated ``.cpp`` file.

g++ without an offload compiler runs every compute region on the host, one thread (GCC's
"host fallback"): correct, and how the tests and CI run OpenACC programs, but sequential.
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
from typing import List, Optional

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import compile_executable
from starc.backends.openacc import OPENACC_COMPILER

__all__ = ["find", "availability", "build_command", "compile_program"]

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
        words = shlex.split(preferred)
        found = toolchains.find_program(words[0]) if words else None
        return [found, *words[1:]] if found else []
    for name in (*_NVIDIA[:1], "g++"):
        found = toolchains.find_program(name)
        if found:
            return [found]
    return []


def availability() -> Availability:
    argv = find()
    if not argv:
        return Availability(False, False, "no OpenACC compiler (nvc++ or g++) on PATH")
    name = os.path.basename(argv[0])
    match = re.search(r"\d+\.\d+(\.\d+)?", toolchains.tool_version(argv[0]))
    found = f"{name} {match.group(0)}" if match else name
    if name in _NVIDIA:
        return Availability(True, True, f"{found} -acc")
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
