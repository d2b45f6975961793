"""The MPI toolchain: finding mpicxx and its launcher, the build line, the mpirun prefix, and
a real MPI program built and started through them."""

from __future__ import annotations

import os
import pathlib
import re
import stat
import subprocess

import pytest

from starc.backends.base import Availability, BackendError, BackendOptions, Launch
from starc.backends.mpi import toolchain
from starc.errors import UsageError


def _tool(folder: pathlib.Path, name: str, prints: str = "") -> pathlib.Path:
    """An executable ``folder/name`` whose ``--version`` prints ``prints``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    # echo, a shell builtin: the tests run some tools with PATH holding nothing else
    path.write_text("#!/bin/sh\n" + "".join(f"echo '{line}'\n" for line in prints.splitlines()))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


OPEN_MPI_4 = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/"
MPICH = "HYDRA build details:\n    Version:                   4.0.2\n    Release Date: x"
GXX = "g++ (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation"


def test_build_command():
    assert toolchain.build_command("bc") == [
        "mpicxx", "-fopenmp", "-O2", "-std=c++17", "-fwrapv", "-DOMPI_SKIP_MPICXX=1",
        "-DMPICH_SKIP_MPICXX=1", "-o", "bc", "bc.cpp"]
    strict = toolchain.build_command("bc", "/opt/mpi/bin/mpicxx", strict=True)
    assert strict[0] == "/opt/mpi/bin/mpicxx"
    assert strict[-7:] == ["-Wall", "-Wextra", "-Werror", "-Wno-overflow", "-o", "bc", "bc.cpp"]


def test_implementation_is_read_from_the_launcher(tmp_path):
    assert toolchain.implementation(str(_tool(tmp_path / "o", "mpirun", OPEN_MPI_4))) == \
        ("Open MPI", "4.1.4")
    assert toolchain.implementation(str(_tool(tmp_path / "m", "mpiexec", MPICH))) == \
        ("MPICH", "4.0.2")
    assert toolchain.implementation(str(_tool(tmp_path / "x", "mpirun", "something"))) == \
        ("", "")
    assert toolchain.implementation(str(tmp_path / "absent")) == ("", "")


def _fake_mpi(monkeypatch, implementation, root=0, cores=4, threads=None):
    monkeypatch.setattr(toolchain, "find", lambda preferred=None: ["/mpi/bin/mpicxx"])
    launcher = "/mpi/bin/" + ("mpirun" if implementation[0] == "Open MPI" else "mpiexec")
    monkeypatch.setattr(toolchain, "find_launcher", lambda compiler=None: launcher)
    monkeypatch.setattr(toolchain, "implementation", lambda path: implementation)
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root == 0 else 1000)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(toolchain, "machine_slots", lambda: (cores, f"{cores} cores"))
    monkeypatch.delenv("STARC_MPI_LAUNCHER", raising=False)
    if threads is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", threads)


def test_launcher_for_open_mpi_4_as_root(monkeypatch):
    _fake_mpi(monkeypatch, ("Open MPI", "4.1.4"), root=0, cores=4)
    assert toolchain.launcher(Launch(3)) == [
        "/mpi/bin/mpirun", "-np", "3", "--allow-run-as-root", "-q",
        "--bind-to", "none", "--mca", "pml", "ob1", "--mca", "btl", "self,vader",
        "-x", "OMP_NUM_THREADS=1"]
    # the default is two ranks, sharing the four cores out
    assert toolchain.launcher()[1:3] == ["-np", "2"]
    assert toolchain.launcher()[-1] == "OMP_NUM_THREADS=2"


def test_more_ranks_than_slots_only_when_asked(monkeypatch):
    """Issue 34: --np 100000 (a typo) flooded a 2-core machine, as starc always told mpirun
    to oversubscribe. Now more ranks than cores is refused unless the user says so, and
    only then is mpirun told."""
    _fake_mpi(monkeypatch, ("Open MPI", "4.1.4"), root=1000, cores=2)
    with pytest.raises(UsageError) as caught:
        toolchain.launcher(Launch(100000))
    assert str(caught.value) == (
        "--np 100000 is more MPI processes than the 2 slots of this machine (2 cores); add "
        "--oversubscribe to start them anyway, or --hostfile FILE to use more machines")
    assert "--oversubscribe" not in toolchain.launcher(Launch(2))
    assert toolchain.launcher(Launch(3, oversubscribe=True))[:4] == [
        "/mpi/bin/mpirun", "-np", "3", "--oversubscribe"]
    # the default never asks for more than there is
    _fake_mpi(monkeypatch, ("Open MPI", "4.1.4"), root=1000, cores=1)
    assert toolchain.launcher()[1:3] == ["-np", "1"]
    assert toolchain.ranks() == 1


def test_launcher_for_open_mpi_5_as_a_user_with_threads_set(monkeypatch):
    _fake_mpi(monkeypatch, ("Open MPI", "5.0.11"), root=1000, threads="8")
    assert toolchain.launcher(Launch(1)) == [
        "/mpi/bin/mpirun", "-np", "1", "--bind-to", "none",
        "--mca", "pml", "ob1", "--mca", "btl", "self,sm"]


def test_launcher_gives_other_implementations_only_the_process_count(monkeypatch):
    _fake_mpi(monkeypatch, ("MPICH", "4.0.2"))
    assert toolchain.launcher(Launch(4)) == ["/mpi/bin/mpiexec", "-np", "4"]
    # MPICH's mpiexec starts more ranks than cores without being told: only starc asks
    assert toolchain.launcher(Launch(5, oversubscribe=True)) == ["/mpi/bin/mpiexec", "-np", "5"]
    _fake_mpi(monkeypatch, ("", ""))
    assert toolchain.launcher(Launch(2)) == ["/mpi/bin/mpiexec", "-np", "2"]


@pytest.mark.parametrize("ranks", [0, -1, "3", True, 2.5])
def test_launcher_rejects_a_bad_number_of_processes(ranks):
    with pytest.raises(UsageError, match=r"--np\) must be a positive integer, got "
                                         + repr(ranks).replace(".", r"\.")):
        toolchain.launcher(Launch(ranks))


def test_launcher_is_taken_from_beside_the_compiler(tmp_path, monkeypatch):
    other = _tool(tmp_path / "other", "mpirun", OPEN_MPI_4)
    compiler = _tool(tmp_path / "mpi", "mpicxx", GXX)
    beside = _tool(tmp_path / "mpi", "mpiexec", MPICH)
    monkeypatch.setenv("PATH", f"{other.parent}:{compiler.parent}")
    assert toolchain.find_launcher(str(compiler)) == str(beside)
    assert toolchain.find_launcher() == str(other)
    options = BackendOptions(extra={"mpi_compiler": str(compiler)})
    assert toolchain.launcher(Launch(4, oversubscribe=True), options) == \
        [str(beside), "-np", "4"]


def test_availability_names_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    avail = toolchain.availability()
    assert (avail.can_build, avail.can_run) == (False, False)
    assert "no MPI C++ compiler wrapper (mpicxx)" in avail.detail

    _tool(tmp_path / "bin", "mpicxx", GXX)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    avail = toolchain.availability()
    assert (avail.can_build, avail.can_run) == (True, False)
    assert avail.detail.startswith("mpicxx (g++ 12.2); no mpirun or mpiexec on PATH")

    _tool(tmp_path / "bin", "mpirun", OPEN_MPI_4)
    avail = toolchain.availability()
    assert avail == Availability(True, True, "mpicxx (g++ 12.2) + Open MPI 4.1.4 mpirun")


def test_compile_program_without_a_compiler_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    missing = re.escape("no MPI C++ compiler wrapper ('mpicxx') found")
    with pytest.raises(BackendError, match=missing):
        toolchain.compile_program(tmp_path, "prog", BackendOptions())
    options = BackendOptions(extra={"mpi_compiler": "no-such-mpicxx"})
    with pytest.raises(BackendError, match="'no-such-mpicxx'"):
        toolchain.compile_program(tmp_path, "prog", options)


# Every rank adds its rank number and its OpenMP thread count; rank 0 prints the sums, and
# rank 0 of a run with STARC_FAIL set (local ranks inherit mpirun's environment) stops as a
# failed run-time check does.
_PROGRAM = r"""
#include <mpi.h>
#include <omp.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine[2] = {rank, omp_get_max_threads()}, sums[2] = {0, 0};
    MPI_Reduce(mine, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && std::getenv("STARC_FAIL")) {
        std::fprintf(stderr, "prog.sp:3:5: runtime error: index out of range\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) std::printf("size %d ranks %d threads %d\n", size, sums[0], sums[1]);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def mpi_program(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mpi-program")
    (folder / "prog.cpp").write_text(_PROGRAM)
    return toolchain.compile_program(folder, "prog", BackendOptions())


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", [1, 3])
def test_a_program_built_here_runs_on_the_launcher(mpi_program, ranks, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    launch = Launch(ranks, oversubscribe=True)           # 3 ranks on a 2-core machine
    proc = subprocess.run(toolchain.launcher(launch) + [str(mpi_program)], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 0, proc.stderr
    threads = max(1, len(os.sched_getaffinity(0)) // ranks)
    assert proc.stdout == f"size {ranks} ranks {sum(range(ranks))} threads {threads * ranks}\n"


@pytest.mark.mpi
def test_slots_are_counted_as_open_mpi_counts_them(mpi_program):
    """starc's slots are mpirun's own: as many ranks as slots start without
    --oversubscribe, and one more is refused by mpirun itself (its safety is back)."""
    slots, _ = toolchain.machine_slots()
    command = toolchain.launcher(Launch(slots)) + [str(mpi_program)]
    proc = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"size {slots} ")
    command[2] = str(slots + 1)
    if "-q" in command:                   # Open MPI 4's -q hides mpirun's own messages
        command.remove("-q")
    proc = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=120)
    assert proc.returncode != 0
    assert "not enough slots" in proc.stdout + proc.stderr


@pytest.mark.mpi
def test_a_failing_rank_gives_its_status_and_its_message_last(mpi_program, monkeypatch):
    """The runner reads a failed run-time check from the exit status and the last line of
    stderr (``runner._failed_check``): the launcher must add nothing after it (Open MPI 4's
    ``-q``)."""
    monkeypatch.setenv("STARC_FAIL", "1")
    proc = subprocess.run(toolchain.launcher(Launch(2)) + [str(mpi_program)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == \
        "prog.sp:3:5: runtime error: index out of range"


@pytest.mark.mpi
def test_availability_here_names_compiler_and_launcher():
    avail = toolchain.availability()
    assert avail.can_build and avail.can_run
    assert " + " in avail.detail and avail.detail.split()[0] in ("mpicxx", "mpic++")
