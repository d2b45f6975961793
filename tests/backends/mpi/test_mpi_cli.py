"""Running with ranks from the command line and the Python API: ``--np`` and ``ranks=`` are
checked before anything is compiled, and only the mpi backend takes them."""

from __future__ import annotations

import os
import pathlib
import shlex

import pytest

import starc
from starc.backends.base import BuiltProgram
from starc.backends.mpi import toolchain
from starc.cli import main
from starc.errors import UsageError
from starc.results import parse_results

ROOT = pathlib.Path(__file__).resolve().parents[3]
SSSP = str(ROOT / "dsl" / "sssp.sp")


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
def test_run_passes_stats_to_the_program(graph, capfd):
    """`starc run --stats` prints every rank's counters after the results. (In the session's
    build cache, as every other test here: with a cache of its own it built sssp with mpicxx
    a second time, 72 s of CI under load; the file's runs share one build.)"""
    status = main(["run", SSSP, "-b", "mpi", "--np", "3", "--oversubscribe", "--stats",
                   "--graph", graph, "--src", "0"])
    out, err = capfd.readouterr()
    assert status == 0, err
    assert "dist 2 5" in out
    lines = [line for line in err.splitlines() if line.startswith("starc-mpi-stats ")]
    assert [line.split()[1] for line in lines] == ["rank=0", "rank=1", "rank=2"]
    assert all("cut_edges=" in line for line in lines)


# -- where ranks start: slots, vertices, hostfiles, launchers (issue 34) -------------------

@pytest.fixture
def nothing_starts(monkeypatch):
    """Fail the test if a program is built or started: the refusals must come first."""
    def refuse(*args, **kwargs):
        raise AssertionError("a program was built or started")
    monkeypatch.setattr("starc.runner.build", refuse)
    monkeypatch.setattr("starc.runner._run_launched", refuse)


@pytest.fixture
def started(monkeypatch):
    """The command lines ``starc run`` launches, each run as it would be."""
    from starc import runner
    commands, launch = [], runner._run_launched

    def record(argv, prefix, env):
        commands.append(argv)
        return launch(argv, prefix, env)
    monkeypatch.setattr(runner, "_run_launched", record)
    return commands


def test_np_over_the_slots_is_refused_before_anything_is_built(graph, capsys, nothing_starts,
                                                              monkeypatch):
    """Issue 34: --np 100000 (a typo for 10) started ranks until the machine stalled."""
    monkeypatch.setattr(toolchain, "machine_slots", lambda: (2, "2 cores"))
    status = main(["run", SSSP, "-b", "mpi", "--np", "100000", "--graph", graph, "--src", "0"])
    assert status == 2
    assert capsys.readouterr().err == (
        "starc: error[E0601]: --np 100000 is more MPI processes than the 2 slots of this "
        "machine (2 cores); add --oversubscribe to start them anyway, or --hostfile FILE to "
        "use more machines\n")


@pytest.mark.parametrize("extra", [["--oversubscribe"], []], ids=["oversubscribe", "slots"])
def test_more_ranks_than_vertices_is_refused_whatever_the_flags(graph, capsys, nothing_starts,
                                                               monkeypatch, tmp_path, extra):
    monkeypatch.setattr(toolchain, "machine_slots", lambda: (8, "8 cores"))
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost slots=100000\n")
    for np_, flags in (("100000", ["--oversubscribe"]), ("4", extra),
                       ("4", ["--hostfile", str(hosts)])):
        status = main(["run", SSSP, "-b", "mpi", "--np", np_, *flags, "--graph", graph,
                       "--src", "0"])
        assert status == 2
        assert capsys.readouterr().err == (
            f"starc: error[E0601]: --np {np_} is more MPI processes than the 3 vertices of "
            f"'{graph}' (a process owns at least one vertex); use --np 3 or fewer\n")


@pytest.mark.parametrize("option", [["--oversubscribe"], ["--hostfile", "hosts"],
                                    ["--launcher", "srun -n 4"]])
def test_launch_options_with_a_single_process_backend(graph, capsys, option):
    status = main(["run", SSSP, "-b", "openacc", *option, "--graph", graph, "--src", "0"])
    assert status == 2
    assert capsys.readouterr().err == (f"starc: error[E0601]: the openacc backend runs one "
                                       f"process: {option[0]} is for the mpi backend\n")


def test_a_hostfile_that_cannot_be_read_is_a_usage_error(graph, capsys, nothing_starts,
                                                        tmp_path):
    missing = tmp_path / "hosts"
    status = main(["run", SSSP, "-b", "mpi", "--hostfile", str(missing), "--graph", graph,
                   "--src", "0"])
    assert status == 2
    assert capsys.readouterr().err == ("starc: error[E0601]: --hostfile "
                                       f"'{missing}': No such file or directory\n")


