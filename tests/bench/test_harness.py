"""The benchmark harness itself: MPI columns per rank count and the --stats table, on a tiny
graph (the figures are bench/'s business; this checks the harness measures what it says)."""

from __future__ import annotations

import json
import os
import pathlib
import sys
from dataclasses import asdict

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import harness  # noqa: E402
import harness_report  # noqa: E402
import workloads  # noqa: E402


def test_mpi_gets_one_column_per_rank_count():
    assert harness.columns(["opencl", "mpi"], [1, 2]) == [
        ("opencl", "opencl", None), ("mpi-1", "mpi", 1), ("mpi-2", "mpi", 2)]


# A stand-in program: sleeps 0.3 s outside its reported algorithm time of 0.01 s per trial, and
# sleeps that time too (--trials N: one starc-time line each, as generated programs print them).
# It must spend the trials it reports: the harness takes the later ones off the wall time, and a
# stand-in that did not spend them could start fast enough to come out under 0.3 s.
STAND_IN = ("import sys, time; "
            "trials = int(sys.argv[sys.argv.index('--trials') + 1]) - LESS; "
            "time.sleep(0.3 + 0.01 * trials); "
            "open(sys.argv[sys.argv.index('--out') + 1], 'w').write('return 1\\n'); "
            "[print('starc-time 0.010000', file=sys.stderr) for _ in range(trials)]")


def test_cells_show_the_algorithm_time_next_to_the_end_to_end_time(tmp_path):
    m = harness.measure([sys.executable, "-c", STAND_IN.replace("LESS", "0")],
                        dict(os.environ), 3, tmp_path / "results.txt", 60, "fake", processes=2)
    assert m.status == "ok", m.detail
    # every trial of every process; a process's wall time less its trials after the first
    assert m.times == [0.01] * 6 and len(m.walls) == 2
    assert all(0.3 <= wall < 30 for wall in m.walls) and m.wall_median >= 0.3
    baseline = harness_report.Measurement("baseline", times=[0.005], median=0.005,
                                          walls=[0.2], wall_median=0.2)
    text = harness_report.cell(m, baseline)
    assert text.startswith(f"10.0 ms / {harness_report.format_seconds(m.wall_median)} (2.0x)"), text
    row = {"kind": "rmat", "scale": 6, "algo": "sssp", "num_nodes": 64, "num_edges": 1024,
           "baseline": asdict(baseline), "backends": {"fake": asdict(m)}}
    line = harness_report.markdown_table([row], ["fake"]).splitlines()[-1]
    assert "| 5.0 ms / 200.0 ms | 10.0 ms / " in line and "(2.0x) |" in line


def test_a_program_that_times_fewer_trials_than_asked_is_an_error(tmp_path):
    m = harness.measure([sys.executable, "-c", STAND_IN.replace("LESS", "1")],
                        dict(os.environ), 3, tmp_path / "results.txt", 60, "fake")
    assert m.status == "error" and m.median is None
    assert m.detail == "expected 3 'starc-time' lines on stderr, got 2"


def test_stats_are_summed_over_ranks_and_maxima_kept():
    stderr = ("starc-time 0.1\n"
              "starc-mpi-stats rank=0 owned=5 ghosts=2 supersteps=3 exchanges=6 messages=4 "
              "bytes=100 entries=7 max_pair_messages_per_superstep=1 max_entries_per_vertex=1 "
              "cut_edges=9\n"
              "starc-mpi-stats rank=1 owned=4 ghosts=3 supersteps=3 exchanges=6 messages=2 "
              "bytes=60 entries=5 max_pair_messages_per_superstep=2 max_entries_per_vertex=1 "
              "cut_edges=8\n")
    assert harness.parse_stats(stderr) == {
        "owned": 9, "ghosts": 5, "supersteps": 3, "exchanges": 6, "messages": 6, "bytes": 160,
        "entries": 12, "max_pair_messages_per_superstep": 2, "max_entries_per_vertex": 1,
        "cut_edges": 17}


