"""CLI fuzzer: any command line drawn from the real option names, with mutated values, random
graph-file contents, damaged .sg headers, MPI launch options (--np, hostfiles, launchers) and
cache directories that cannot be used, ends with status 0, 1 or 2, no traceback and a short
message.

Profiles (tests/conftest.py): ``ci`` (default, about a minute for this file) and ``long``
(``pytest tests/fuzz --hypothesis-profile=long``). Everything runs in-process through
``starc.cli.main`` (output read with capfd, which also sees the generated programs it
runs), inside a fresh temporary directory, with STARC_MAX_MEMORY keeping every
accepted graph small.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from starc.cli import main

pytestmark = pytest.mark.fuzz

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = [str(ROOT / "dsl" / name) for name in ("sssp.sp", "bfs.sp", "pr.sp", "cc.sp")]
# The profile's example count for each test, so ``long`` scales them all.
SOME = settings(max_examples=max(10, settings.default.max_examples),
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture],
                deadline=None)
# For command lines that start MPI ranks or build programs: a quarter as many.
FEWER = settings(SOME, max_examples=max(10, settings.default.max_examples // 4))

# -- values --------------------------------------------------------------------------------

NUMBERS = st.sampled_from(["0", "1", "-1", "2", "3", "7", "100", "2147483647", "2147483648",
                           "99999999999", "1e400", "nan", "inf", "-inf", "0.5", "1e-3", "",
                           " ", "0x10", "1_000", "٣", "--", "-", "=", "0,1", "0,,1", "a"])
WORDS = st.sampled_from(["sm_75", "sm_90a", "compute_80", "bogus", "opencl", "reference",
                         "cuda", "sycl", "code", "ir", "ast", "dsl", "plan", "no-unused",
                         "error", "no-bogus", "Compute_SSSP", "Nope", "g++", "cpu", "gpu"])
VALUE = st.one_of(NUMBERS, WORDS, st.text(max_size=8))

# Options of each command, from the real parsers, plus program parameters and misspellings.
COMMON = ["-b", "--backend", "--function", "--block-size", "--gpu-arch", "--sycl-compiler",
          "--openacc-target", "-W", "--traceback"]
OPTIONS = {
    "compile": COMMON + ["-o", "--output", "--emit"],
    "check": ["-W", "--traceback"],
    "run": COMMON + ["--graph", "--undirected", "--out", "--time", "--no-cache",
                     "--max-vertices", "--src", "--beta", "--delta", "--maxIter",
                     "--sourceSet", "--s", "--d", "--foo", "--gra", "--src=0", "--",
                     "--cache", "--np", "--np", "--oversubscribe", "--hostfile", "--launcher"],
    "graph info": ["--undirected", "--max-vertices", "--undir", "-o"],
    "graph convert": ["--undirected", "--max-vertices"],
    "graph gen rmat": ["--scale", "--edge-factor", "-a", "-b", "-c", "--seed", "--weights",
                       "-o", "--sc"],
    "graph gen uniform": ["--nodes", "--degree", "--seed", "--weights", "-o"],
    "graph gen grid": ["--rows", "--cols", "--seed", "--weights", "-o"],
}
FLAGS = {"--traceback", "--undirected", "--time", "--no-cache", "--weights", "--", "--cache",
         "--oversubscribe"}
# --np: typos that would flood the machine among them (issue 34)
RANKS = st.one_of(NUMBERS, st.sampled_from(["1", "2", "3", "4", "100000", "12"]))
# launchers: not found, badly quoted, empty, one that fails without a word, one that does
# nothing (every other launcher starts ranks for real, which the MPI tests do)
LAUNCHERS = st.sampled_from(["srun -n 4", "no-such-launcher", "'unbalanced", "", " ", "false",
                             "true"])
# STARC_CACHE_DIR: None keeps the session's; the rest cannot be made or written
CACHE_DIRS = st.sampled_from([None, None, None, "/proc/nope", "file.txt", "file.txt/below"])

GRAPH_LINES = st.one_of(
    st.tuples(st.integers(-2, 12), st.integers(-2, 12)).map(lambda t: f"{t[0]} {t[1]}"),
    st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(-5, 20)).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(st.integers(0, 12), VALUE, VALUE).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.sampled_from(["# comment", "% comment", "", "   ", "0 99999999999", "0 2000000000 1",
                     "%%MatrixMarket matrix coordinate pattern general",
                     "%%MatrixMarket matrix coordinate integer symmetric", "3 3 2", "1 2",
                     "4294967296 1", "1 2 3 4", "\x00\x01", "é ü"]),
    st.text(max_size=12))
GRAPH_TEXT = st.lists(GRAPH_LINES, max_size=12).map("\n".join)


def sg_damage():
    """How g.sg is damaged: None (a good file), a header or payload byte flipped, or cut."""
    return st.one_of(st.none(), st.tuples(st.integers(0, 63), st.integers(1, 255)),
                     st.tuples(st.integers(64, 200), st.integers(1, 255)),
                     st.integers(0, 150).map(lambda size: ("cut", size)))


def damaged_sg(damage) -> bytes:
    """A small weighted graph's .sg bytes with ``damage`` applied."""
    raw = bytearray(GOOD_SG)
    if damage is None:
        return bytes(raw)
    where, value = damage
    if where == "cut":
        return bytes(raw[:value])
    raw[where % len(raw)] ^= value
    return bytes(raw)


