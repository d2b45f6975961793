"""The MPI toolchain: the C++ compiler wrapper (mpicxx, ``--mpi-compiler`` overrides), the
command that builds a generated ``.cpp`` file, and the launcher (mpirun/mpiexec) that starts it
on N ranks.

The launcher is looked for next to the compiler wrapper first, so that a program is started by
the MPI implementation it was built with (a machine may have both Open MPI and MPICH on PATH).
Options that only Open MPI's mpirun knows (``--oversubscribe``, ``--mca ...``) are given only
when the launcher says it is Open MPI's; any other launcher gets ``-np N`` (and the hostfile)
alone. Ranks start within the slots (this machine's cores, or a hostfile's) unless the user
says to oversubscribe, or under a launcher the user names instead of mpirun (Slurm's srun).
"""

from __future__ import annotations

import functools
import os
import pathlib
import re
import shlex
import subprocess
from typing import List, Optional, Tuple

from starc import toolchains
from starc.backends.base import Availability, BackendError, BackendOptions, Launch
from starc.backends.common.program import RuntimeEntries, compile_executable
from starc.backends.mpi import MPI_COMPILER
from starc.errors import UsageError

#: The runtime entry points its programs call (compiled once: runtime_object.py).
ENTRIES = RuntimeEntries(("starc_mpi.hpp", "starc_mpi_superstep.hpp"),
                         (pathlib.Path(__file__).resolve().parent / "runtime",))

__all__ = ["DEFAULT_RANKS", "LAUNCHER_VARIABLE", "find", "find_launcher", "implementation",
           "availability", "build_command", "build_lines", "compile_program", "check_ranks",
           "machine_slots", "hostfile_slots", "override", "ranks", "launcher"]

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
    # -fwrapv: signed overflow wraps, as in the reference (LANGUAGE.md §2).
    # *_SKIP_MPICXX: the programs use MPI's C API; the deprecated C++ bindings that Open MPI's
    # and MPICH's mpi.h would otherwise include fail -Wextra -Werror (-Wcast-function-type).
    flags = ["-fopenmp", "-O2", "-std=c++17", "-fwrapv", "-DOMPI_SKIP_MPICXX=1",
             "-DMPICH_SKIP_MPICXX=1"]
    # -Wno-overflow: a constant expression that overflows (`int x = 2147483647 + 1`) wraps as
    # the language says (-fwrapv); the warning would reject a valid program
    flags += ["-Wall", "-Wextra", "-Werror", "-Wno-overflow"] if strict else []
    return [compiler, *flags, "-o", program, f"{program}.cpp"]


def build_lines(program: str, options: BackendOptions) -> List[str]:
    """The build command a generated program's header shows (its build hint)."""
    return [" ".join(build_command(program))]


def compile_program(outdir, program: str, options: BackendOptions):
    preferred = options.value(MPI_COMPILER)
    argv = find(preferred)
    if not argv:
        raise BackendError(f"cannot build MPI: no MPI C++ compiler wrapper ('{preferred}') "
                           f"found ({_INSTALL_HINT})", code="E0502")
    command = argv + build_command(program, argv[0], strict=True)[1:]
    return compile_executable(command, outdir, program,
                              f"{os.path.basename(argv[0])} failed to build {program}.cpp",
                              entries=ENTRIES)


def check_ranks(ranks) -> int:
    """``ranks`` as a number of processes, or a ``UsageError`` saying what is wrong."""
    if isinstance(ranks, bool) or not isinstance(ranks, int) or ranks < 1:
        raise UsageError("the number of MPI processes (--np) must be a positive integer, "
                         f"got {ranks!r}")
    return ranks


# -- where ranks may start: this machine's slots, a hostfile's, or a launcher the user names --

#: the environment variable that names a launcher for every MPI run (``--launcher`` wins)
LAUNCHER_VARIABLE = "STARC_MPI_LAUNCHER"

#: a hostfile larger than this is not a list of hosts (``/dev/zero``, a graph given by mistake)
_MAX_HOSTFILE_BYTES = 1 << 20