def test_ranks_over_the_slots_in_the_python_api(monkeypatch):
    monkeypatch.setattr(toolchain, "machine_slots", lambda: (2, "2 cores"))
    with pytest.raises(UsageError, match=r"^--np 3 is more MPI processes than the 2 slots"):
        starc.compile(SSSP, "mpi", ranks=3)
    assert starc.compile(SSSP, "mpi", ranks=3, oversubscribe=True).launcher[1:3] == \
        ["-np", "3"]
    with pytest.raises(UsageError, match="the openacc backend runs one process: "
                                         "--oversubscribe is for the mpi backend"):
        starc.compile(SSSP, "openacc", oversubscribe=True)


def _reference(path, **params):
    return starc.compile(SSSP, "reference").run(str(path), **params)


def _same(got, expected):
    assert got.props.keys() == expected.props.keys()
    for name in expected.props:
        assert list(got.props[name]) == list(expected.props[name]), name


@pytest.fixture
def weighted(tmp_path):
    path = tmp_path / "w.el"
    path.write_text("0 1 4\n0 2 1\n2 1 2\n1 3 5\n3 4 3\n2 4 9\n4 5 1\n5 0 7\n")
    return path


@pytest.mark.mpi
def test_default_ranks_fit_a_one_vertex_graph(tmp_path, capfd, started):
    one = tmp_path / "one.el"
    one.write_text("0 0 3\n")
    assert main(["run", SSSP, "-b", "mpi", "--graph", str(one), "--src", "0"]) == 0
    out, err = capfd.readouterr()
    assert out.splitlines()[1:] == ["dist 0 0"], err
    assert started[0][1:3] == ["-np", "1"]


@pytest.mark.mpi
def test_a_local_hostfile_runs_its_slots(weighted, tmp_path, capfd, started, monkeypatch):
    """Four ranks on a 2-core machine without --oversubscribe: only mpirun's reading of the
    hostfile gives them slots, so the run shows it was passed on."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost slots=4\n")
    out = tmp_path / "results.txt"
    assert main(["run", SSSP, "-b", "mpi", "--np", "4", "--hostfile", str(hosts),
                 "--graph", str(weighted), "--src", "0", "--out", str(out)]) == 0, \
        capfd.readouterr().err
    _same(parse_results(out.read_text()), _reference(weighted, src=0))
    assert "--hostfile" in started[0] and "--oversubscribe" not in started[0]
    assert main(["run", SSSP, "-b", "mpi", "--np", "5", "--hostfile", str(hosts),
                 "--graph", str(weighted), "--src", "0"]) == 2
    assert "than the 4 slots of --hostfile" in capfd.readouterr().err
    assert len(started) == 1


@pytest.fixture
def srun(tmp_path, monkeypatch):
    """An ``srun -n N PROGRAM ARGS`` on PATH that logs its arguments and starts N ranks here
    through mpirun, as Slurm's would on its nodes."""
    folder = tmp_path / "slurm"
    folder.mkdir()
    script = folder / "srun"
    script.write_text("#!/bin/sh\n"
                      f"printf '%s\\n' \"$*\" > {folder}/srun.log\n"
                      "n=$2; shift 2\n"
                      f"exec {toolchain.find_launcher(toolchain.find()[0])} --allow-run-as-root "
                      "--oversubscribe -q --bind-to none -np \"$n\" \"$@\"\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return folder / "srun.log"


@pytest.mark.mpi
@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_named_launcher_starts_the_program(weighted, capfd, srun, monkeypatch, how):
    if how == "option":
        given = ["--launcher", "srun -n 3"]
    else:
        given = []
        monkeypatch.setenv("STARC_MPI_LAUNCHER", "srun -n 3")
    assert main(["run", SSSP, "-b", "mpi", *given, "--stats", "--graph", str(weighted),
                 "--src", "0"]) == 0
    out, err = capfd.readouterr()
    _same(parse_results(out), _reference(weighted, src=0))
    assert len([line for line in err.splitlines() if line.startswith("starc-mpi-stats")]) == 3
    words = srun.read_text().split()
    assert words[:2] == ["-n", "3"] and words[3:] == [str(weighted), "--src", "0", "--stats"]
    # the launcher decides the ranks: asking for them too is a usage error
    assert main(["run", SSSP, "-b", "mpi", *given, "--np", "2", "--graph", str(weighted),
                 "--src", "0"]) == 2
    assert "--np is for mpirun, and " in capfd.readouterr().err


@pytest.mark.mpi
def test_a_launcher_that_fails_silently_is_named(weighted, capfd):
    status = main(["run", SSSP, "-b", "mpi", "--launcher", "false", "--graph", str(weighted),
                   "--src", "0"])
    err = capfd.readouterr().err
    assert status == 1
    assert err.startswith("starc: error: false stopped with exit status 1 and no message; "
                          "run it to see why: false /") and err.count("\n") == 1
