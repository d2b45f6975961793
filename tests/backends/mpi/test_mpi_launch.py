"""Where MPI ranks may start (starc.backends.mpi.toolchain): this machine's slots, a
hostfile's, a launcher that replaces mpirun, and how the mpirun line takes them."""

from __future__ import annotations

import os
import stat

import pytest

from starc.backends.base import Launch
from starc.backends.mpi import toolchain
from starc.errors import UsageError


@pytest.fixture
def fake_mpi(monkeypatch):
    """Open MPI 4's mpirun on a 2-core machine, run by a user, OMP_NUM_THREADS unset."""
    def use(implementation=("Open MPI", "4.1.4")):
        path = "/mpi/bin/" + ("mpirun" if implementation[0] == "Open MPI" else "mpiexec")
        monkeypatch.setattr(toolchain, "find", lambda preferred=None: ["/mpi/bin/mpicxx"])
        monkeypatch.setattr(toolchain, "find_launcher", lambda compiler=None: path)
        monkeypatch.setattr(toolchain, "implementation", lambda found: implementation)
        monkeypatch.setattr(toolchain, "machine_slots", lambda: (2, "2 cores"))
        monkeypatch.setattr(os, "geteuid", lambda: 1000)
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        monkeypatch.delenv(toolchain.LAUNCHER_VARIABLE, raising=False)
    use()
    return use


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_hostfile_slots_are_summed_in_either_spelling(tmp_path):
    path = _write(tmp_path, "hosts", "# the lab\nnode1 slots=4 max_slots=8\n\n"
                                     "node2 slots=2   # the small one\nnode3:3\n")
    assert toolchain.hostfile_slots(path) == 9
    # a host without a count has as many slots as cores, which only mpirun can see there
    assert toolchain.hostfile_slots(_write(tmp_path, "bare", "node1 slots=4\nnode2\n")) is None


@pytest.mark.parametrize("text, message", [
    ("", "names no host (one a line: 'host slots=N')"),
    ("# nothing but a comment\n", "names no host (one a line: 'host slots=N')"),
])
def test_hostfile_without_hosts_is_a_usage_error(tmp_path, text, message):
    path = _write(tmp_path, "hosts", text)
    with pytest.raises(UsageError) as caught:
        toolchain.hostfile_slots(path)
    assert str(caught.value) == f"--hostfile '{path}' {message}"


@pytest.mark.parametrize("line, shown", [("b slots=abc", "abc"), ("b slots=0", "0"),
                                         ("b:-2", "-2"), ("b slots=", "")])
def test_hostfile_count_must_be_a_whole_number(tmp_path, line, shown):
    path = _write(tmp_path, "hosts", f"a slots=2\n{line}\n")
    with pytest.raises(UsageError) as caught:
        toolchain.hostfile_slots(path)
    assert str(caught.value) == (f"{path}:2: the slots of host '{line.split()[0]}' must be a "
                                 f"whole number, 1 or more, got '{shown}'")


def test_hostfile_that_cannot_be_read(tmp_path):
    missing = str(tmp_path / "missing")
    with pytest.raises(UsageError, match=f"^--hostfile '{missing}': No such file or dir"):
        toolchain.hostfile_slots(missing)
    with pytest.raises(UsageError, match="it is a directory$"):
        toolchain.hostfile_slots(str(tmp_path))
    with pytest.raises(UsageError, match="larger than 1 MiB; is it a hostfile"):
        toolchain.hostfile_slots("/dev/zero")


def test_mpirun_gets_the_hostfile_and_only_its_slots(tmp_path, fake_mpi, monkeypatch):
    hosts = _write(tmp_path, "hosts", "node1 slots=4\nnode2 slots=2\n")
    # more ranks than this machine's 2 cores: the hosts' slots count, not this machine's
    assert toolchain.launcher(Launch(6, hostfile=hosts)) == [
        "/mpi/bin/mpirun", "-np", "6", "--hostfile", hosts, "-q", "--bind-to", "none"]
    with pytest.raises(UsageError) as caught:
        toolchain.launcher(Launch(7, hostfile=hosts))
    assert str(caught.value) == (f"--np 7 is more MPI processes than the 6 slots of "
                                 f"--hostfile '{hosts}'; add --oversubscribe to start them "
                                 "anyway")
    assert "--oversubscribe" in toolchain.launcher(Launch(7, True, hosts))
    # other hosts do not inherit mpirun's environment: OMP_NUM_THREADS goes along when set
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert toolchain.launcher(Launch(2, hostfile=hosts))[-2:] == ["-x", "OMP_NUM_THREADS"]
    # slots that only mpirun can count: it judges (and starc does not tell it to oversubscribe)
    bare = _write(tmp_path, "bare", "node1\n")
    assert toolchain.ranks(Launch(64, hostfile=bare)) == 64
    assert toolchain.ranks(Launch(hostfile=hosts)) == toolchain.DEFAULT_RANKS
    fake_mpi(("MPICH", "4.0.2"))
    hydra = _write(tmp_path, "hydra", "node1:4\nnode2:2\n")
    assert toolchain.launcher(Launch(4, hostfile=hydra)) == [
        "/mpi/bin/mpiexec", "-np", "4", "-f", hydra]