def _good_sg() -> bytes:
    from starc.graphs import load_graph
    from starc.graphs.binary import save_sg
    with tempfile.TemporaryDirectory() as tmp:
        text, binary = os.path.join(tmp, "g.el"), os.path.join(tmp, "g.sg")
        with open(text, "w") as handle:
            handle.write("0 1 4\n1 2 1\n2 0 7\n3 3 2\n")
        save_sg(load_graph(text), binary)
        with open(binary, "rb") as handle:
            return handle.read()


GOOD_SG = _good_sg()


def paths(names, output=False):
    """A path argument: one of the files prepared in the directory, or a bad one. Never a
    device as an output: a regression would replace it for the whole machine."""
    return st.sampled_from(names + ["missing.el", "dir", "dir/new.el", "file.txt/x.el", "",
                                    "-"] + ([] if output else ["/dev/zero"]))


@st.composite
def command_lines(draw, command: str):
    argv = command.split()
    if command in ("compile", "check", "run"):
        # file.txt holds "x": not a program (random programs are the parser fuzzer's job).
        argv.append(draw(st.sampled_from(PROGRAMS + ["missing.sp", "dir", "file.txt"])))
    elif command == "graph info":
        argv.append(draw(paths(["g.el", "g.mtx", "g.sg"])))
    elif command == "graph convert":
        argv += [draw(paths(["g.el", "g.mtx", "g.sg"])),
                 draw(paths(["out.el", "out.mtx", "out.npz"], output=True))]
    for _ in range(draw(st.integers(0, 7))):
        option = draw(st.sampled_from(OPTIONS[command]))
        argv.append(option)
        if option in FLAGS:
            continue
        if option == "--graph":
            argv.append(draw(paths(["g.el", "g.mtx", "g.sg"])))
        elif option == "--np":
            argv.append(draw(RANKS))
        elif option == "--hostfile":
            argv.append(draw(paths(["hosts", "g.el"])))
        elif option == "--launcher":
            argv.append(draw(LAUNCHERS))
        elif option in ("-o", "--output", "--out"):
            argv.append(draw(paths(["g.el", "out.el", "outdir"], output=True)))
        elif option in ("-b", "--backend") and command != "graph gen rmat":
            argv.append(draw(st.sampled_from(["reference", "reference", "opencl", "cuda",
                                              "sycl", "mpi", "none"])))
        elif draw(st.booleans()):
            argv.append(draw(VALUE))
    if draw(st.booleans()) and command.startswith(("compile", "run")):
        # Keep the slow device backends out of most runs: the reference runs in-process.
        argv += ["-b", "reference"] if command == "run" else ["--emit", "plan"]
    return argv