@pytest.mark.mpi
def test_harness_runs_mpi_with_ranks_and_counts_its_messages(tmp_path, capsys):
    status = harness.main(["--scales", "6", "--kinds", "rmat", "--algos", "sssp",
                           "--backends", "mpi", "--mpi-ranks", "1", "2", "--repeat", "1",
                           "--out", str(tmp_path)])
    assert status == 0
    report = json.loads((tmp_path / "results.json").read_text())
    (row,) = report["rows"]
    assert row["baseline"]["status"] == "ok"
    for column in ("mpi-1", "mpi-2"):
        assert row["backends"][column]["status"] == "ok", row["backends"][column]
    one, two = row["backends"]["mpi-1"]["stats"], row["backends"]["mpi-2"]["stats"]
    assert one["messages"] == 0 and one["cut_edges"] == 0      # one rank sends nothing
    assert two["messages"] > 0 and two["cut_edges"] > 0
    assert "| rmat | 6 | sssp | mpi-2 |" in capsys.readouterr().out


def test_gapbs_column_runs_its_kernel_on_the_same_graph_and_adds_a_ratio(tmp_path):
    # A stand-in GAPBS build: `sssp` prints GAPBS's timing lines for the trials it is asked for.
    root = tmp_path / "gapbs"
    root.mkdir()
    fake = root / "sssp"
    fake.write_text("#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/argv\"\n"
                    "echo 'Read Time:           0.02000'\necho 'Build Time:          0.01000'\n"
                    "for t in 0.004 0.002 0.003; do echo \"Trial Time:          $t\"; done\n")
    fake.chmod(0o755)
    graph = workloads.GraphInfo("rmat", 6, "weighted", "/g.mtx", 64, 1024, 7, [7])
    m = harness.measure_gapbs(root, "sssp", graph, dict(os.environ), 3, 60)
    assert m.status == "ok" and m.times == [0.004, 0.002, 0.003] and m.median == 0.003
    assert m.load == pytest.approx(0.03)
    assert (root / "argv").read_text().split() == ["-f", "/g.mtx", "-n", "3", "-r", "7",
                                                   "-d", "2"]
    assert harness.measure_gapbs(root, "kcore", graph, dict(os.environ), 3, 60) is None
    missing = harness.measure_gapbs(root, "tc", graph, dict(os.environ), 3, 60)
    assert missing.status == "error" and "not built" in missing.detail

    starc = harness_report.Measurement("opencl", times=[0.006], median=0.006, walls=[0.5],
                                       wall_median=0.5)
    baseline = harness_report.Measurement("baseline", times=[0.002], median=0.002)
    assert harness_report.cell(starc, baseline, m).endswith("(3.0x; 2.0x GAPBS)")
    row = {"kind": "rmat", "scale": 6, "algo": "sssp", "num_nodes": 64, "num_edges": 1024,
           "baseline": asdict(baseline), "gapbs": asdict(m),
           "backends": {"opencl": asdict(starc)}}
    header, _, line = harness_report.markdown_table([row], ["opencl"]).splitlines()
    assert "| GAPBS | opencl |" in header
    assert "| 3.0 ms (load 30.0 ms) | 6.0 ms / 500.0 ms (3.0x; 2.0x GAPBS) |" in line


def test_directed_graphs_are_simple_as_gapbs_builds_them(tmp_path):
    # The same edges as the generator's, without self-loops or repeats (the first repeat's
    # weight kept), in the file the programs and GAPBS both read.
    from starc.graphs import load_graph, rmat
    raw = rmat(8, workloads.EDGE_FACTOR, a=0.57, b=0.19, c=0.19, seed=8, weights=True)
    info = workloads.generate_graph("rmat", 8, "weighted", tmp_path)
    got = load_graph(info.path)
    pairs = list(zip(raw.sources.tolist(), raw.targets.tolist(), raw.weights.tolist()))
    first = {}
    for u, v, w in pairs:
        if u != v:
            first.setdefault((u, v), w)
    assert raw.num_edges > len(first)            # the generator does repeat and loop
    assert info.num_edges == got.num_edges == len(first)
    assert dict(zip(zip(got.sources.tolist(), got.targets.tolist()),
                    got.weights.tolist())) == first


def test_gapbs_pr_can_be_its_jacobi_kernel(tmp_path):
    """--gapbs-pr pr_spmv: GAPBS's double-buffered PageRank, the algorithm of dsl/pr.sp."""
    root = tmp_path / "gapbs"
    root.mkdir()
    for binary in ("pr", "pr_spmv"):
        (root / binary).write_text(f"#!/bin/sh\necho 'Trial Time:          "
                                   f"{'0.001' if binary == 'pr' else '0.002'}'\n")
        (root / binary).chmod(0o755)
    graph = workloads.GraphInfo("rmat", 6, "plain", "/g.mtx", 64, 1024, 7, [7])
    args = harness.parse_args(["--gapbs", str(root), "--gapbs-pr", "pr_spmv"])
    setup = harness.gapbs_kernels(args.gapbs_pr)
    assert harness.measure_gapbs(root, "pr", graph, dict(os.environ), 1, 60).median == 0.001
    assert harness.measure_gapbs(root, "pr", graph, dict(os.environ), 1, 60,
                                 setup).median == 0.002