def test_a_hostfile_in_the_other_implementations_form_is_refused_with_the_line_to_write(
        tmp_path, fake_mpi):
    """Open MPI's mpirun took 'node1:4' for a host name (ssh: could not resolve it), though
    starc counted its slots; Hydra does not read 'slots='."""
    hydra = _write(tmp_path, "hydra", "# hosts\nnode1:4\n")
    with pytest.raises(UsageError) as caught:
        toolchain.launcher(Launch(4, hostfile=hydra))
    assert str(caught.value) == (f"{hydra}:2: 'node1:4' is MPICH's form; Open MPI's mpirun "
                                 "reads 'node1 slots=4'")
    fake_mpi(("MPICH", "4.0.2"))
    open_mpi = _write(tmp_path, "openmpi", "node1 slots=4\n")
    with pytest.raises(UsageError) as caught:
        toolchain.launcher(Launch(4, hostfile=open_mpi))
    assert str(caught.value) == (f"{open_mpi}:1: 'node1 slots=4' is Open MPI's form; MPICH's "
                                 "mpiexec reads 'node1:4'")


@pytest.fixture
def srun(tmp_path, monkeypatch):
    """A program named srun on PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    path = folder / "srun"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return path


def test_a_named_launcher_replaces_mpirun(srun, fake_mpi, monkeypatch):
    assert toolchain.launcher(Launch(command="srun -n 64 --mpi=pmix")) == \
        ["srun", "-n", "64", "--mpi=pmix"]
    assert toolchain.ranks(Launch(command="srun -n 64")) is None      # srun decides
    monkeypatch.setenv(toolchain.LAUNCHER_VARIABLE, "srun -n 8")
    assert toolchain.launcher() == ["srun", "-n", "8"]
    assert toolchain.launcher(Launch(command="srun -n 2")) == ["srun", "-n", "2"]  # wins


@pytest.mark.parametrize("launch_, message", [
    (Launch(command="srun -n 'oops"), "--launcher 'srun -n 'oops': No closing quotation"),
    (Launch(command="  "), "--launcher is empty: give the command that starts the ranks, "
                           "e.g. 'srun -n 64'"),
    (Launch(command="no-such-srun -n 4"),
     "--launcher 'no-such-srun -n 4': 'no-such-srun' is not found on PATH"),
    (Launch(4, command="srun -n 4"), "--np is for mpirun, and --launcher ('srun -n 4') "
                                     "replaces it: give the ranks and hosts in that command"),
    (Launch(hostfile="h", command="srun"), "--hostfile is for mpirun, and --launcher ('srun') "
                                           "replaces it: give the ranks and hosts in that "
                                           "command"),
])
def test_a_named_launcher_that_cannot_be_used(srun, fake_mpi, launch_, message):
    with pytest.raises(UsageError) as caught:
        toolchain.launcher(launch_)
    assert str(caught.value) == message


def test_the_environment_launcher_is_named_in_its_errors(fake_mpi, monkeypatch):
    monkeypatch.setenv(toolchain.LAUNCHER_VARIABLE, "no-such-srun -n 4")
    with pytest.raises(UsageError, match="^STARC_MPI_LAUNCHER 'no-such-srun -n 4': "
                                         "'no-such-srun' is not found on PATH$"):
        toolchain.launcher()


def test_machine_slots_are_cores_among_the_cpus_we_may_use():
    slots, what = toolchain.machine_slots()
    assert 1 <= slots <= len(os.sched_getaffinity(0))
    assert what in (f"{slots} cores", f"{slots} CPUs")
