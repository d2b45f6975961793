"""Benchmark harness: every dsl algorithm on every available starc backend against the
hand-written OpenMP baselines, on generated R-MAT and uniform graphs.

    python bench/harness.py [--scales 14 16 18] [--kinds rmat uniform] [--algos pr sssp tc ...]
                            [--backends opencl reference mpi] [--threads 2] [--repeat 3]
                            [--mpi-ranks 1 2]

Graphs are generated with starc.graphs into bench/out/graphs/ (cached), the baselines are
built into bench/out/bin/, every program runs through the generated-program contract and its
``starc-time`` (the algorithm alone, graph already in memory) is read from stderr, and the
process's wall time (end to end: start-up, reading the graph, building kernels) is measured
around it. Every program, GAPBS's too, times --repeat trials in one process (``--trials``,
GAPBS's ``-n``). Each cell shows their medians as ``algorithm / end-to-end``, the
ratio of algorithm times backend / baseline measured in the same run, and whether starc's
results equal the baseline's (exact for integers, a tolerance for floats). The mpi backend gets one column per --mpi-ranks count (``mpi-2``: 2 ranks, each
with --threads / ranks OpenMP threads), and one extra untimed run with --stats whose counters
(messages, bytes, combined entries, cut edges) go into a second table. A ``--prebuilt
COLUMN=DIR`` column runs programs built elsewhere (``DIR/ALGO``, from ``starc build``), for a
toolchain the measuring machine lacks (OpenACC offloaded to a GPU by g++'s nvptx compiler:
bench/gpu_bundle.sh). Results go to bench/out/results.json and bench/out/ratios.png. See
bench/README.md. The graphs and each algorithm's parameters are workloads.py's; the
measurements' tables and plot harness_report.py's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Dict, List, Optional, Tuple

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness_report import (TABLE_LEGEND, Measurement, cell,  # noqa: E402
                            communication_table, format_seconds, gapbs_text,
                            markdown_table, plot)
from workloads import (ALGORITHM_SETUP, ALGORITHMS, BC_SOURCES, GraphInfo,  # noqa: E402
                       generate_graph, program_params)

BASELINES = ROOT / "bench" / "baselines"
RUNTIME = ROOT / "starc" / "backends" / "common" / "runtime"
CXXFLAGS = ["-O3", "-march=native", "-fopenmp", "-std=c++17"]
FLOAT_PROPERTIES = {"pageRank", "BC"}   # float results; every other value is an integer
FLOAT_RTOL = 1e-3                       # relative, and 1e-4 of the largest value absolute

# The GAPBS kernel run against each algorithm when --gapbs (or $GAPBS_ROOT) names a built GAPBS
# (github.com/sbeamer/gapbs, `make` in its folder): binary and arguments, on the same graph
# file. GAPBS picks its own algorithm (direction-optimizing BFS, delta-stepping, Afforest...),
# which is the point: the goal is a ratio to the best known CPU code. cc runs GAPBS's
# Afforest (cc), the sampled union-find that starc runs dsl/cc.sp's propagation as (until
# session 64 its Shiloach-Vishkin, cc_sv, the label-propagation family); sssp uses
# delta 2 as GAPBS's own benchmark does on kron; pr stops at the same L1 tolerance and cap as
# dsl/pr.sp; bc runs BC_SOURCES iterations from the top source (GAPBS takes one -r for all);
# sswp and kcore have no GAPBS kernel.
GAPBS_SETUP = {
    "pr": ("pr", ["-i", "100", "-t", "0.001"]),
    "sssp": ("sssp", ["-r", "{src}", "-d", "2"]),
    "bfs": ("bfs", ["-r", "{src}"]),
    "bc": ("bc", ["-r", "{src}", "-i", str(BC_SOURCES)]),
    "cc": ("cc", []),
    "tc": ("tc", ["-s"]),
}


# -- baselines ----------------------------------------------------------------------------
def build_baselines(algos: List[str], out: pathlib.Path) -> Dict[str, str]:
    """Compile the baselines that are missing or older than their sources; name -> error."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    errors: Dict[str, str] = {}
    if not cxx:
        return {a: "g++ with OpenMP not found" for a in algos}
    bin_dir = out / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    headers = list(RUNTIME.glob("*.hpp"))
    jobs = {}
    for algo in algos:
        source, binary = BASELINES / f"{algo}.cpp", bin_dir / algo
        newest = max(p.stat().st_mtime for p in [source, *headers])
        if binary.exists() and binary.stat().st_mtime >= newest:
            continue
        print(f"harness: building baseline {algo}", file=sys.stderr)
        jobs[algo] = subprocess.Popen([cxx, *CXXFLAGS, "-I", str(RUNTIME), "-o", str(binary),
                                       str(source)], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
    for algo, job in jobs.items():
        log, _ = job.communicate()
        if job.returncode != 0:
            errors[algo] = "baseline build failed: " + log.strip().splitlines()[-1][:200]
    return errors


# -- running ------------------------------------------------------------------------------
def parse_times(stderr: str) -> List[float]:
    """Every ``starc-time`` line's seconds, in order (one per trial)."""
    return [float(line.split()[1]) for line in stderr.splitlines()
            if line.startswith("starc-time ")]


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def measure(argv: List[str], env: Dict[str, str], trials: int, results_file: pathlib.Path,
            timeout: float, backend: str, processes: int = 1) -> Measurement:
    """``processes`` runs of ``argv``, each timing ``trials`` runs of the algorithm in one
    process (``--trials``), as GAPBS times its ``-n`` trials: the median of every trial's
    ``starc-time``. A process's end-to-end time is its wall time less its trials after the
    first: what a one-trial run takes, its cold first trial included."""
    m = Measurement(backend, results_file=str(results_file))
    for _ in range(processes):
        try:
            started = time.perf_counter()
            proc = subprocess.run(argv + ["--out", str(results_file), "--time",
                                          "--trials", str(trials)],
                                  env=env, capture_output=True, text=True, timeout=timeout,
                                  cwd=ROOT)
            wall = time.perf_counter() - started
        except subprocess.TimeoutExpired:
            return m.failed("timeout", f"no result within {timeout:.0f} s")
        if proc.returncode != 0:
            return m.failed("error", f"exit {proc.returncode}: {last_line(proc.stderr)}")
        seconds = parse_times(proc.stderr)
        if len(seconds) != trials:
            return m.failed("error", f"expected {trials} 'starc-time' lines on stderr, "
                                     f"got {len(seconds)}")
        m.times += seconds
        m.walls.append(wall - sum(seconds[1:]))
    m.median = statistics.median(m.times)
    m.wall_median = statistics.median(m.walls)
    return m


def gapbs_times(stdout: str) -> Tuple[List[float], Optional[float]]:
    """GAPBS's ``Trial Time:`` seconds, and its ``Read Time`` + ``Build Time`` (the graph)."""
    trials, load = [], None
    for line in stdout.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "Trial Time":
            trials.append(float(value.split()[0]))
        elif key in ("Read Time", "Build Time"):
            load = (load or 0.0) + float(value.split()[0])
    return trials, load


def gapbs_kernels(pr_kernel: str = "pr") -> Dict[str, Tuple[str, List[str]]]:
    """GAPBS_SETUP with ``pr_kernel`` (``--gapbs-pr``) as its PageRank binary."""
    return dict(GAPBS_SETUP, pr=(pr_kernel, GAPBS_SETUP["pr"][1]))


def measure_gapbs(root: pathlib.Path, algo: str, graph: "GraphInfo", env: Dict[str, str],
                  repeat: int, timeout: float,
                  setup: Dict[str, Tuple[str, List[str]]] = GAPBS_SETUP
                  ) -> Optional[Measurement]:
    """``repeat`` trials of GAPBS's kernel for ``algo`` in one process (GAPBS times each
    trial itself, graph in memory); None when GAPBS has no such kernel."""
    if algo not in setup:
        return None
    binary, params = setup[algo]
    m = Measurement("gapbs")
    path = root / binary
    if not os.access(path, os.X_OK):
        return m.failed("error", f"{path} not built (run make in {root})")
    argv = [str(path), "-f", graph.path, "-n", str(repeat),
            *[a.format(src=graph.src) for a in params]]
    try:
        started = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
        wall = time.perf_counter() - started
    except subprocess.TimeoutExpired:
        return m.failed("timeout", f"no result within {timeout:.0f} s")
    trials, m.load = gapbs_times(proc.stdout)
    if proc.returncode != 0 or not trials:
        return m.failed("error", f"exit {proc.returncode}: {last_line(proc.stdout + proc.stderr)}")
    m.times, m.median = trials, statistics.median(trials)
    m.walls, m.wall_median = [wall], wall
    return m


def parse_stats(stderr: str) -> Dict[str, int]:
    """The ``starc-mpi-stats`` lines of one run, summed over ranks (maxima kept as maxima;
    supersteps, exchanges and reductions are the same on every rank)."""
    total: Dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("starc-mpi-stats "):
            continue
        for item in line.split()[1:]:
            key, value = item.split("=")
            if key == "rank":
                continue
            if key.startswith("max_") or key in ("supersteps", "exchanges", "reductions", "rounds"):
                total[key] = max(total.get(key, 0), int(value))
            else:
                total[key] = total.get(key, 0) + int(value)
    return total


def measure_stats(argv: List[str], env: Dict[str, str], timeout: float) -> Dict[str, int]:
    """One untimed run with --stats; {} when it fails (the timed runs report why)."""
    try:
        proc = subprocess.run(argv + ["--stats"], env=env, capture_output=True, text=True,
                              timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {}
    return parse_stats(proc.stderr) if proc.returncode == 0 else {}


def columns(backends: List[str], ranks: List[int]) -> List[Tuple[str, str, Optional[int]]]:
    """(column, backend, ranks) for every measured column: mpi once per rank count; a
    ``backend:schedule`` column (``cuda:vertex``) runs the backend with ``--schedule``."""
    out = []
    for spec in backends:
        backend = spec.split(":", 1)[0]
        if backend == "mpi":
            out += [(f"mpi-{r}", "mpi", r) for r in ranks]
        else:
            out.append((spec, backend, None))
    return out


def schedule_of(column: str) -> Optional[str]:
    """The ``--schedule`` a ``backend:schedule`` column forces (None: the backend's auto)."""
    return column.split(":", 1)[1] if ":" in column else None


def read_results(path: str) -> Tuple[Dict[str, Dict[int, str]], Optional[str]]:
    props: Dict[str, Dict[int, str]] = {}
    returned = None
    with open(path) as handle:
        for line in handle:
            if line.startswith("#") or not line.strip():
                continue
            parts = line.split()
            if parts[0] == "return":
                returned = parts[1]
            else:
                props.setdefault(parts[0], {})[int(parts[1])] = parts[2]
    return props, returned


def compare_results(got_path: str, want_path: str) -> Optional[str]:
    """None when the results agree, else a short description of the first difference."""
    got, got_return = read_results(got_path)
    want, want_return = read_results(want_path)
    if sorted(got) != sorted(want):
        return f"properties {sorted(got)} vs baseline {sorted(want)}"
    for name in want:
        if sorted(got[name]) != sorted(want[name]):
            return f"{name}: vertex ids differ"
        ids = sorted(want[name])
        if name in FLOAT_PROPERTIES:
            a = np.array([float(got[name][v]) for v in ids])
            b = np.array([float(want[name][v]) for v in ids])
            scale = float(np.abs(b[np.isfinite(b)]).max()) if np.isfinite(b).any() else 1.0
            close = np.isclose(a, b, rtol=FLOAT_RTOL, atol=1e-4 * scale, equal_nan=True)
            if not close.all():
                v = int(np.argmin(close))
                return (f"{name}: {int((~close).sum())} vertices differ, e.g. {ids[v]}: "
                        f"{a[v]:.6g} vs {b[v]:.6g}")
        else:
            bad = [v for v in ids if int(got[name][v]) != int(want[name][v])]
            if bad:
                v = bad[0]
                return (f"{name}: {len(bad)} vertices differ, e.g. {v}: {got[name][v]} vs "
                        f"{want[name][v]}")
    if (got_return is None) != (want_return is None):
        return "return value missing on one side"
    if want_return is not None and float(got_return) != float(want_return):
        return f"return {got_return} vs baseline {want_return}"
    return None


def backend_availability(backend: str) -> Optional[str]:
    """None when the backend can build and run here, else why not."""
    try:
        from starc.backends import backend_names, get_backend
        if backend not in backend_names():
            return f"unknown backend (known: {', '.join(backend_names())})"
        avail = get_backend(backend).availability()
    except Exception as exc:  # noqa: BLE001 - a broken backend is a row in the table
        return f"not loadable: {type(exc).__name__}: {exc}"
    if not (avail.can_build and avail.can_run):
        return f"cannot {'run' if avail.can_build else 'build'} here: {avail.detail}"
    return None


def warm_build_cache(algo: str, backend: str, timeout: float,
                     schedule: Optional[str] = None) -> None:
    """Builds dsl/ALGO.sp for ``backend`` (with ``--schedule`` where given) into starc's build
    cache, as ``starc run`` with those options does, so that a measured run's end-to-end time
    holds a cache hit, not a compilation. Run from ROOT, as the measured runs are, so both use
    this checkout's starc; a failure is left for the measured run to report."""
    script = ("import sys; from starc.diagnostics import DiagnosticSink; "
              "from starc.backends.base import BackendOptions; "
              "from starc.runner import build_file; "
              "options = BackendOptions(schedule=sys.argv[3] or None); "
              "sys.exit(0 if build_file(sys.argv[1], sys.argv[2], DiagnosticSink(), "
              "options=options) else 1)")
    try:
        subprocess.run([sys.executable, "-c", script, f"dsl/{algo}.sp", backend,
                        schedule or ""], cwd=ROOT, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass


def prebuilt_dirs(specs: List[str]) -> Dict[str, pathlib.Path]:
    """``--prebuilt COLUMN=DIR`` arguments as {column: DIR}; ValueError names a bad one."""
    dirs = {}
    for spec in specs:
        column, sep, folder = spec.partition("=")
        if not sep or not column or not folder or column.startswith("mpi"):
            raise ValueError(f"--prebuilt {spec!r}: expected BACKEND[:SCHEDULE]=DIR (not mpi)")
        if not pathlib.Path(folder).is_dir():
            raise ValueError(f"--prebuilt {spec!r}: {folder} is not a directory")
        dirs[column] = pathlib.Path(folder).resolve()
    return dirs


def prebuilt_refusal(folder: pathlib.Path, algo: str) -> str:
    """Why a --prebuilt column cannot run ALGO ("" when it can): no program ``folder/ALGO``."""
    path = folder / algo
    if not (path.is_file() and os.access(path, os.X_OK)):
        return f"no prebuilt program {path}"
    return ""


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# -- main ---------------------------------------------------------------------------------
def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scales", type=int, nargs="+", default=[14, 16])
    p.add_argument("--kinds", nargs="+", default=["rmat", "uniform"], choices=["rmat", "uniform", "grid"])
    p.add_argument("--algos", nargs="+", default=list(ALGORITHMS), choices=ALGORITHMS)
    p.add_argument("--backends", nargs="+", default=["opencl", "reference"])
    p.add_argument("--mpi-ranks", type=int, nargs="+", default=[1, 2],
                   help="rank counts for the mpi backend, one column each (default 1 2)")
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS for the baselines")
    p.add_argument("--wait-policy", default="passive", choices=["passive", "active"],
                   help="OMP_WAIT_POLICY for the baselines (default passive: on a shared 2-core "
                        "machine spinning threads steal the cores the others need; measured 5x "
                        "faster under load, about equal on R-MAT when the machine is quiet; but "
                        "on a graph of many levels (--kinds grid) GAPBS's barriers make passive "
                        "10-17x slower: compare with active there, bench/RESULTS.md 'Session 60, "
                        "grids')")
    p.add_argument("--backend-wait-policy", default="passive", choices=["passive", "active"],
                   help="OMP_WAIT_POLICY for the generated programs (default passive: a host "
                        "whose OpenMP threads spin after their region takes the cores its "
                        "device's threads need, bench/RESULTS.md 'Session 64')")
    p.add_argument("--repeat", type=int, default=3,
                   help="trials per measurement, timed in one process (the programs' --trials, "
                        "GAPBS's -n); each cell is their median")
    p.add_argument("--processes", type=int, default=1,
                   help="separate processes per measurement, each running --repeat trials "
                        "(default 1); the median is over all their trials")
    p.add_argument("--reference-max-scale", type=int, default=None,
                   help="run the (slow) reference executor up to this scale "
                        "(default: the smallest scale only)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per program run")
    p.add_argument("--out", default=str(ROOT / "bench" / "out"), help="output directory")
    p.add_argument("--gapbs", default=os.environ.get("GAPBS_ROOT"), metavar="DIR",
                   help="a built GAPBS checkout (default $GAPBS_ROOT): adds a GAPBS column and "
                        "ratios to it for pr, sssp, bfs, bc, cc (Afforest) and tc")
    p.add_argument("--prebuilt", action="append", default=[], metavar="COLUMN=DIR",
                   help="run the --backends column COLUMN (BACKEND or BACKEND:SCHEDULE, not mpi) "
                        "from DIR/ALGO, programs built elsewhere by starc build (with that "
                        "schedule), e.g. for a toolchain this machine lacks, instead of starc "
                        "run (repeatable)")
    p.add_argument("--gapbs-pr", default="pr", choices=["pr", "pr_spmv"],
                   help="GAPBS's PageRank kernel: pr (its default, Gauss-Seidel: a vertex's new "
                        "score counts in the same round, so it converges in fewer rounds) or "
                        "pr_spmv (Jacobi, double-buffered as dsl/pr.sp)")
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    out = pathlib.Path(args.out)
    gapbs_root = pathlib.Path(args.gapbs) if args.gapbs else None
    if gapbs_root is not None and not gapbs_root.is_dir():
        print(f"harness: --gapbs {gapbs_root}: no such directory", file=sys.stderr)
        return 2
    (out / "runs").mkdir(parents=True, exist_ok=True)
    reference_max = (args.reference_max_scale if args.reference_max_scale is not None
                     else min(args.scales))
    try:
        prebuilt = prebuilt_dirs(args.prebuilt)
    except ValueError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 2
    build_errors = build_baselines(args.algos, out)
    gapbs_setup = gapbs_kernels(args.gapbs_pr)
    # a prebuilt column's toolchain is where its programs were built, not here
    unavailable = {b: backend_availability(b)
                   for b in {spec.split(":", 1)[0] for spec in args.backends
                             if spec not in prebuilt}}
    measured = columns(args.backends, args.mpi_ranks)
    names = [column for column, _, _ in measured]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_WAIT_POLICY=args.wait_policy)
    print(f"harness: {args.threads} OpenMP threads ({args.wait_policy} wait for the "
          f"baselines, {args.backend_wait_policy} for the programs), median of "
          f"{args.repeat} trials in each of {args.processes} process(es); source vertex = "
          "the highest out-degree vertex, bc sources = the 4 highest", file=sys.stderr)

    rows = []
    for kind in args.kinds:
        for scale in args.scales:
            for algo in args.algos:
                variant, _ = ALGORITHM_SETUP[algo]
                started = time.perf_counter()
                graph = generate_graph(kind, scale, variant, out)
                undirected = ["--undirected"] if variant == "symmetric" else []
                params = program_params(algo, graph)
                stem = out / "runs" / f"{kind}-s{scale}-{algo}"
                base_file = pathlib.Path(f"{stem}-baseline.txt")
                if algo in build_errors:
                    baseline = Measurement("openmp-baseline").failed("error", build_errors[algo])
                else:
                    baseline = measure([str(out / "bin" / algo), graph.path, *undirected, *params],
                                       env, args.repeat, base_file, args.timeout, "openmp-baseline",
                                       args.processes)
                load_before = os.getloadavg()[0]
                row = {"kind": kind, "scale": scale, "algo": algo, "graph": graph.path,
                       "num_nodes": graph.num_nodes, "num_edges": graph.num_edges,
                       "params": params + undirected, "threads": args.threads,
                       "baseline": asdict(baseline), "backends": {}}
                gapbs = None
                if gapbs_root is not None:
                    gapbs = measure_gapbs(gapbs_root, algo, graph, env, args.repeat,
                                          args.timeout, gapbs_setup)
                    if gapbs is not None:
                        row["gapbs"] = asdict(gapbs)
                for column, backend, ranks in measured:
                    if column not in prebuilt and unavailable[backend]:
                        m = Measurement(column).failed("error", unavailable[backend])
                    elif backend == "reference" and scale > reference_max:
                        m = Measurement(column).failed(
                            "skipped", f"reference executor only up to scale {reference_max}")
                    elif column in prebuilt and prebuilt_refusal(prebuilt[column], algo):
                        m = Measurement(column).failed(
                            "error", prebuilt_refusal(prebuilt[column], algo))
                    else:
                        schedule = schedule_of(column)
                        if column in prebuilt:     # its schedule was chosen at its build
                            argv_b = [str(prebuilt[column] / algo), graph.path, *undirected,
                                      *params]
                        else:
                            warm_build_cache(algo, backend, args.timeout, schedule)
                            np_args = [] if ranks is None else ["--np", str(ranks)]
                            np_args += [] if schedule is None else ["--schedule", schedule]
                            argv_b = [sys.executable, "-m", "starc", "run", f"dsl/{algo}.sp",
                                      "-b", backend, *np_args, "--graph", graph.path,
                                      *undirected, *params]
                        # (the baselines' wait policy is theirs: a generated program's host
                        # threads that spin after their region (tc's renumbering) take the
                        # cores its device's threads need; R-MAT 18 tc on PoCL: 2.2 s
                        # spinning, 1.5 s passive)
                        env_b = dict(env, OMP_WAIT_POLICY=args.backend_wait_policy)
                        if ranks is not None:    # the same cores: threads split among ranks
                            env_b = dict(env_b,
                                         OMP_NUM_THREADS=str(max(1, args.threads // ranks)))
                        m = measure(argv_b, env_b, args.repeat,
                                    pathlib.Path(f"{stem}-{column}.txt"), args.timeout, column,
                                    args.processes)
                        if m.status == "ok" and baseline.status == "ok":
                            problem = compare_results(m.results_file, baseline.results_file)
                            if problem:
                                m.failed("MISMATCH", problem)
                        if m.status == "ok" and ranks is not None:
                            m.stats = measure_stats(argv_b, env_b, args.timeout)
                    row["backends"][column] = asdict(m)
                row["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
                rows.append(row)
                summary = "; ".join(
                    f"{b}: {cell(Measurement(**row['backends'][b]), baseline, gapbs)}"
                    for b in names)
                print(f"harness: {kind} s{scale} {algo}: baseline "
                      f"{format_seconds(baseline.median)}; GAPBS {gapbs_text(gapbs)}; {summary} "
                      f"[{time.perf_counter() - started:.0f} s, load {load_before:.1f}]",
                      file=sys.stderr)

    table = markdown_table(rows, names)
    print(TABLE_LEGEND + "\n\n" + table)
    communication = communication_table(rows, [c for c, b, _ in measured if b == "mpi"])
    if communication:
        print("\nMPI communication (summed over ranks):\n\n" + communication)
    loads = [x for r in rows for x in r["load_average"]]
    cpus = os.cpu_count() or 1
    if loads and max(loads) > cpus:
        print(f"\nwarning: the 1-minute load average reached {max(loads):.1f} on {cpus} CPUs "
              "during the run; the times include waiting for shared cores (OpenMP barriers "
              "suffer most). Rerun on a quiet machine for figures to quote.")
    mismatches = [r for r in rows for m in r["backends"].values() if m["status"] == "MISMATCH"]
    if mismatches:
        print(f"\n!!! {len(mismatches)} RESULT MISMATCH(ES) between starc and the baselines "
              "(see the table) !!!")
    report = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "processor": _cpu_model(),
                    "cpus": os.cpu_count(), "python": platform.python_version()},
        "settings": {k: v for k, v in vars(args).items()},
        "rows": rows,
        "table": table,
        "communication": communication,
    }
    (out / "results.json").write_text(json.dumps(report, indent=1))
    try:
        plot(rows, names, out / "ratios.png")
    except Exception as exc:  # noqa: BLE001 - the numbers matter more than the picture
        print(f"harness: no plot: {type(exc).__name__}: {exc}", file=sys.stderr)
    print(f"\nwrote {out / 'results.json'} and {out / 'ratios.png'}", file=sys.stderr)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
