"""Running with ranks from the command line and the Python API: ``--np`` and ``ranks=`` are
checked before anything is compiled, and only the mpi backend takes them."""

from __future__ import annotations

import pathlib
import shlex

import pytest

import starc
from starc.backends.base import BuiltProgram
from starc.backends.mpi import toolchain
from starc.cli import main
from starc.errors import UsageError

ROOT = pathlib.Path(__file__).resolve().parents[3]
SSSP = str(ROOT / "dsl" / "sssp.sp")


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1 4\n1 2 1\n")
    return str(path)


@pytest.mark.parametrize("value, shown", [("0", "0"), ("x", "'x'"), ("-1", "'-1'"),
                                          ("2.5", "'2.5'"), ("", "''")])
def test_np_must_be_a_positive_integer(value, shown, graph, capsys):
    status = main(["run", SSSP, "-b", "mpi", "--np", value, "--graph", graph, "--src", "0"])
    err = capsys.readouterr().err
    assert status == 2
    assert err == ("starc: error[E0601]: the number of MPI processes (--np) must be a "
                   f"positive integer, got {shown}\n")


@pytest.mark.parametrize("backend", ["openacc", "reference", "cuda"])
def test_np_with_another_backend_is_a_usage_error(backend, graph, capsys):
    status = main(["run", SSSP, "-b", backend, "--np", "2", "--graph", graph, "--src", "0"])
    err = capsys.readouterr().err
    assert status == 2
    assert err == (f"starc: error[E0601]: the {backend} backend runs one process: a number of "
                   "processes (--np, ranks=) is for the mpi backend\n")


def test_ranks_in_the_python_api_are_checked_before_compiling():
    with pytest.raises(UsageError, match="the openacc backend runs one process"):
        starc.compile(SSSP, "openacc", ranks=2)
    with pytest.raises(UsageError, match="the reference backend runs one process"):
        starc.compile(SSSP, "reference", ranks=1)
    with pytest.raises(UsageError, match=r"must be a positive integer, got 0"):
        starc.compile(SSSP, "mpi", ranks=0)
    # no ranks: the single-process backends start their programs directly
    assert starc.compile(SSSP, "reference").launcher == []


def test_backends_lists_mpi(capsys):
    assert main(["backends"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("mpi ")]
    assert len(lines) == 1
    name, state, detail = lines[0].split(None, 2)
    assert state in ("build+run", "build", "unavailable")
    assert detail == toolchain.availability().detail


def test_build_prints_how_to_run_with_mpirun(tmp_path, monkeypatch, capsys):
    """The built program stays a plain executable; the run line puts the launcher first."""
    program = tmp_path / "out dir" / "sssp"
    built = BuiltProgram("mpi", "Compute_SSSP", program.parent, [str(program)])
    monkeypatch.setattr("starc.runner.build_file", lambda *args, **kwargs: built)
    assert main(["build", SSSP, "-b", "mpi"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == ("run:  " + shlex.join(toolchain.launcher() + [str(program)])
                      + " GRAPH [--name value ...]")
    assert toolchain.launcher()[1:3] == ["-np", str(toolchain.DEFAULT_RANKS)]


def test_stats_with_a_single_process_backend_is_a_usage_error(graph, capsys):
    status = main(["run", SSSP, "-b", "openacc", "--stats", "--graph", graph, "--src", "0"])
    assert status == 2
    assert capsys.readouterr().err == (
        "starc: error[E0601]: --stats counts the messages of a distributed run; the openacc "
        "backend sends none (use -b mpi)\n")


@pytest.mark.mpi
def test_run_passes_stats_to_the_program(graph, tmp_path, monkeypatch, capfd):
    """`starc run --stats` prints every rank's counters after the results."""
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    status = main(["run", SSSP, "-b", "mpi", "--np", "3", "--stats", "--graph", graph,
                   "--src", "0"])
    out, err = capfd.readouterr()
    assert status == 0, err
    assert "dist 2 5" in out
    lines = [line for line in err.splitlines() if line.startswith("starc-mpi-stats ")]
    assert [line.split()[1] for line in lines] == ["rank=0", "rank=1", "rank=2"]
    assert all("cut_edges=" in line for line in lines)
