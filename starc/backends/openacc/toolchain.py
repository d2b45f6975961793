"""The OpenACC toolchain: the compiler, the target its compute regions are built for, the build."""

from __future__ import annotations

import functools
import os
import pathlib
import re
import subprocess
import tempfile
from typing import List, Optional, Tuple

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import RuntimeEntries, compile_executable
from starc.backends.openacc import OPENACC_COMPILER, OPENACC_TARGET

__all__ = ["find", "availability", "build_command", "compile_program", "nvptx_offload",
           "target_of", "build_lines", "NVPTX_ISA", "TARGET_FLAGS",
           "NO_OFFLOAD_COMPILER"]

# Three tiers, which ``availability`` names for ``starc backends``:
# - g++ without an offload compiler runs every compute region on the host, one thread (GCC's
#   "host fallback"): correct, and sequential.
# - g++ with its nvptx offload compiler (Debian: gcc-12-offload-nvptx) also compiles every
#   region to PTX for NVIDIA GPUs; libgomp runs them on a GPU when one is present and on the
#   host otherwise (as the tests and CI run them). Its default ISA, sm_35, is one the ptxas of
#   CUDA 12 and later rejects, so the build names NVPTX_ISA.
# - nvc++ -acc (NVIDIA HPC SDK): regions for NVIDIA GPUs (or the host, -acc=host).

#: NVIDIA's compilers (anything else is taken to be GCC-like)
_NVIDIA = ("nvc++", "pgc++")

#: the PTX architecture g++ compiles regions for. Of GCC 12's choices (sm_30, sm_35, sm_53,
#: sm_70, sm_75, sm_80), sm_75 (Turing) is the oldest that CUDA 13's ptxas accepts (nvptx-as
#: runs ptxas, when on PATH, to check the PTX); the program carries PTX, which the driver
#: compiles for the GPU present, so sm_75 runs on every GPU CUDA 13 supports, where sm_80 would
#: leave out Turing. It is also the CUDA backend's default ``--gpu-arch``.
NVPTX_ISA = "sm_75"

#: each compiler family's flags per target (``--openacc-target`` once ``auto`` is resolved;
#: None: the compiler's own default). GCC's ``-Wl,-z,notext``: GCC 12's table of offloaded
#: functions (crtoffloadtable.o) keeps addresses in .rodata, which in a position-independent
#: executable is a text relocation the linker warns about on every build; it is harmless.
TARGET_FLAGS = {
    "g++": {"host": ["-foffload=disable"],
            "nvptx": ["-foffload=nvptx-none", f"-foffload-options=nvptx-none=-misa={NVPTX_ISA}",
                      "-Wl,-z,notext"],
            None: []},
    "nvc++": {"host": ["-acc=host"], "nvptx": ["-acc=gpu"], None: ["-acc"]},
}

#: why g++ cannot offload when its nvptx offload compiler is missing (after the compiler's name)
NO_OFFLOAD_COMPILER = "has no nvptx offload compiler (Debian: gcc-12-offload-nvptx)"


def _family(compiler: str) -> str:
    return "nvc++" if os.path.basename(compiler) in _NVIDIA else "g++"


def _flags(compiler: str, strict: bool, target: Optional[str]) -> List[str]:
    """Everything but the compiler, ``-o`` and the source; ``strict`` adds warnings as errors
    (as the tests build); ``target`` is "host", "nvptx" or None (the compiler's default)."""
    family = _family(compiler)
    if family == "nvc++":
        return TARGET_FLAGS[family][target] + ["-O2", "-std=c++17"] + \
            (["-Werror"] if strict else [])
    # -fwrapv: signed overflow wraps, as in the reference (LANGUAGE.md §2)
    flags = ["-fopenacc", "-O2", "-std=c++17", "-fwrapv", *TARGET_FLAGS[family][target]]
    if target == "host":
        # -fopenmp: the host runtime's passes over the edges (renumbering by degree) use the
        # cores. GCC 12's mkoffload refuses it beside -fopenacc ("either ... must be set"), so
        # a build that offloads runs them on one thread, as nvc++ (untried here with -mp) does.
        flags.append("-fopenmp")
    # -Wno-overflow: a constant expression that overflows (`int x = 2147483647 + 1`) wraps as
    # the language says (-fwrapv); the warning would reject a valid program
    return flags + (["-Wall", "-Wextra", "-Werror", "-Wno-overflow"] if strict else [])


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


#: the smallest program with a compute region, to see whether g++ can offload it
_PROBE = "int main() { int x[4];\n#pragma acc parallel loop copyout(x)\n" \
         "for (int i = 0; i < 4; i++) x[i] = i;\nreturn x[3] - 3; }\n"


