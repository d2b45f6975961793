"""Per-batch time of the dynamic programs against their static recomputation (issue 31's
goals), on one compiled backend, side by side in one run.

    python bench/dynamic_batches.py [--scale 18] [--share 0.001] [--batches 4]
                                    [--backend opencl] [--programs sssp pr tc] [--trials 3]
                                    [--np 2]   (MPI's ranks, with --backend mpi)

For each of dsl/dynamic/dyn_{sssp,pr,tc}.sp the same built program runs twice on a Kronecker
graph (`starc.graphs.rmat`, weighted): with an empty update stream (the static function alone,
on the input graph) and with ``--batches`` batches of ``--share`` of the edges each (half
deletions of existing edges, half additions). Both run ``--trials`` times in one process
(``--time --trials``; the median trial by ``starc-time``). Besides ``starc-time`` a Dynamic
program prints, per trial, the part spent in its Batch loops (``starc-batch-time``) and, of
that, applying the batches to the graph (``starc-update-time``: the host graph and the device
copies). So one trial splits into its static part S (starc-time less the batches), a batch's
graph update U / batches and its algorithm A = (batch time - U) / batches, all measured in the
same trial: the goals compare A with S, the static function's run from scratch on the same
graph (sssp <= 1/10, tc <= 1/20, pr <= 1/3); the last column divides each part's best trial
(its least disturbed: the static part moves up to 2x with the machine on the 2-core VM, a
batch less). The empty stream's run is printed beside as a
check of S. (Until session 51 A was (T_batches - T_static) / batches - U with T_static from the
empty stream's process: the difference of two separately timed ~40 ms figures, whose noise
moved OpenCL dyn_sssp's A between -22 and +26 ms while the direct figure stayed at 5-6 ms.)
Applying a batch has its own goal against building the graph (bench/updates_apply.py).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
from typing import Tuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starc.graphs import load_graph, rmat, write_edge_list  # noqa: E402
from starc.graphs.updates import generate_updates, write_updates  # noqa: E402

#: program -> (its parameters, whether it reads the graph as undirected, the goal)
PROGRAMS = {
    "sssp": (["--src", "0"], False, 1 / 10),
    "pr": (["--beta", "0.000001", "--delta", "0.85", "--maxIter", "100"], False, 1 / 3),
    "tc": ([], True, 1 / 20),
}


def timed(argv, trials: int) -> Tuple[Tuple[float, float, float], list]:
    """The median trial (by ``starc-time``) of ``trials`` trials of one process: its
    ``starc-time``, ``starc-update-time`` and ``starc-batch-time``; and every trial's."""
    proc = subprocess.run(argv + ["--time", "--trials", str(trials), "--out", "/dev/null"],
                          cwd=ROOT, capture_output=True, text=True)

    def seconds(tag):
        return [float(line.split()[1]) for line in proc.stderr.splitlines()
                if line.startswith(tag + " ")]
    times, updates, batches = (seconds(f"starc-{tag}") for tag in ("time", "update-time",
                                                                      "batch-time"))
    if proc.returncode != 0 or not len(times) == len(updates) == len(batches) == trials:
        sys.exit(f"{' '.join(argv)} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    median = sorted(range(trials), key=times.__getitem__)[trials // 2]
    return (times[median], updates[median], batches[median]), list(zip(times, updates, batches))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--share", type=float, default=0.001,
                        help="a batch's updates as a share of the graph's edges (default 0.001)")
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--backend", default="opencl")
    parser.add_argument("--programs", nargs="+", choices=sorted(PROGRAMS),
                        default=["sssp", "pr", "tc"])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--np", type=int, default=2, help="ranks, with --backend mpi")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        graph_path = folder / f"rmat{args.scale}.el"
        write_edge_list(rmat(args.scale, 16, seed=1, weights=True), graph_path)
        empty_stream = folder / "none.updates"
        empty_stream.write_text("")
        ranks = f" {args.np} ranks" if args.backend == "mpi" else ""
        print(f"{args.backend}{ranks}, Kronecker {args.scale}, batches of {args.share:g} of the edges "
              f"(half deletions), {args.batches} batches, median of {args.trials} trials")
        print("| program | static (empty stream) | static part | per batch | of which the "
              "graph update | algorithm per batch | algorithm / static part | goal "
              "| batch / static part | best trials: algorithm / static part |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name in args.programs:
            params, undirected, goal = PROGRAMS[name]
            graph = load_graph(str(graph_path), undirected=undirected)
            # a batch counts lines; an undirected run applies each line in both directions
            per_batch = max(1, round(graph.num_edges * args.share / (2 if undirected else 1)))
            stream = generate_updates(graph, per_batch * args.batches, seed=2, weights=True)
            updates = folder / f"{name}.updates"
            write_updates(updates, stream)
            argv = [sys.executable, "-m", "starc", "run", f"dsl/dynamic/dyn_{name}.sp",
                    "-b", args.backend, "--graph", str(graph_path),
                    # (more ranks than cores share them, as a 4-rank run on 2 cores must)
                    *(["--np", str(args.np), "--oversubscribe"] if args.backend == "mpi" else []),
                    "--batchSize", str(per_batch), *params,
                    *(["--undirected"] if undirected else [])]
            (empty, _, _), _ = timed(argv + ["--updates", str(empty_stream)], args.trials)
            (total, update, batches), every = timed(argv + ["--updates", str(updates)],
                                                    args.trials)
            # each part's least disturbed trial: the static part's dense rounds move up to 2x
            # with the machine (run-queue waits, memory speed) where a batch's small commands
            # move less (RESULTS.md, "Session 56, dynseed")
            best = (min((b - u) / args.batches for _, u, b in every)
                    / min(t - b for t, _, b in every))
            static = total - batches             # the same trial's static part
            batch, update = batches / args.batches, update / args.batches
            algorithm = batch - update
            ratio = algorithm / static
            print(f"| {name} | {empty * 1e3:.1f} ms | {static * 1e3:.1f} ms | "
                  f"{batch * 1e3:.1f} ms | {update * 1e3:.1f} ms | {algorithm * 1e3:.2f} ms | "
                  f"{ratio:.3f} | "
                  f"<= {goal:.3f}: {'met' if ratio <= goal else 'missed'} | "
                  f"{batch / static:.3f} | {best:.3f} |", flush=True)


if __name__ == "__main__":
    main()
