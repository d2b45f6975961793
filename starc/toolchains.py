"""Finding compilers and devices, and running a compiler with its log captured."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from typing import List, Optional, Sequence, Tuple

__all__ = ["find_program", "find_command", "find_nvcc", "find_cxx", "find_sycl_compiler",
           "tool_version", "nvidia_gpus", "run_compiler"]

# Where CUDA installs nvcc when it is not on PATH.
_NVCC_FALLBACKS = ("/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc", "/opt/cuda/bin/nvcc")


def find_program(name: str, fallbacks: Sequence[str] = ()) -> Optional[str]:
    """The path of executable ``name`` on PATH, else the first executable fallback, else None."""
    found = shutil.which(name)
    if found:
        return found
    for candidate in fallbacks:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_command(command: str) -> List[str]:
    """``command`` (a program and its own arguments, quoted as in a shell: the value of an
    option such as ``--openacc-compiler``) as an argv prefix whose program is found, with the
    program's path; [] when it is not (or is no command line: an unclosed quote)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    found = find_program(words[0]) if words else None
    return [found, *words[1:]] if found else []


@functools.lru_cache(maxsize=None)
def find_nvcc() -> Optional[str]:
    """nvcc: ``$STARC_NVCC``, PATH, ``$CUDA_HOME/bin``, then the usual install folders."""
    explicit = os.environ.get("STARC_NVCC")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    fallbacks = list(_NVCC_FALLBACKS)
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(variable)
        if home:
            fallbacks.insert(0, os.path.join(home, "bin", "nvcc"))
    return find_program("nvcc", fallbacks)


@functools.lru_cache(maxsize=None)
def find_cxx() -> Optional[str]:
    """A C++17 host compiler: ``$CXX``, then g++, then clang++."""
    explicit = os.environ.get("CXX")
    if explicit:
        found = shutil.which(explicit)
        if found:
            return found
    return find_program("g++") or find_program("clang++")


# SYCL compilers in order of preference, as argv prefixes: AdaptiveCpp's acpp, Intel's icpx and
# the intel/llvm clang++ (a plain clang++ accepts -fsycl but often has no SYCL headers, so it
# is probed before use).
_SYCL_COMPILERS = (("acpp",), ("icpx", "-fsycl"), ("clang++", "-fsycl"))
_SYCL_PROBE = "#include <sycl/sycl.hpp>\nint main() { sycl::queue q; return 0; }\n"


@functools.lru_cache(maxsize=None)
def _compiles_sycl(argv: Tuple[str, ...]) -> bool:
    """Whether ``argv`` can compile a minimal SYCL 2020 translation unit (syntax only)."""
    with tempfile.TemporaryDirectory(prefix="starc-sycl-probe-") as tmp:
        source = os.path.join(tmp, "probe.cpp")
        with open(source, "w") as handle:
            handle.write(_SYCL_PROBE)
        try:
            proc = subprocess.run(list(argv) + ["-fsyntax-only", source], capture_output=True,
                                  text=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            return False
    return proc.returncode == 0


def _sycl_argv(command: str) -> Optional[Tuple[str, ...]]:
    """``command`` ("icpx", "/opt/bin/clang++ -fsycl", "acpp") as an argv prefix whose
    program exists; ``-fsycl`` is added for icpx and clang++ when missing."""
    words = shlex.split(command)
    if not words:
        return None
    path = find_program(words[0])
    if path is None:
        return None
    name = os.path.basename(words[0])
    flags = list(words[1:])
    if name.startswith(("icpx", "clang++", "dpcpp")) and "-fsycl" not in flags:
        flags.insert(0, "-fsycl")
    return (path, *flags)


@functools.lru_cache(maxsize=None)
def find_sycl_compiler(preferred: Optional[str] = None) -> Optional[Tuple[str, ...]]:
    """The SYCL compiler as an argv prefix (e.g. ``("/usr/bin/icpx", "-fsycl")``), or None.

    ``preferred`` (``--sycl-compiler``, else ``$STARC_SYCL_COMPILER``) names the command to
    use and is taken as given when it exists; otherwise ``acpp``, ``icpx -fsycl`` and
    ``clang++ -fsycl`` are tried in that order (clang++ only if it really compiles SYCL).
    """
    preferred = preferred or os.environ.get("STARC_SYCL_COMPILER")
    if preferred:
        return _sycl_argv(preferred)
    for candidate in _SYCL_COMPILERS:
        argv = _sycl_argv(" ".join(candidate))
        if argv is None:
            continue
        if candidate[0] == "clang++" and not _compiles_sycl(argv):
            continue
        return argv
    return None


@functools.lru_cache(maxsize=None)
def tool_version(path: str, flag: str = "--version") -> str:
    """The most telling line of ``path --version`` ("release 13.0, V13.0.88" for nvcc)."""
    try:
        proc = subprocess.run([path, flag], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    for line in lines:
        if "release" in line:  # nvcc: "Cuda compilation tools, release 13.0, V13.0.88"
            return line
    return lines[0] if lines else ""


@functools.lru_cache(maxsize=None)
def nvidia_gpus() -> Tuple[str, ...]:
    """The GPUs ``nvidia-smi -L`` lists (empty without a driver or a GPU)."""
    smi = find_program("nvidia-smi", ("/usr/bin/nvidia-smi", "/usr/local/bin/nvidia-smi"))
    if smi is None:
        return ()
    try:
        proc = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ()
    if proc.returncode != 0:
        return ()
    return tuple(line.strip() for line in proc.stdout.splitlines()
                 if line.strip().startswith("GPU"))


def run_compiler(argv: List[str], cwd=None, timeout: float = 900) -> Tuple[bool, str]:
    """Run a compiler command; returns (succeeded, the command line followed by its output).

    The compiler's stdout and stderr are both captured, never inherited: some compilers print
    warnings on stdout, which ``starc run`` reserves for the program's results. What a
    successful build printed (warnings) is passed on to starc's stderr; a failed build's log
    is the caller's to report."""
    command = " ".join(str(a) for a in argv)
    try:
        proc = subprocess.run([str(a) for a in argv], cwd=cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as error:
        return False, f"$ {command}\ncannot run {argv[0]}: {error}"
    except subprocess.TimeoutExpired:
        return False, f"$ {command}\ntimed out after {timeout:.0f} s"
    output = f"{proc.stdout}{proc.stderr}".rstrip()
    log = f"$ {command}\n{output}".rstrip()
    if proc.returncode == 0 and output:
        sys.stderr.write(log + "\n")      # looked up now: tests and callers redirect it
    return proc.returncode == 0, log