@st.composite
def launch_lines(draw):
    """Well-formed command lines, so that every draw reaches what it mutates: a g.sg
    (damaged or not) read by starc and by a generated program, --np and the other launch
    options of the mpi backend, the graph cache."""
    graph = draw(st.sampled_from(["g.sg", "g.sg", "g.el"]))
    cache = ["--cache"] if draw(st.booleans()) else []
    if draw(st.integers(0, 4)) == 0:
        return ["graph", "info", graph, *cache]
    backend = draw(st.sampled_from(["reference", "mpi", "mpi", "opencl"]))
    argv = ["run", PROGRAMS[0], "-b", backend, "--graph", graph, "--src", "0", *cache]
    if draw(st.integers(0, 3)):                # mostly the mpi backend's; now and then not
        if draw(st.booleans()):
            argv += ["--np", draw(RANKS)]
        if draw(st.booleans()):
            argv.append("--oversubscribe")
        if draw(st.integers(0, 3)) == 0:
            argv += ["--hostfile", draw(paths(["hosts"]))]
        if draw(st.integers(0, 3)) == 0:
            argv += ["--launcher", draw(LAUNCHERS)]
    return argv


@contextlib.contextmanager
def sandbox(graph_text: str, damage=None, cache_dir=None):
    """A fresh directory with the files the paths above name (g.sg damaged as ``damage``
    says); STARC_MAX_MEMORY set low, STARC_CACHE_DIR set to ``cache_dir`` when given."""
    old_cwd = os.getcwd()
    old = {name: os.environ.get(name) for name in ("STARC_MAX_MEMORY", "STARC_CACHE_DIR")}
    with tempfile.TemporaryDirectory(prefix="starc-fuzz-") as tmp:
        base = pathlib.Path(tmp)
        (base / "g.el").write_text(graph_text, encoding="utf-8", errors="surrogatepass")
        (base / "g.mtx").write_text(graph_text, encoding="utf-8", errors="surrogatepass")
        (base / "g.sg").write_bytes(damaged_sg(damage))
        (base / "hosts").write_text("localhost slots=2\n")
        (base / "dir").mkdir()
        (base / "file.txt").write_text("x")
        os.chdir(base)
        os.environ["STARC_MAX_MEMORY"] = "64M"
        if cache_dir is not None:
            os.environ["STARC_CACHE_DIR"] = cache_dir
        try:
            yield base
        finally:
            os.chdir(old_cwd)
            for name, value in old.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def run_main(capfd, argv):
    """main(argv) with its output; capfd also sees the generated programs' (subprocesses)."""
    capfd.readouterr()
    status = main(argv)
    out, err = capfd.readouterr()
    return status, out, err


def check(argv, status, err):
    where = f"argv={argv!r}\nstderr:\n{err}"
    assert status in (0, 1, 2), where
    assert "Traceback" not in err and "internal" not in err, where
    lines = [line for line in err.splitlines() if not line.startswith("starc-time ")]
    assert len(lines) <= 5, where
    if status:
        assert lines, where           # a failure always says why


def valid_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8")


@SOME
@given(command=st.sampled_from(["graph info", "graph convert"]), data=st.data(),
       graph=GRAPH_TEXT, damage=sg_damage(), cache_dir=CACHE_DIRS)
def test_graph_commands_on_random_files(capfd, command, data, graph, damage, cache_dir):
    with sandbox(valid_text(graph), damage, cache_dir):
        argv = data.draw(command_lines(command))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)


@SOME
@given(command=st.sampled_from(["graph gen rmat", "graph gen uniform", "graph gen grid"]),
       data=st.data())
def test_graph_gen_with_mutated_values(capfd, command, data):
    with sandbox(""):
        argv = data.draw(command_lines(command))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)


@SOME
@given(data=st.data(), graph=GRAPH_TEXT, damage=sg_damage(), cache_dir=CACHE_DIRS)
def test_run_with_mutated_parameters_and_graphs(capfd, data, graph, damage, cache_dir):
    with sandbox(valid_text(graph), damage, cache_dir):
        argv = data.draw(command_lines("run"))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)


@FEWER
@given(data=st.data(), graph=GRAPH_TEXT, damage=sg_damage(), cache_dir=CACHE_DIRS)
def test_launch_options_sg_damage_and_cache_dirs(capfd, data, graph, damage, cache_dir):
    with sandbox(valid_text(graph), damage, cache_dir):
        argv = data.draw(launch_lines())
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)


@SOME
@given(command=st.sampled_from(["compile", "check"]), data=st.data())
def test_compile_and_check_with_mutated_options(capfd, command, data):
    with sandbox(""):
        argv = data.draw(command_lines(command))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)
