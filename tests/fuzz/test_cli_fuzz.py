"""CLI fuzzer: any command line drawn from the real option names, with mutated values and
random graph-file contents, ends with status 0, 1 or 2, no traceback and a short message.

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
          "-W", "--traceback"]
OPTIONS = {
    "compile": COMMON + ["-o", "--output", "--emit"],
    "check": ["-W", "--traceback"],
    "run": COMMON + ["--graph", "--undirected", "--out", "--time", "--no-cache",
                     "--max-vertices", "--src", "--beta", "--delta", "--maxIter",
                     "--sourceSet", "--s", "--d", "--foo", "--gra", "--src=0", "--"],
    "graph info": ["--undirected", "--max-vertices", "--undir", "-o"],
    "graph convert": ["--undirected", "--max-vertices"],
    "graph gen rmat": ["--scale", "--edge-factor", "-a", "-b", "-c", "--seed", "--weights",
                       "-o", "--sc"],
    "graph gen uniform": ["--nodes", "--degree", "--seed", "--weights", "-o"],
    "graph gen grid": ["--rows", "--cols", "--seed", "--weights", "-o"],
}
FLAGS = {"--traceback", "--undirected", "--time", "--no-cache", "--weights", "--"}

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
        argv.append(draw(paths(["g.el", "g.mtx"])))
    elif command == "graph convert":
        argv += [draw(paths(["g.el", "g.mtx"])),
                 draw(paths(["out.el", "out.mtx", "out.npz"], output=True))]
    for _ in range(draw(st.integers(0, 7))):
        option = draw(st.sampled_from(OPTIONS[command]))
        argv.append(option)
        if option in FLAGS:
            continue
        if option == "--graph":
            argv.append(draw(paths(["g.el", "g.mtx"])))
        elif option in ("-o", "--output", "--out"):
            argv.append(draw(paths(["g.el", "out.el", "outdir"], output=True)))
        elif option in ("-b", "--backend") and command != "graph gen rmat":
            argv.append(draw(st.sampled_from(["reference", "reference", "opencl", "cuda",
                                              "sycl", "none"])))
        elif draw(st.booleans()):
            argv.append(draw(VALUE))
    if draw(st.booleans()) and command.startswith(("compile", "run")):
        # Keep the slow device backends out of most runs: the reference runs in-process.
        argv += ["-b", "reference"] if command == "run" else ["--emit", "plan"]
    return argv


@contextlib.contextmanager
def sandbox(graph_text: str):
    """A fresh directory with the files the paths above name; STARC_MAX_MEMORY set low."""
    old_cwd, old_memory = os.getcwd(), os.environ.get("STARC_MAX_MEMORY")
    with tempfile.TemporaryDirectory(prefix="starc-fuzz-") as tmp:
        base = pathlib.Path(tmp)
        (base / "g.el").write_text(graph_text, encoding="utf-8", errors="surrogatepass")
        (base / "g.mtx").write_text(graph_text, encoding="utf-8", errors="surrogatepass")
        (base / "dir").mkdir()
        (base / "file.txt").write_text("x")
        os.chdir(base)
        os.environ["STARC_MAX_MEMORY"] = "64M"
        try:
            yield base
        finally:
            os.chdir(old_cwd)
            if old_memory is None:
                os.environ.pop("STARC_MAX_MEMORY", None)
            else:
                os.environ["STARC_MAX_MEMORY"] = old_memory


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
       graph=GRAPH_TEXT)
def test_graph_commands_on_random_files(capfd, command, data, graph):
    with sandbox(valid_text(graph)):
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
@given(data=st.data(), graph=GRAPH_TEXT)
def test_run_with_mutated_parameters_and_graphs(capfd, data, graph):
    with sandbox(valid_text(graph)):
        argv = data.draw(command_lines("run"))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)


@SOME
@given(command=st.sampled_from(["compile", "check"]), data=st.data())
def test_compile_and_check_with_mutated_options(capfd, command, data):
    with sandbox(""):
        argv = data.draw(command_lines(command))
        status, _, err = run_main(capfd, argv)
    check(argv, status, err)