def machine_slots() -> Tuple[int, str]:
    """(slots, what they are) on this machine: the cores among the CPUs this process may
    run on, which is how Open MPI counts slots when no hostfile or scheduler says otherwise
    (cores, not hardware threads); the CPUs themselves where the topology cannot be read."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in cpus:
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(topology + "physical_package_id") as package, \
                    open(topology + "core_id") as core:
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            return len(cpus), f"{len(cpus)} CPUs"
    return len(cores), f"{len(cores)} cores"


def hostfile_slots(path: str) -> Optional[int]:
    """The slots ``path`` offers in all: the sum of its hosts' ``slots=N`` (Open MPI) or
    ``host:N`` (MPICH), or None when a host gives no count (mpirun then counts that host's
    cores, which only it can see). A file that cannot be read, names no host or gives a
    count that is not a whole number is a UsageError."""
    total: Optional[int] = 0
    hosts = 0
    for number, words in _hostfile_entries(path):
        hosts += 1
        counts = [w[len("slots="):] for w in words[1:] if w.startswith("slots=")]
        if ":" in words[0]:
            counts.append(words[0].rsplit(":", 1)[1])
        if not counts:
            total = None            # this host's cores: mpirun counts them
            continue
        if not counts[0].isdecimal() or int(counts[0]) < 1:
            raise UsageError(f"{path}:{number}: the slots of host '{words[0]}' must be a "
                             f"whole number, 1 or more, got '{counts[0]}'")
        total = None if total is None else total + int(counts[0])
    if not hosts:
        raise UsageError(f"--hostfile '{path}' names no host (one a line: 'host slots=N')")
    return total


def _hostfile_entries(path: str) -> List[Tuple[int, List[str]]]:
    """(line number, words) of each host line of ``path``, comments dropped; a UsageError
    when it cannot be read or is too large to be a hostfile."""
    where = f"--hostfile '{path}'"
    if os.path.isdir(path):
        raise UsageError(f"{where}: it is a directory")
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_HOSTFILE_BYTES + 1)
    except OSError as error:
        raise UsageError(f"{where}: {error.strerror or error}") from None
    if len(data) > _MAX_HOSTFILE_BYTES:
        raise UsageError(f"{where}: larger than {_MAX_HOSTFILE_BYTES >> 20} MiB; is it a "
                         "hostfile ('host slots=N' lines)?")
    lines = enumerate(data.decode("utf-8", "replace").splitlines(), 1)
    return [(number, words) for number, words in
            ((number, line.split("#", 1)[0].split()) for number, line in lines) if words]


def _check_hostfile_form(path: str, implementation_name: str) -> None:
    """A UsageError at the first line of ``path`` in the other implementation's form: Open
    MPI's mpirun reads 'host slots=N' and takes 'host:N' for a host name (then ssh fails to
    resolve it); MPICH's Hydra reads 'host:N'."""
    for number, words in _hostfile_entries(path):
        slots = [w[len("slots="):] for w in words[1:] if w.startswith("slots=")]
        if implementation_name == "Open MPI" and ":" in words[0]:
            host, count = words[0].rsplit(":", 1)
            raise UsageError(f"{path}:{number}: '{words[0]}' is MPICH's form; Open MPI's mpirun "
                             f"reads '{host} slots={count}'")
        if implementation_name == "MPICH" and slots:
            raise UsageError(f"{path}:{number}: '{' '.join(words)}' is Open MPI's form; "
                             f"MPICH's mpiexec reads '{words[0]}:{slots[0]}'")


def override(launch: Launch) -> Optional[List[str]]:
    """The launcher that replaces mpirun, as argv: ``--launcher`` else $STARC_MPI_LAUNCHER;
    None when neither is given. It decides the ranks and hosts itself, so asking for them
    too (--np, --hostfile, --oversubscribe) is a UsageError, as is a command not found."""
    if launch.command is not None:
        text, source = launch.command, "--launcher"
    elif os.environ.get(LAUNCHER_VARIABLE):
        text, source = os.environ[LAUNCHER_VARIABLE], LAUNCHER_VARIABLE
    else:
        return None
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise UsageError(f"{source} '{text}': {error}") from None
    if not words:
        raise UsageError(f"{source} is empty: give the command that starts the ranks, "
                         "e.g. 'srun -n 64'")
    if toolchains.find_program(words[0]) is None:
        raise UsageError(f"{source} '{text}': '{words[0]}' is not found on PATH")
    clashes = [flag for flag in launch.given() if flag != "--launcher"]
    if clashes:
        raise UsageError(f"{clashes[0]} is for mpirun, and {source} ('{text}') replaces it: "
                         "give the ranks and hosts in that command")
    return words