def test_a_backend_schedule_column_runs_with_its_schedule():
    assert harness.columns(["cuda", "cuda:vertex", "mpi"], [2]) == [
        ("cuda", "cuda", None), ("cuda:vertex", "cuda", None), ("mpi-2", "mpi", 2)]
    assert harness.schedule_of("cuda:vertex") == "vertex" and harness.schedule_of("mpi-2") is None


def test_the_gpu_campaign_refuses_a_machine_without_a_gpu(monkeypatch):
    """bench/gpu.sh runs only where nvidia-smi lists a GPU (the device machine of a session);
    elsewhere it says so and exits 2, writing nothing."""
    import shutil
    import subprocess
    if shutil.which("nvidia-smi"):
        result = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
        if result.returncode == 0 and result.stdout.strip():
            pytest.skip("an NVIDIA GPU is here: the campaign would run")
    root = pathlib.Path(__file__).resolve().parents[2]
    before = (root / "bench" / "RESULTS.md").read_text()
    proc = subprocess.run(["bash", str(root / "bench" / "gpu.sh"), "cuda"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "no NVIDIA GPU here" in proc.stderr
    assert (root / "bench" / "RESULTS.md").read_text() == before


def test_a_prebuilt_column_runs_programs_built_elsewhere_against_the_baseline(tmp_path):
    """--prebuilt COLUMN=DIR runs DIR/ALGO, a program starc built before (bench/gpu.sh runs
    OpenACC offloaded to a GPU from programs built where g++'s nvptx compiler is): here the
    OpenACC program built for this machine's host, checked against the OpenMP baseline."""
    import shutil
    import subprocess
    if not shutil.which("g++"):
        pytest.skip("no g++ here to build the OpenACC program (toolchain missing)")
    build = tmp_path / "build"
    proc = subprocess.run([sys.executable, "-m", "starc", "build", str(ROOT / "dsl" / "sssp.sp"),
                           "-b", "openacc", "--openacc-target", "host", "-o", str(build)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "prebuilt"
    folder.mkdir()
    shutil.copy(build / "sssp", folder / "sssp")
    status = harness.main(["--scales", "6", "--kinds", "rmat", "--algos", "sssp", "bfs",
                           "--backends", "openacc:binned", "--repeat", "1",
                           "--prebuilt", f"openacc:binned={folder}", "--out", str(tmp_path)])
    assert status == 0
    report = json.loads((tmp_path / "results.json").read_text())
    sssp, bfs = report["rows"]
    assert sssp["backends"]["openacc:binned"]["status"] == "ok", sssp["backends"]
    assert sssp["backends"]["openacc:binned"]["median"] > 0
    missing = bfs["backends"]["openacc:binned"]
    assert missing["status"] == "error" and "no prebuilt program" in missing["detail"]
    for bad in ("openacc", f"mpi={folder}", f"openacc={tmp_path / 'none'}"):
        assert harness.main(["--scales", "6", "--algos", "sssp", "--prebuilt", bad,
                             "--out", str(tmp_path)]) == 2


def test_the_baselines_wait_policy_is_not_the_programs(tmp_path):
    """--wait-policy active spins the baselines' threads; a generated program runs under
    --backend-wait-policy (default passive), or its host's OpenMP threads would spin on the
    cores its device's threads need (bench/RESULTS.md, "Session 64")."""
    folder = tmp_path / "prebuilt"
    folder.mkdir()
    seen = tmp_path / "policy"
    fake = folder / "sssp"
    fake.write_text(f"#!/bin/sh\necho \"$OMP_WAIT_POLICY\" >> {seen}\n")
    fake.chmod(0o755)
    for policy, expected in ((["--wait-policy", "active"], "passive"),
                             (["--backend-wait-policy", "active"], "active")):
        seen.unlink(missing_ok=True)
        harness.main(["--scales", "6", "--kinds", "rmat", "--algos", "sssp", "--repeat", "1",
                      "--backends", "opencl", "--prebuilt", f"opencl={folder}", *policy,
                      "--out", str(tmp_path)])
        assert set(seen.read_text().split()) == {expected}
