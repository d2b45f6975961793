"""bench/mpi_balance.py: reading the MPI runtime's balance line and the bound it prints (the
line itself is tested against real runs in tests/e2e/test_mpi_matrix.py)."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mpi_balance  # noqa: E402

LINE = ("starc-mpi-balance ranks={r} supersteps=7 work_us={w} critical_us={c} "
        "kernel_work_us={kw} kernel_critical_us={kc} balance={b} phases=1 phase_work_us={pw} "
        "phase_critical_us={pc}")


def test_the_balance_line_is_read_among_the_stats_lines():
    stderr = "starc-mpi-stats rank=0 owned=3\n" + LINE.format(
        r=2, w=300, c=200, kw=250, kc=150, b=0.750, pw=40, pc=30) + "\n"
    assert mpi_balance.parse_balance(stderr) == {
        "ranks": 2, "supersteps": 7, "work_us": 300, "critical_us": 200, "kernel_work_us": 250,
        "kernel_critical_us": 150, "balance": 0.75, "phases": 1, "phase_work_us": 40,
        "phase_critical_us": 30}
    assert mpi_balance.parse_balance("starc-mpi-stats rank=0 owned=3\n") is None


def test_the_bound_is_the_one_rank_critical_path_over_each_ranks():
    one = mpi_balance.parse_balance(LINE.format(r=1, w=800, c=800, kw=700, kc=700, b=1.0,
                                                pw=100, pc=100))
    four = mpi_balance.parse_balance(LINE.format(r=4, w=1600, c=500, kw=900, kc=300, b=0.8,
                                                 pw=400, pc=200))
    lines = mpi_balance.table([{"algo": "tc", "runs": [(1, one), (4, four)]}]).splitlines()
    assert lines[2].split(" | ")[5] == "1.00x"
    # 800 / 500: the supersteps and the phase allow 1.6x on 4 ranks; distributing doubled the
    # work, and the phase (the renumbering) took 0.2 ms of the 0.5 ms critical path
    assert lines[3].split(" | ")[1:] == ["4", "7", "0.5 ms", "0.3 ms", "1.60x", "0.80",
                                         "2.00", "0.2 ms |"]