def ranks(launch: Optional[Launch] = None, options: Optional[BackendOptions] = None
          ) -> Optional[int]:
    """How many processes ``launcher`` starts: ``launch.ranks``, else ``DEFAULT_RANKS`` (fewer
    where there are fewer slots); None where a launcher the user named decides. More than
    the slots (this machine's cores, or the hostfile's) is a UsageError unless
    ``launch.oversubscribe``: a typo such as --np 100000 must not flood the machine."""
    launch = launch or Launch()
    if override(launch) is not None:
        return None
    if launch.ranks is not None:
        check_ranks(launch.ranks)
    if launch.hostfile is not None:
        slots = hostfile_slots(launch.hostfile)
        where = f"the {slots} slots of --hostfile '{launch.hostfile}'"
    else:
        slots, what = machine_slots()
        where = f"the {slots} slots of this machine ({what})"
    count = launch.ranks
    if count is None:
        count = DEFAULT_RANKS if slots is None else min(DEFAULT_RANKS, slots)
    if slots is not None and count > slots and not launch.oversubscribe:
        more = "" if launch.hostfile is not None else ", or --hostfile FILE to use more machines"
        raise UsageError(f"--np {count} is more MPI processes than {where}; add "
                         f"--oversubscribe to start them anyway{more}")
    return count


def launcher(launch: Optional[Launch] = None,
             options: Optional[BackendOptions] = None) -> List[str]:
    """The command prefix that starts a program as ``launch`` asks: the launcher the user
    named (``--launcher``, $STARC_MPI_LAUNCHER) as it is, else ``mpirun -np N ...`` on this
    machine or the hostfile's hosts, from beside the compiler wrapper that ``options`` name
    (the program's MPI implementation); bare ``mpirun`` if none is found."""
    launch = launch or Launch()
    named = override(launch)
    if named is not None:
        return named
    count = ranks(launch, options)
    wrapper = find(options.value(MPI_COMPILER) if options else None)
    found = find_launcher(wrapper[0] if wrapper else None)
    name, version = implementation(found) if found else ("", "")
    command = [found or _LAUNCHERS[0], "-np", str(count)]
    if launch.hostfile is not None:
        _check_hostfile_form(launch.hostfile, name)
        # Hydra (MPICH) spells it -f; Open MPI and the rest --hostfile
        command += ["-f" if name == "MPICH" else "--hostfile", launch.hostfile]
    if name != "Open MPI":
        return command
    # Open MPI refuses more ranks than slots unless told: only when the user said so.
    command += ["--oversubscribe"] if launch.oversubscribe else []
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    # Open MPI 5 renamed the shared-memory btl "vader" to "sm" and dropped -q (no "process
    # exited non-zero" banner after the program's own message).
    before_5 = version.split(".")[0] in ("1", "2", "3", "4")
    command += ["-q"] if before_5 else []
    # No binding: a rank's OpenMP threads would otherwise share the one core it is bound to.
    command += ["--bind-to", "none"]
    if launch.hostfile is not None:
        # Other hosts: Open MPI picks the network. OMP_NUM_THREADS, when set, goes with the
        # ranks (only local ranks inherit mpirun's environment).
        return command + (["-x", "OMP_NUM_THREADS"] if "OMP_NUM_THREADS" in os.environ else [])
    # One machine: ob1 over shared memory skips probing UCX and networks, which halves
    # start-up here (0.5 s -> 0.25 s, 3 ranks).
    command += ["--mca", "pml", "ob1", "--mca", "btl", "self," + ("vader" if before_5 else "sm")]
    if "OMP_NUM_THREADS" not in os.environ:
        # The programs are OpenMP inside each rank: share the cores out among the ranks
        # rather than let every rank start a thread per core and spin against the others.
        threads = max(1, len(os.sched_getaffinity(0)) // count)
        command += ["-x", f"OMP_NUM_THREADS={threads}"]
    return command
