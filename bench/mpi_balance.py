"""The MPI scaling bound of each program on any machine: its supersteps' critical path (issue 30).

    python bench/mpi_balance.py [--scale 18] [--algos bfs cc sssp pr bc tc] [--ranks 1 2 4 8 16]
                                [--trials 5] [--out bench/out/balance]

Runs each dsl program on the harness's R-MAT graph (bench/workloads.py's graphs, variants and
parameters) with 1 OpenMP thread a rank and ``--stats``, and reads its balance line: every
superstep's work (process CPU time, less its MPI calls') summed over the ranks, and the sum
over the supersteps of the slowest rank's work, the *critical path*. The timed collective
phases outside the supersteps (tc's renumbering by degree, with the fetch of its ghost rows'
slices: once a trial) count as supersteps do; the last column gives their part. CPU time does not count the
time a rank waits for a core, so the critical path means the same on a 2-core machine running
16 ranks as on a 16-core one; it is the time the supersteps cannot go below with one core a
rank whatever the network. Printed per program and rank count:

- ``bound`` = critical path at 1 rank / critical path at R ranks: the speedup the supersteps
  allow (the goal's 1 -> 16 ranks figure cannot exceed it beyond the noise of CPU time);
- ``balance`` = work / (R x critical path): 1 where each superstep's work divides evenly;
- ``work`` / work at 1 rank: what distributing added (ghost updates, refreshes).

The bound leaves out the MPI transfers and the collectives' latency, which only a machine with
a core per rank can time (``bash bench/gpu.sh mpi-split``), and, with ranks sharing cores,
each rank's caches are cooled by the others: read the bound on a machine with fewer cores than
ranks as an upper estimate of that cost.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
from typing import Dict, List, Optional

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workloads import ALGORITHM_SETUP, ROOT, generate_graph, program_params  # noqa: E402

__all__ = ["parse_balance", "main"]


def parse_balance(stderr: str) -> Optional[Dict[str, float]]:
    """The ``starc-mpi-balance`` line of one run as numbers, or None when there is none."""
    for line in stderr.splitlines():
        if line.startswith("starc-mpi-balance "):
            return {key: float(value) for key, value in
                    (item.split("=", 1) for item in line.split()[1:])}
    return None


def run_balance(algo: str, graph, ranks: int, trials: int, timeout: float) -> Dict[str, float]:
    """One run of dsl/ALGO.sp on ``ranks`` ranks x 1 thread with --stats; its balance line."""
    variant, _ = ALGORITHM_SETUP[algo]
    argv = [sys.executable, "-m", "starc", "run", f"dsl/{algo}.sp", "-b", "mpi", "--np",
            str(ranks), "--oversubscribe", "--stats", "--trials", str(trials),
            "--graph", graph.path, *(["--undirected"] if variant == "symmetric" else []),
            *program_params(algo, graph)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    balance = parse_balance(proc.stderr)
    if proc.returncode != 0 or balance is None:
        raise SystemExit(f"mpi_balance: {algo} on {ranks} ranks failed "
                         f"(exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
    return balance


def table(rows: List[dict]) -> str:
    """Markdown: per program and rank count, the critical path, the bound, balance, work."""
    lines = ["| algo | ranks | supersteps | critical path | kernels' critical path | bound "
             "(1 rank / R) | balance | work / 1 rank's | phases' critical path |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        one = row["runs"][0][1]
        for ranks, b in row["runs"]:
            lines.append(
                f"| {row['algo']} | {ranks} | {b['supersteps']:.0f} | "
                f"{b['critical_us'] / 1e3:.1f} ms | {b['kernel_critical_us'] / 1e3:.1f} ms | "
                f"{one['critical_us'] / b['critical_us']:.2f}x | {b['balance']:.2f} | "
                f"{b['work_us'] / one['work_us']:.2f} | "
                f"{b.get('phase_critical_us', 0) / 1e3:.1f} ms |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=int, default=18)
    p.add_argument("--algos", nargs="+", default=["bfs", "cc", "sssp", "pr", "bc"],
                   choices=sorted(ALGORITHM_SETUP))
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--trials", type=int, default=5,
                   help="runs of the algorithm in each process (the counters sum them)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--out", default=str(HERE / "out" / "balance"),
                   help="where the graphs are generated (reused when present)")
    args = p.parse_args(argv)
    if args.ranks[0] != 1:
        args.ranks = [1] + [r for r in args.ranks if r != 1]   # the bound's denominator
    rows = []
    for algo in args.algos:
        variant, _ = ALGORITHM_SETUP[algo]
        graph = generate_graph("rmat", args.scale, variant, pathlib.Path(args.out))
        runs = [(r, run_balance(algo, graph, r, args.trials, args.timeout)) for r in args.ranks]
        rows.append({"algo": algo, "runs": runs})
        print(f"mpi_balance: {algo} done", file=sys.stderr)
    print(f"R-MAT {args.scale}, {args.trials} trials a process, 1 OpenMP thread a rank; "
          f"load {os.getloadavg()[0]:.1f}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
