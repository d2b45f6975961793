"""The hand-written OpenMP baselines (bench/baselines/*.cpp) against independent oracles.

Each baseline is compiled once (module fixture, all eight in parallel) with the flags the
benchmark uses and run with two threads on small graphs: a weighted R-MAT graph (repeated edges
and self-loops included), a weighted grid and a graph with isolated vertices. The oracles are
networkx (Dijkstra, BFS, weakly connected components, triangles, core numbers, subset
betweenness) and numpy (PageRank), plus a threshold-reachability oracle for widest paths.
"""

from __future__ import annotations

import collections
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from starc.graphs import Graph, grid, rmat
from starc.graphs.writers import write_graph

nx = pytest.importorskip("networkx")

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ROOT / "bench" / "baselines"
RUNTIME = ROOT / "starc" / "backends" / "common" / "runtime"
ALGORITHMS = ("pr", "sssp", "tc", "bc", "bfs", "cc", "sswp", "kcore")
FLAGS = ["-O3", "-march=native", "-fopenmp", "-std=c++17", "-Wall", "-Wextra", "-Werror"]
INF = 2147483647


def _openmp_compiler():
    """g++ if it exists and links an OpenMP program, else None."""
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    return cxx


@pytest.fixture(scope="module")
def binaries(tmp_path_factory):
    cxx = _openmp_compiler()
    if cxx is None:
        pytest.skip("g++ with OpenMP not found")
    out = tmp_path_factory.mktemp("baselines")
    probe = out / "probe.cpp"
    probe.write_text("#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
    if subprocess.run([cxx, "-fopenmp", str(probe), "-o", str(out / "probe")],
                      capture_output=True).returncode != 0:
        pytest.skip("g++ with OpenMP not found")
    jobs = {name: subprocess.Popen([cxx, *FLAGS, "-I", str(RUNTIME), "-o", str(out / name),
                                    str(SOURCES / f"{name}.cpp")],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for name in ALGORITHMS}
    failures = []
    for name, job in jobs.items():
        log, _ = job.communicate()
        if job.returncode != 0:
            failures.append(f"{name}.cpp:\n{log}")
    assert not failures, "baseline failed to compile:\n" + "\n".join(failures)
    return out


def run_baseline(binaries, name, graph_path, *args):
    """Run a baseline with two threads; returns ({property: {vertex: text}}, return text)."""
    env = dict(os.environ, OMP_NUM_THREADS="2")
    proc = subprocess.run([str(binaries / name), str(graph_path), *map(str, args), "--time"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert any(line.startswith("starc-time ") for line in proc.stderr.splitlines())
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("# starc results: ") and "backend=openmp-baseline" in lines[0]
    props, returned = collections.defaultdict(dict), None
    for line in lines[1:]:
        parts = line.split()
        if parts[0] == "return":
            returned = parts[1]
        else:
            props[parts[0]][int(parts[1])] = parts[2]
    return props, returned


def as_ints(values, n):
    assert sorted(values) == list(range(n))
    return np.array([int(values[v]) for v in range(n)], dtype=np.int64)


def as_floats(values, n):
    assert sorted(values) == list(range(n))
    return np.array([float(values[v]) for v in range(n)])


def with_isolated() -> Graph:
    """40 vertices, random weighted edges among 30 of them; 10 (the last included) isolated."""
    rng = np.random.default_rng(7)
    used = np.sort(rng.permutation(39)[:30])
    src, dst = used[rng.integers(0, 30, 70)], used[rng.integers(0, 30, 70)]
    return Graph.from_edges(40, src, dst, rng.integers(1, 20, 70).astype(float), True, "isolated")


GRAPHS = {
    "rmat6": lambda: rmat(6, 8, seed=3, weights=True),
    "grid": lambda: grid(5, 7, seed=1, weights=True),
    "isolated": with_isolated,
}


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def case(request, tmp_path_factory):
    graph = GRAPHS[request.param]()
    # Matrix Market keeps the vertex count when the highest ids are isolated.
    suffix = ".mtx" if request.param == "isolated" else ".el"
    path = tmp_path_factory.mktemp("graphs") / f"{request.param}{suffix}"
    write_graph(graph, path)
    return graph, path


def digraph(graph: Graph, weighted: bool = True):
    """A networkx DiGraph; parallel edges keep the smallest weight."""
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.num_nodes))
    weights = graph.weights if graph.weights is not None else np.ones(graph.num_edges)
    for u, v, w in zip(graph.sources.tolist(), graph.targets.tolist(), weights.tolist()):
        if not g.has_edge(u, v) or w < g[u][v]["weight"]:
            g.add_edge(u, v, weight=w)
    return g


def hub(graph: Graph) -> int:
    return int(np.argmax(graph.out_degree()))


def test_sssp_matches_dijkstra(binaries, case):
    graph, path = case
    src = hub(graph)
    props, _ = run_baseline(binaries, "sssp", path, "--src", src)
    expected = np.full(graph.num_nodes, INF)
    for v, d in nx.single_source_dijkstra_path_length(digraph(graph), src).items():
        expected[v] = int(d)
    assert np.array_equal(as_ints(props["dist"], graph.num_nodes), expected)


def test_sswp_matches_threshold_reachability(binaries, case):
    graph, path = case
    src = hub(graph)
    props, _ = run_baseline(binaries, "sswp", path, "--src", src)
    # The widest-path width of t is the largest T such that t is reachable with edges >= T.
    expected = np.zeros(graph.num_nodes, dtype=np.int64)
    for threshold in sorted(set(graph.weights.astype(int).tolist())):
        keep = graph.weights >= threshold
        g = nx.DiGraph()
        g.add_nodes_from(range(graph.num_nodes))
        g.add_edges_from(zip(graph.sources[keep].tolist(), graph.targets[keep].tolist()))
        for v in nx.descendants(g, src):
            expected[v] = threshold
    expected[src] = INF
    assert np.array_equal(as_ints(props["width"], graph.num_nodes), expected)


def test_bfs_matches_networkx(binaries, case):
    graph, path = case
    src = hub(graph)
    props, _ = run_baseline(binaries, "bfs", path, "--src", src)
    expected = np.full(graph.num_nodes, -1)
    for v, d in nx.single_source_shortest_path_length(digraph(graph), src).items():
        expected[v] = d
    assert np.array_equal(as_ints(props["level"], graph.num_nodes), expected)


def test_cc_is_min_id_of_weak_component(binaries, case):
    graph, path = case
    props, _ = run_baseline(binaries, "cc", path)
    expected = np.zeros(graph.num_nodes, dtype=np.int64)
    for component in nx.weakly_connected_components(digraph(graph)):
        expected[list(component)] = min(component)
    assert np.array_equal(as_ints(props["comp"], graph.num_nodes), expected)


def test_tc_counts_triangles_with_edge_multiplicity(binaries, case):
    graph, path = case
    _, returned = run_baseline(binaries, "tc", path, "--undirected")
    # dsl/tc.sp counts, at the middle vertex v of u < v < w, every copy of v-u times every copy
    # of v-w; on a simple graph that is the plain triangle count.
    multiplicity = collections.Counter()
    for u, v in zip(graph.sources.tolist(), graph.targets.tolist()):
        if u != v:
            multiplicity[u, v] += 1
            multiplicity[v, u] += 1
    simple = nx.Graph(list(multiplicity))
    simple.add_nodes_from(range(graph.num_nodes))
    expected = 0
    for clique in nx.enumerate_all_cliques(simple):
        if len(clique) == 3:
            u, v, w = sorted(clique)
            expected += multiplicity[v, u] * multiplicity[v, w]
        elif len(clique) > 3:
            break
    if all(count == 2 for count in multiplicity.values()):  # each undirected edge once
        assert expected == sum(nx.triangles(simple).values()) // 3
    assert int(returned) == expected


def simple_symmetric(graph: Graph) -> Graph:
    """One copy of every undirected edge {u, v}, u != v (the file is read with --undirected)."""
    pairs = sorted({(min(u, v), max(u, v)) for u, v in zip(graph.sources.tolist(), graph.targets.tolist())
                    if u != v})
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    return Graph.from_edges(graph.num_nodes, src, dst, None, True, "simple")


@pytest.mark.parametrize("k", [2, 3, 4])
def test_kcore_matches_core_numbers(binaries, case, tmp_path, k):
    graph = simple_symmetric(case[0])
    path = tmp_path / "simple.mtx"
    write_graph(graph, path)
    props, returned = run_baseline(binaries, "kcore", path, "--k", k, "--undirected")
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from(zip(graph.sources.tolist(), graph.targets.tolist()))
    core = nx.core_number(g)
    expected = np.array([int(core[v] >= k) for v in range(graph.num_nodes)])
    assert np.array_equal(as_ints(props["inCore"], graph.num_nodes), expected)
    assert int(returned) == int(expected.sum())


@pytest.mark.parametrize("undirected", [False, True])
def test_bc_matches_subset_betweenness(binaries, case, tmp_path, undirected):
    graph = simple_symmetric(case[0]) if undirected else case[0]
    if not undirected:  # networkx counts paths in a simple digraph: drop repeats and loops
        pairs = sorted(set(zip(graph.sources.tolist(), graph.targets.tolist())))
        pairs = [p for p in pairs if p[0] != p[1]]
        graph = Graph.from_edges(graph.num_nodes, np.array([p[0] for p in pairs], dtype=np.int64),
                                 np.array([p[1] for p in pairs], dtype=np.int64))
    path = tmp_path / "bc.mtx"
    write_graph(graph, path)
    sources = sorted({hub(graph), 0, graph.num_nodes - 1, graph.num_nodes // 2})
    args = ["--sourceSet", ",".join(map(str, sources))] + (["--undirected"] if undirected else [])
    props, _ = run_baseline(binaries, "bc", path, *args)
    g = nx.Graph() if undirected else nx.DiGraph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from(zip(graph.sources.tolist(), graph.targets.tolist()))
    expected = nx.betweenness_centrality_subset(g, sources, list(g), normalized=False)
    scale = 2.0 if undirected else 1.0  # networkx halves undirected pair counts
    expected = np.array([expected[v] * scale for v in range(graph.num_nodes)])
    assert np.allclose(as_floats(props["BC"], graph.num_nodes), expected, rtol=1e-5, atol=1e-5)


def numpy_pagerank(graph: Graph, beta: float, delta: float, max_iter: int) -> np.ndarray:
    n = graph.num_nodes
    out_degree = graph.out_degree().astype(np.float64)
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        contribution = np.divide(rank, out_degree, out=np.zeros(n), where=out_degree > 0)
        new = (1 - delta) / n + delta * np.bincount(graph.targets, contribution[graph.sources],
                                                    minlength=n)
        diff = np.abs(new - rank).sum()
        rank = new
        if diff <= beta:
            break
    return rank


@pytest.mark.parametrize("beta, max_iter", [(0.0, 30), (1e-4, 100)])
def test_pr_matches_numpy(binaries, case, beta, max_iter):
    graph, path = case
    props, _ = run_baseline(binaries, "pr", path, "--beta", beta, "--delta", 0.85,
                            "--maxIter", max_iter)
    expected = numpy_pagerank(graph, beta, 0.85, max_iter)
    # float32 against float64; with beta > 0 the two may stop one round apart.
    tolerance = 1e-6 if beta == 0 else beta
    assert np.allclose(as_floats(props["pageRank"], graph.num_nodes), expected, rtol=1e-4,
                       atol=tolerance)


def test_usage_errors_follow_the_contract(binaries, case):
    _, path = case
    proc = subprocess.run([str(binaries / "sssp"), str(path)], capture_output=True, text=True)
    assert proc.returncode == 2 and "--src" in proc.stderr
    unweighted = path.parent / "unweighted.el"
    unweighted.write_text("0 1\n1 2\n")
    proc = subprocess.run([str(binaries / "sssp"), str(unweighted), "--src", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "weights" in proc.stderr


@pytest.mark.parametrize("name, args", [("kcore", ("--undirected", "--k", "3")),
                                        ("tc", ("--undirected",)), ("cc", ())])
def test_trials_time_every_run_and_print_one_runs_results(binaries, case, name, args):
    """--trials N, as the generated programs take it (the harness times both alike)."""
    _, path = case
    outputs = []
    for trials in (1, 3):
        proc = subprocess.run([str(binaries / name), str(path), *args, "--time", "--trials",
                               str(trials)], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, OMP_NUM_THREADS="2"))
        assert proc.returncode == 0, proc.stderr
        assert sum(line.startswith("starc-time ") for line in proc.stderr.splitlines()) == trials
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
