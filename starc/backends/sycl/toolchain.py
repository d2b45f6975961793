"""The SYCL toolchain: a real SYCL compiler (acpp, icpx -fsycl, clang++ -fsycl; ``--sycl-compiler``
overrides), or, for tests only, g++ with the host test double named by ``STARC_SYCL_TEST_DOUBLE``
(see ``emitter``'s docstring); and the commands that build a generated program."""

from __future__ import annotations

import hashlib
import os
import pathlib
from typing import List, Optional, Tuple

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import RuntimeEntries, compile_executable
from starc.backends.sycl import SYCL_COMPILER

__all__ = ["TEST_DOUBLE_VARIABLE", "double_include_dir", "find", "availability",
           "build_lines", "compile_program"]

#: Test-only: an include folder with a host test double of <sycl/sycl.hpp>.
TEST_DOUBLE_VARIABLE = "STARC_SYCL_TEST_DOUBLE"

#: How each supported compiler builds a generated program (documented in its header).
_COMPILER_COMMANDS = (("acpp",), ("icpx", "-fsycl"), ("clang++", "-fsycl"))
_OPTIMIZE = "-O3"
#: Signed integer overflow wraps (two's complement) as in the reference (LANGUAGE.md §2)
_WRAP = "-fwrapv"


def double_include_dir() -> Optional[pathlib.Path]:
    """Test-only: the include folder named by ``STARC_SYCL_TEST_DOUBLE``, if it holds
    ``sycl/sycl.hpp``."""
    folder = os.environ.get(TEST_DOUBLE_VARIABLE)
    if folder and (pathlib.Path(folder) / "sycl" / "sycl.hpp").is_file():
        return pathlib.Path(folder)
    return None


def _headers_digest(folder: pathlib.Path) -> str:
    """A digest of the double's headers: the toolchain detail is part of the build cache's
    key, so a program built against an older double is built again."""
    digest = hashlib.sha256()
    for header in sorted(folder.rglob("*.hpp")):
        digest.update(str(header.relative_to(folder)).encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()[:12]


def find(preferred: Optional[str] = None) -> Tuple[str, List[str]]:
    """("sycl", compiler argv) for a real compiler, ("double", g++ argv) for the test-only
    double, or ("", []) when neither is usable."""
    compiler = toolchains.find_sycl_compiler(preferred)
    if compiler is not None:
        return "sycl", list(compiler)
    if preferred is None:
        double = double_include_dir()
        cxx = toolchains.find_program("g++")
        if double is not None and cxx is not None:
            return "double", [cxx, "-std=c++17", "-fopenmp", f"-I{double}"]
    return "", []


#: why the backend cannot build here, and what to do about it
NO_COMPILER = ("no SYCL compiler on PATH: install AdaptiveCpp (acpp) or Intel oneAPI (icpx), or "
               "use clang++ -fsycl; --sycl-compiler CMD names one elsewhere. Without one, "
               "`starc FILE -b sycl -o DIR` still writes the program")


def availability() -> Availability:
    kind, argv = find()
    if kind == "sycl":
        version = toolchains.tool_version(argv[0])
        detail = " ".join(argv) + (f" ({version})" if version else "")
        return Availability(True, True, detail)
    if kind == "double":
        double = double_include_dir()
        return Availability(True, True, f"g++ + SYCL test double ({double}, headers "
                                        f"{_headers_digest(double)}) — not a SYCL "
                                        "implementation")
    return Availability(False, False, NO_COMPILER)


def build_lines(program: str, options: BackendOptions) -> List[str]:
    """The one-line build command of ``program.cpp`` for each supported SYCL compiler, as a
    generated program's header shows them (the first is its build hint)."""
    return [" ".join([*compiler, _OPTIMIZE, _WRAP, "-o", program, f"{program}.cpp"])
            for compiler in _COMPILER_COMMANDS]


def compile_program(outdir: pathlib.Path, program: str,
                    options: BackendOptions) -> pathlib.Path:
    preferred = options.value(SYCL_COMPILER)
    kind, argv = find(preferred)
    if not kind:
        wanted = f"'{preferred}'" if preferred else "acpp, icpx or clang++ -fsycl"
        raise BackendError(f"cannot build SYCL: no SYCL compiler ({wanted}) found",
                           code="E0502")
    flags = (["-O2"] if kind == "double" else [_OPTIMIZE]) + [_WRAP]
    return compile_executable(argv + flags + ["-o", program, f"{program}.cpp"], outdir, program,
                              f"the SYCL compiler failed to build {program}.cpp",
                              entries=RuntimeEntries())