@functools.lru_cache(maxsize=None)
def nvptx_offload(compiler: str = "g++") -> Tuple[bool, str]:
    """Whether GCC-like ``compiler`` builds OpenACC regions for NVIDIA GPUs with the flags the
    build uses, and if not, why (words that follow the compiler's name): builds a one-loop
    program (a tenth of a second)."""
    argv = toolchains.find_command(compiler)
    if not argv:
        return False, "is not found"
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / "probe.cpp"
        source.write_text(_PROBE)
        try:
            proc = subprocess.run([*argv, "-fopenacc", *TARGET_FLAGS["g++"]["nvptx"],
                                   str(source), "-o", str(pathlib.Path(folder) / "probe")],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as error:
            return False, f"fails to start ({error})"
    if proc.returncode == 0:
        return True, ""
    # lto-wrapper's words when the package is missing; the driver's when GCC was configured
    # without the target
    if "could not find accel/nvptx-none/mkoffload" in proc.stderr \
            or "not configured to support" in proc.stderr:
        return False, NO_OFFLOAD_COMPILER
    lines = [line for line in proc.stderr.splitlines() if "fatal" in line or "error" in line]
    first = (lines or proc.stderr.splitlines() or ["no output"])[0].strip()
    return False, f"fails to build a test loop for nvptx-none ({first})"


def target_of(options: BackendOptions, compiler: str) -> Optional[str]:
    """The target ``compiler`` builds for under ``options``: "host", "nvptx", or None (auto
    with nvc++: its own default). ``nvptx`` asked of a g++ that cannot offload is an error."""
    asked = options.value(OPENACC_TARGET)
    if _family(compiler) == "nvc++":
        return None if asked == "auto" else asked
    if asked == "host":
        return "host"
    offloads, why = nvptx_offload(compiler)
    if asked == "nvptx" and not offloads:
        raise BackendError(f"cannot build OpenACC for --openacc-target nvptx: {compiler} {why}"
                           f"; --openacc-target host builds for the host", code="E0502")
    return "nvptx" if offloads else "host"


def availability() -> Availability:
    argv = find()
    if not argv:
        return Availability(False, False, "no OpenACC compiler (nvc++ or g++) on PATH")
    name = os.path.basename(argv[0])
    match = re.search(r"\d+\.\d+(\.\d+)?", toolchains.tool_version(argv[0]))
    found = f"{name} {match.group(0)}" if match else name
    if _family(argv[0]) == "nvc++":
        return Availability(True, True, f"{found} -acc: nvc++ (NVIDIA HPC SDK), regions for "
                                        f"NVIDIA GPUs (--openacc-target host: -acc=host)")
    offloads, why = nvptx_offload(argv[0])
    if offloads:
        return Availability(True, True, f"{found} -fopenacc: gcc nvptx offload ({NVPTX_ISA}), "
                                        f"regions run on an NVIDIA GPU, on the host (one "
                                        f"thread) when none is present")
    return Availability(True, True, f"{found} -fopenacc: host fallback (one thread), as {name} "
                                    f"{why}")


def build_command(program: str, compiler: str = "g++", strict: bool = False,
                  target: Optional[str] = None) -> List[str]:
    """The command line that builds ``program``.cpp into ``program`` (in its folder) for
    ``target`` ("host", "nvptx", None: the compiler's default)."""
    return [compiler, *_flags(compiler, strict, target), "-o", program, f"{program}.cpp"]


def build_lines(program: str, options: BackendOptions) -> List[str]:
    """The build commands a generated program's header shows, the first one its build hint:
    g++ for the target asked (for ``auto``, the host first: it builds on every g++), then
    nvc++."""
    asked = options.value(OPENACC_TARGET)
    targets = ("host", "nvptx") if asked == "auto" else (asked,)
    lines = [build_command(program, "g++", target=target) for target in targets]
    lines.append(build_command(program, "nvc++", target=None if asked == "auto" else asked))
    return [" ".join(line) for line in lines]


def _explain(target: Optional[str]):
    """The hint after a failed build: an offload build can fail where the host one does not."""
    def hint(log: str) -> str:
        return "\n(the build compiled the compute regions for NVIDIA GPUs; " \
               "--openacc-target host builds them for the host only)" if target == "nvptx" else ""
    return hint


def compile_program(outdir: pathlib.Path, program: str,
                    options: BackendOptions) -> pathlib.Path:
    preferred = options.value(OPENACC_COMPILER)
    argv = find(preferred)
    if not argv:
        wanted = f"'{preferred}'" if preferred else "nvc++ or g++"
        raise BackendError(f"cannot build OpenACC: no OpenACC compiler ({wanted}) found",
                           code="E0502")
    target = target_of(options, argv[0])
    command = argv + build_command(program, argv[0], strict=True, target=target)[1:]
    return compile_executable(command, outdir, program,
                              f"the OpenACC compiler failed to build {program}.cpp",
                              _explain(target), RuntimeEntries())
