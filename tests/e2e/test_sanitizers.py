"""AddressSanitizer/UBSan tier: the generated C++ and the shared runtime, built with the
sanitizers, run the dsl programs on every edge-case graph and on malformed inputs; every
program on at least one backend and every backend on several programs (SANITIZED_CASES: the
product is covered, not run in full, for CI time).

The SYCL output is the C++ program that runs on this machine (through the test-only host
implementation, see tests/support/sycl_host); the runtime it includes (graph reader, command
line, results) is the one CUDA uses too, so this tier covers both. The OpenACC output runs
here as it is (g++ -fopenacc executes its compute regions on the host). The MPI output is
built by mpicxx and runs on two ranks under mpirun, so the distributed reader, the ghost
tables and the superstep exchanges are checked too.
"""

from __future__ import annotations

import functools
import pathlib
import shutil
import subprocess

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.openacc import toolchain as openacc_toolchain
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file
from starc.graphs import load_graph
from starc.results import compare_results, parse_results
from starc.runcontract import DataError, UsageError

from e2e_cases import PROGRAMS, write_graph_files

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEST_DOUBLE = ROOT / "tests" / "support" / "sycl_host"
# -O0 (CI time): a sanitized build at -O0 takes about a third of -O1's compiler CPU (mpicxx
# bfs: 22 s against 58 s, g++ SYCL bfs 9 s against 24 s; this file's CPU 123 s against 333 s),
# and the checks are the same or more: ASan and UBSan instrument
# every access and operation the source makes, which -O0 keeps (-O1 may fold some away);
# only UBSan's object-size check knows fewer sizes without the optimiser, and ASan's bounds
# checks cover those accesses.
SANITIZE = ["-std=c++17", "-O0", "-g", "-fsanitize=address,undefined",
            "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"]
REPORTS = ("AddressSanitizer", "LeakSanitizer", "runtime error:")

