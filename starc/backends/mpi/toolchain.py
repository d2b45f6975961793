"""The MPI toolchain: the C++ compiler wrapper (mpicxx, ``--mpi-compiler`` overrides), the
command that builds a generated ``.cpp`` file, and the launcher (mpirun/mpiexec) that starts it
on N ranks.

The launcher is looked for next to the compiler wrapper first, so that a program is started by
the MPI implementation it was built with (a machine may have both Open MPI and MPICH on PATH).
Options that only Open MPI's mpirun knows (``--oversubscribe``, ``--mca ...``) are given only
when the launcher says it is Open MPI's; any other launcher gets ``-np N`` alone.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from typing import List, Optional, Tuple

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions
from starc.backends.common.program import compile_executable
from starc.backends.mpi import MPI_COMPILER
from starc.errors import UsageError

__all__ = ["DEFAULT_RANKS", "find", "find_launcher", "implementation", "availability",
           "build_command", "compile_program", "launcher"]

#: the number of processes when none is given (``starc run -b mpi`` without ``--np``)
DEFAULT_RANKS = 2

_COMPILERS = ("mpicxx", "mpic++")
_LAUNCHERS = ("mpirun", "mpiexec")
_INSTALL_HINT = "Debian: apt install openmpi-bin libopenmpi-dev"


def find(preferred: Optional[str] = None) -> List[str]:
    """The compiler wrapper command (argv prefix, no flags): ``preferred`` if given and found,
    else mpicxx or mpic++; [] when none is found."""
    if preferred:
        return toolchains.find_command(preferred)
    for name in _COMPILERS:
        found = toolchains.find_program(name)
        if found:
            return [found]
    return []


def find_launcher(compiler: Optional[str] = None) -> Optional[str]:
    """mpirun or mpiexec: from the folder of ``compiler`` (a found wrapper's path) first, then
    PATH; None when there is neither."""
    if compiler:
        for name in _LAUNCHERS:
            beside = os.path.join(os.path.dirname(compiler), name)
            if os.path.isfile(beside) and os.access(beside, os.X_OK):
                return beside
    for name in _LAUNCHERS:
        found = toolchains.find_program(name)
        if found:
            return found
    return None


@functools.lru_cache(maxsize=None)
def implementation(launcher_path: str) -> Tuple[str, str]:
    """(implementation, version) that ``launcher_path --version`` names: ("Open MPI", "4.1.4"),
    ("MPICH", "4.0.2"); ("", "") when it says nothing we know."""
    try:
        proc = subprocess.run([launcher_path, "--version"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "", ""
    text = proc.stdout + proc.stderr
    # Open MPI: "mpirun (Open MPI) 4.1.4"; MPICH's Hydra: "HYDRA build details: Version: 4.0.2"
    match = re.search(r"\(Open MPI\)\s*(\S+)", text) or re.search(r"\(OpenRTE\)\s*(\S+)", text)
    if match:
        return "Open MPI", match.group(1)
    match = re.search(r"Version:\s*(\S+)", text)
    if "HYDRA" in text and match:
        return "MPICH", match.group(1)
    return "", ""


def _compiler_words(wrapper: str) -> str:
    """"g++ 12.2" for the compiler a wrapper runs (its ``--version`` is the compiler's)."""
    line = toolchains.tool_version(wrapper)
    version = re.search(r"\d+\.\d+", line)
    name = "clang++" if "clang" in line else (line.split()[0] if line else "")
    return " ".join(w for w in (name, version.group(0) if version else "") if w)


def availability() -> Availability:
    argv = find()
    if not argv:
        return Availability(False, False,
                            f"no MPI C++ compiler wrapper (mpicxx) on PATH ({_INSTALL_HINT})")
    inner = _compiler_words(argv[0])
    compiler = os.path.basename(argv[0]) + (f" ({inner})" if inner else "")
    found = find_launcher(argv[0])
    if found is None:
        return Availability(True, False, f"{compiler}; no mpirun or mpiexec on PATH, so "
                                         f"programs build but cannot run ({_INSTALL_HINT})")
    name, version = implementation(found)
    launcher_words = " ".join(w for w in (name, version, os.path.basename(found)) if w)
    return Availability(True, True, f"{compiler} + {launcher_words}")


def build_command(program: str, compiler: str = "mpicxx", strict: bool = False) -> List[str]:
    """The command line that builds ``program``.cpp into ``program`` (in its folder)."""
    # -fwrapv: signed overflow wraps, as in the reference (docs/language-notes.md).
    # *_SKIP_MPICXX: the programs use MPI's C API; the deprecated C++ bindings that Open MPI's
    # and MPICH's mpi.h would otherwise include fail -Wextra -Werror (-Wcast-function-type).
    flags = ["-fopenmp", "-O2", "-std=c++17", "-fwrapv", "-DOMPI_SKIP_MPICXX=1",
             "-DMPICH_SKIP_MPICXX=1"]
    flags += ["-Wall", "-Wextra", "-Werror"] if strict else []
    return [compiler, *flags, "-o", program, f"{program}.cpp"]


def compile_program(outdir, program: str, options: BackendOptions):
    preferred = options.value(MPI_COMPILER)
    argv = find(preferred)
    if not argv:
        raise BackendError(f"cannot build MPI: no MPI C++ compiler wrapper ('{preferred}') "
                           f"found ({_INSTALL_HINT})", code="E0502")
    command = argv + build_command(program, argv[0], strict=True)[1:]
    return compile_executable(command, outdir, program,
                              f"{os.path.basename(argv[0])} failed to build {program}.cpp")


def check_ranks(ranks) -> int:
    """``ranks`` as a number of processes, or a ``UsageError`` saying what is wrong."""
    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise UsageError("the number of MPI processes (--np) must be a positive integer, "
                         f"got {ranks!r}")
    return ranks


def launcher(ranks: Optional[int] = None,
             options: Optional[BackendOptions] = None) -> List[str]:
    """The command prefix that starts a program on ``ranks`` processes (default
    ``DEFAULT_RANKS``) of this machine: ``mpirun -np N ...``, from beside the compiler wrapper
    that ``options`` name (the program's MPI implementation); bare ``mpirun`` if none is found."""
    ranks = DEFAULT_RANKS if ranks is None else check_ranks(ranks)
    wrapper = find(options.value(MPI_COMPILER) if options else None)
    found = find_launcher(wrapper[0] if wrapper else None)
    name, version = implementation(found) if found else ("", "")
    command = [found or _LAUNCHERS[0], "-np", str(ranks)]
    if name != "Open MPI":
        return command
    # More ranks than cores is how the tests run (3 ranks on 2 cores); Open MPI refuses that
    # unless told, and refuses root unless told.
    command.append("--oversubscribe")
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    # No binding, so oversubscribed ranks are not pinned to one core; ob1 over shared memory
    # skips probing UCX and networks, which halves start-up here (0.5 s -> 0.25 s, 3 ranks).
    # Open MPI 5 renamed the shared-memory btl "vader" to "sm" and dropped -q (no "process
    # exited non-zero" banner after the program's own message).
    before_5 = version.split(".")[0] in ("1", "2", "3", "4")
    command += ["-q"] if before_5 else []
    command += ["--bind-to", "none", "--mca", "pml", "ob1",
                "--mca", "btl", "self," + ("vader" if before_5 else "sm")]
    if "OMP_NUM_THREADS" not in os.environ:
        # The programs are OpenMP inside each rank: share the cores out among the ranks
        # rather than let every rank start a thread per core and spin against the others.
        threads = max(1, len(os.sched_getaffinity(0)) // ranks)
        command += ["-x", f"OMP_NUM_THREADS={threads}"]
    return command