pytestmark = [pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")]
#: the compiler flags besides SANITIZE each backend's program needs here
#: (OpenACC: signed overflow wraps under -fwrapv, as the program is built; GCC cannot place
#: UBSan's overflow check data in a `routine seq` function and refuses to compile it; the
#: sanitizers watch the host, so no region is compiled for a GPU even where g++ can offload.)
BACKEND_FLAGS = {"sycl": ["-fopenmp", f"-I{TEST_DOUBLE}"],
                 "openacc": ["-fopenacc", *openacc_toolchain.TARGET_FLAGS["g++"]["host"],
                             "-fwrapv", "-fno-sanitize=signed-integer-overflow"],
                 "mpi": ["-fopenmp", "-fwrapv", "-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1"]}
MPI_RANKS = 2


def _compiler(backend: str) -> str:
    if backend != "mpi":
        return "g++"
    from starc.backends.mpi import toolchain
    return toolchain.find()[0]


def _launcher(backend: str) -> list:
    """The prefix that starts the program: mpirun on MPI_RANKS ranks for MPI."""
    if backend != "mpi":
        return []
    from starc.backends.base import Launch
    from starc.backends.mpi import toolchain
    return toolchain.launcher(Launch(MPI_RANKS))


def _build(name: str, outdir: pathlib.Path, backend: str = "sycl") -> pathlib.Path:
    sink = DiagnosticSink()
    comp = compile_file(str(PROGRAMS[name].path), sink, backend=backend,
                        options=BackendOptions())
    assert comp is not None and comp.ok, [d.header() for d in sink.diagnostics]
    comp.generated.write(outdir)
    exe = outdir / name
    proc = subprocess.run([_compiler(backend), *SANITIZE, *BACKEND_FLAGS[backend], f"-I{outdir}", "-o", str(exe),
                           str(outdir / comp.generated.main)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return exe


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory):
    """name -> sanitized executable, each built on first use (so parallel test workers
    build only the programs their tests need)."""
    root = tmp_path_factory.mktemp("asan")

    class Builds(dict):
        def __missing__(self, key):   # ("bfs", "openacc"), or "bfs" for ("bfs", "sycl")
            if isinstance(key, str):
                return self[key, "sycl"]
            name, backend = key
            self[key] = _build(name, root / backend / name, backend)
            return self[key]
    return Builds()


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("asan-graphs"))


def _run(exe, *args, backend: str = "sycl"):
    launcher = _launcher(backend)
    # Open MPI's dynamically loaded components leak at MPI_Finalize, and once unloaded their
    # frames cannot be named for a suppression: the MPI tier checks memory errors and UB, not
    # leaks (the runtime holds its memory in std::vector).
    leaks = "0" if launcher else "1"
    dirs = [str(pathlib.Path(launcher[0]).parent)] if launcher else []
    path = ":".join(dirs + ["/usr/bin", "/bin"])
    proc = subprocess.run([*launcher, str(exe), *map(str, args)], capture_output=True,
                          text=True, timeout=300,
                          env={"OMP_NUM_THREADS": "2", "PATH": path, "TMPDIR": str(exe.parent),
                               "ASAN_OPTIONS": f"detect_leaks={leaks}"})
    assert not any(r in proc.stderr for r in REPORTS), proc.stderr[-3000:]
    return proc


@functools.lru_cache(maxsize=None)
def _reference(name: str):
    return starc.compile(str(PROGRAMS[name].path), "reference")


#: The programs x backends product is covered, not run in full (CI time: a sanitized build
#: at -O1 was 15-30 s, an MPI one with its launches 45-65 s): every program is sanitized on at least
#: one backend and every backend runs several programs, each on every graph. bfs is built
#: for SYCL and MPI anyway, sssp for SYCL (the reader and command-line tests below); bc, the
#: program with the most phases, runs on OpenACC and MPI.
SANITIZED_CASES = {"sycl": ("sssp", "bfs", "tc", "pr"),
                   "openacc": ("sswp", "cc", "kcore", "bc"),
                   "mpi": ("bfs", "bc")}
assert {name for names in SANITIZED_CASES.values() for name in names} == set(PROGRAMS)


@pytest.mark.parametrize("name, backend", [
    pytest.param(name, backend, marks=getattr(pytest.mark, backend), id=f"{name}-{backend}")
    for backend, names in SANITIZED_CASES.items() for name in names])
def test_sanitized_programs_match_the_reference_on_every_graph(name, backend, sanitized,
                                                               graph_files):
    case = PROGRAMS[name]
    for graph, path in graph_files.items():
        params = case.params_for(load_graph(str(path)).num_nodes)
        flags = [f"--{k}={v}" for k, v in params.items()]
        flags += ["--undirected"] if case.undirected else []
        proc = _run(sanitized[name, backend], path, *flags, backend=backend)
        assert proc.returncode == 0, (graph, proc.stderr[-2000:])
        expected = _reference(name).run(path, undirected=case.undirected, **params)
        problems = compare_results(expected, parse_results(proc.stdout), rtol=case.rtol,
                                   atol=case.atol)
        assert not problems, (graph, problems)


@pytest.mark.parametrize("backend", [pytest.param("sycl", marks=pytest.mark.sycl),
                                     pytest.param("mpi", marks=pytest.mark.mpi)])
@pytest.mark.parametrize("content, status, message", [
    ("0 1 3\n1 x 4\n", 1, ":2: target id 'x' is not an integer"),
    # control bytes shown as Python's repr shows them (a NUL cut the message short)
    ("0 1\n\x00\x01 4\n", 1, ":2: source id '\\x00\\x01' is not an integer"),
    ("0 1 3\n1 2\n", 1, ":2:"),                      # weights on some lines only
    ("0 -1 3\n", 1, ":1:"),                         # negative id
    ("0 1 2 3 4\n", 1, ":1:"),                      # too many columns
    ("", 0, ""),                                    # empty file: zero vertices
])
def test_sanitized_reader_on_malformed_graphs(content, status, message, backend, sanitized,
                                              tmp_path):
    path = tmp_path / "g.el"
    path.write_text(content)
    # bfs needs no weights; an empty graph has no vertex 0, which is a usage error (2)
    proc = _run(sanitized["bfs", backend], path, "--src", "0", backend=backend)
    expected = 2 if content == "" else status
    assert proc.returncode == expected, proc.stderr
    assert message in proc.stderr
    if message:     # every rank stops; one of them says why
        assert proc.stderr.count(f"{path}{message}" if message.startswith(":") else message) \
            == 1, proc.stderr
    if content == "":
        assert "has no vertices, so no node id is valid" in proc.stderr
        assert "0..-1" not in proc.stderr


@pytest.mark.sycl
@pytest.mark.parametrize("content, src, error, status", [
    ("0 1\n1 2\n", "0", DataError, 1),     # no weights
    # no weights and no vertex 0: the option is checked first, by both
    ("", "0", UsageError, 2),
    ("0 1 3\n1 2 4\n", "7", UsageError, 2),   # out of range
    ("0 1 3\n1 2 4\n", "x", UsageError, 2),   # no id
])
def test_bad_graphs_and_options_get_the_reference_s_words(content, src, error, status,
                                                         sanitized, tmp_path):
    path = tmp_path / "plain.el"
    path.write_text(content)
    with pytest.raises(error) as raised:
        _reference("sssp").run(path, src=src)
    proc = _run(sanitized["sssp"], path, "--src", src)
    assert proc.returncode == status and str(raised.value) in proc.stderr, \
        (str(raised.value), proc.stderr)


@pytest.mark.sycl
@pytest.mark.parametrize("args, status, message", [
    (["--src", "x"], 2, "--src"),
    (["--src"], 2, "--src"),
    (["--src", "99"], 2, "--src"),
    ([], 2, "--src"),
    # An unwritable --out is a command-line error, found before the run (issue 13).
    (["--src", "0", "--out", "/nonexistent/dir/r.txt"], 2, "/nonexistent/dir/r.txt"),
])
def test_sanitized_command_line_errors(args, status, message, sanitized, graph_files):
    proc = _run(sanitized["sssp"], graph_files["rmat"], *args)
    assert proc.returncode == status, proc.stderr
    assert "error" in proc.stderr and message in proc.stderr
