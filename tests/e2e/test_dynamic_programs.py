"""Dynamic programs on the device backends (issue 31): dsl/dynamic/{dyn_sssp,dyn_pr,dyn_tc}.sp
run from the shared lowering (a host loop over batches, the graph changed in place, OnDelete /
OnAdd kernels over the batch's updates) give the reference's results: on OpenCL on skewed,
regular and lattice graphs with generated update streams and several batch sizes, on OpenACC
(g++ -fopenacc), SYCL (the host test double) and CUDA (with a GPU) on two of them; after the
last batch, dyn_sssp's distances are also scipy's on the graph the stream leaves. Bad update
files stop the reference and OpenCL with the same located message.

CI time: the reference's results are computed once per program, graph and batch size for all
backends; the programs of edge weights (carried, bumped by a kernel, read through the reverse
edge ids) x the CPU-run backends (OpenCL, OpenACC, SYCL) are covered by two thirds of the
product, a build a case: each program on two of them, each of them with two programs (CUDA,
with a GPU, with all three)."""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import starc
from starc.backends.base import BuiltProgram
from starc.graphs import grid, load_graph, rmat, uniform, write_edge_list
from starc.graphs.updates import ADD, DELETE, add_edges, delete_edges, generate_updates, \
    read_updates, write_updates
from starc.results import compare_results

from nvcc_builds import cuda_build

ROOT = pathlib.Path(__file__).resolve().parents[2]
DYNAMIC = ROOT / "dsl" / "dynamic"
PR = {"beta": "0.000001", "delta": "0.85", "maxIter": "100"}

#: the backends besides OpenCL that run Dynamic programs, each where its toolchain is here
OTHER_BACKENDS = [pytest.param("openacc", marks=pytest.mark.openacc),
                  pytest.param("sycl", marks=pytest.mark.sycl),
                  pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu])]


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str):
    return starc.compile(str(DYNAMIC / f"{name}.sp"), backend)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """name -> (graph path, update stream path, whether the run is --undirected)."""
    folder = tmp_path_factory.mktemp("dynamic")
    made = {}
    for name, graph, undirected in [
            ("rmat", rmat(8, 8, seed=3, weights=True), False),
            ("uniform", uniform(150, 5, seed=4, weights=True), False),
            ("grid", grid(10, 12, seed=5, weights=True), True)]:
        path = folder / f"{name}.el"
        write_edge_list(graph, path)
        loaded = load_graph(str(path), undirected=undirected)
        stream = generate_updates(loaded, max(8, loaded.num_edges // 10), seed=7, weights=True)
        updates = folder / f"{name}.updates"
        write_updates(updates, stream)
        made[name] = (path, updates, undirected)
    return made


@functools.lru_cache(maxsize=None)
def _reference(name, case, batch, params):
    """The reference's results of ``name`` on ``case`` (once for all backends)."""
    path, updates, undirected = case
    return _compiled(name, "reference").run(path, undirected=undirected, updates=str(updates),
                                            batchSize=batch, **dict(params))


def _agree(name, case, batch, rtol=0.0, atol=0.0, skip=(), backend="opencl", **params):
    """The ``backend`` run's results, checked against the reference's (but ``skip``)."""
    path, updates, undirected = case
    runs = [_reference(name, case, batch, tuple(sorted(params.items()))),
            _compiled(name, backend).run(path, undirected=undirected, updates=str(updates),
                                         batchSize=batch, **params)]
    compared = [dataclasses.replace(run, props={k: v for k, v in run.props.items()
                                                if k not in skip}) for run in runs]
    problems = compare_results(*compared, rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)
    return runs[1]


def _graph_after(path, updates, undirected, batch):
    """The graph the stream leaves, applied batch by batch as the programs do."""
    final = load_graph(str(path), undirected=undirected)
    stream = read_updates(str(updates), final.num_nodes)
    stream = stream.symmetrised() if undirected else stream
    for start in range(0, stream.line_count, batch):
        part = stream.batch(start, start + batch)
        deleted = part.part(DELETE)
        final, _ = delete_edges(final, deleted.src, deleted.dst)
        added = part.part(ADD)
        final, _, _ = add_edges(final, added.src, added.dst, added.weights,
                                added.weights_integral)
    return final


@pytest.mark.opencl
@pytest.mark.parametrize("graph", ["rmat", "uniform", "grid"])
@pytest.mark.parametrize("batch", [1, 17, 100000])
def test_dynamic_sssp_matches_the_reference_and_scipy(cases, graph, batch):
    """Distances exactly; a parent is any vertex a shortest path may come from (parallel
    relaxations pick any of equal ones), so parents are checked for being one."""
    path, updates, undirected = cases[graph]
    got = _agree("dyn_sssp", cases[graph], batch, skip=("parent",), src="0")
    final = _graph_after(path, updates, undirected, batch)
    # parallel edges: the neighbour loop relaxes through each, so the lightest counts
    keys = final.sources.astype(np.int64) * final.num_nodes + final.targets
    order = np.lexsort((final.weights, keys))
    first = order[np.unique(keys[order], return_index=True)[1]]
    weight = dict(zip(keys[first].tolist(), final.weights[first].tolist()))
    matrix = scipy.sparse.csr_matrix((final.weights[first], (final.sources[first],
                                                             final.targets[first])),
                                     shape=(final.num_nodes, final.num_nodes))
    # the oracle of the issue: the static distances on the graph the stream leaves
    expected = scipy.sparse.csgraph.dijkstra(matrix, indices=0)
    dist, parent = got.props["dist"], got.props["parent"]
    reached = np.isfinite(expected)
    assert (dist[reached] == expected[reached]).all()
    for v in range(final.num_nodes):
        p = int(parent[v])
        if v == 0 or not reached[v]:
            assert p == v, (v, p)
        else:
            assert dist[v] == dist[p] + weight[p * final.num_nodes + v], (v, p)


@pytest.mark.opencl
@pytest.mark.parametrize("graph", ["rmat", "grid"])
@pytest.mark.parametrize("batch", [5, 40])
def test_dynamic_pagerank_matches_the_reference(cases, graph, batch):
    _agree("dyn_pr", cases[graph], batch, rtol=1e-4, atol=1e-6, **PR)


@pytest.mark.opencl
@pytest.mark.parametrize("batch", [1, 9, 60])
def test_dynamic_triangle_count_matches_the_reference(cases, batch):
    got = _agree("dyn_tc", cases["grid"], batch)
    assert got.ret == int(got.props["count"].sum())


def _run(backend, graph, updates, *extra):
    proc = subprocess.run([sys.executable, "-m", "starc", "run", str(DYNAMIC / "dyn_sssp.sp"),
                           "-b", backend, "--graph", str(graph), "--updates", str(updates),
                           "--src", "0", *extra],
                          capture_output=True, text=True)
    return proc.returncode, proc.stderr, proc.stdout


@pytest.mark.opencl
@pytest.mark.parametrize("text, message", [
    ("a 1 2 5\nx 3 4\n", ":2: an update starts with 'a' (add) or 'd' (delete), not 'x'"),
    ("a 1 2 5\nd 3 99999\n", ":2: target id 99999 is not a vertex of the graph"),
    ("d 1 2\na 1 2\n", ": the additions carry no weights, and DynSSSP needs edge weights for "
                       "'weight' (write 'a u v w')"),
    # an int weight takes what a graph file's may: a whole number that fits
    ("a 1 2 5\n# a comment\n\na 3 4 5.5\n",
     ":4: weight '5.5': DynSSSP needs integer edge weights for 'weight' (propEdge<int>) but "),
    ("a 1 2 5.0\nd 3 4\na 1 2 99999999999\n",
     ":3: weight '99999999999': DynSSSP: a weight of "),
])
def test_bad_update_files_stop_both_at_the_same_line(cases, tmp_path, text, message):
    bad = tmp_path / "bad.updates"
    bad.write_text(text)
    for backend in ("reference", "opencl"):
        status, err, _ = _run(backend, cases["uniform"][0], bad, "--batchSize", "2")
        assert status == 1, (backend, err)
        assert f"{bad}{message}" in err, (backend, err)
        assert "Traceback" not in err


@pytest.mark.opencl
def test_a_batch_size_below_one_stops_both_at_the_batch(cases):
    path, updates, _ = cases["uniform"]
    lines = (DYNAMIC / "dyn_sssp.sp").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "Batch (updateBatch" in text)
    for backend in ("reference", "opencl"):
        status, err, _ = _run(backend, path, updates, "--batchSize", "0")
        assert status == 1, (backend, err)
        assert f"{DYNAMIC / 'dyn_sssp.sp'}:{line}:5: runtime error: the batch size is 0; " \
               "it must be at least 1" in err, (backend, err)


@pytest.mark.opencl
def test_every_trial_starts_from_the_input_graph(cases):
    """--trials 3: the host restores the input graph before each trial's clock, so the
    results are one trial's."""
    path, updates, _ = cases["rmat"]
    status, err, once = _run("opencl", path, updates, "--batchSize", "9")
    assert status == 0, err
    status, err, thrice = _run("opencl", path, updates, "--batchSize", "9", "--trials", "3",
                               "--time")
    assert status == 0, err
    assert err.count("starc-time ") == 3
    assert [line for line in thrice.splitlines() if line.startswith("dist ")] == \
        [line for line in once.splitlines() if line.startswith("dist ")]
    # each trial's time applying its batches to the graph, a part of its time in the Batch
    # loop, itself a part of its starc-time (the rest: the static part)
    times, updates_times = _seconds(err, "starc-time"), _seconds(err, "starc-update-time")
    batch_times = _seconds(err, "starc-batch-time")
    assert len(updates_times) == len(batch_times) == 3 and all(
        0 < u < b < t for u, b, t in zip(updates_times, batch_times, times)), err
    status, err, _ = _run("opencl", path, _empty_stream(path), "--batchSize", "9", "--time")
    assert status == 0 and _seconds(err, "starc-update-time") == [0.0], err
    [empty_batches], [empty_time] = _seconds(err, "starc-batch-time"), _seconds(err, "starc-time")
    assert 0 <= empty_batches < empty_time, err


def _seconds(stderr: str, tag: str):
    return [float(line.split()[1]) for line in stderr.splitlines() if line.startswith(tag + " ")]


def _empty_stream(graph: pathlib.Path) -> pathlib.Path:
    empty = graph.with_name("empty.updates")
    empty.write_text("")
    return empty


@pytest.mark.parametrize("backend", OTHER_BACKENDS)
@pytest.mark.parametrize("graph, batch", [("rmat", 13), ("grid", 40)])
def test_the_other_backends_run_the_dynamic_programs_as_the_reference(cases, backend, graph,
                                                                      batch):
    """The shared lowering's batch operations printed by each C++ host backend."""
    _agree("dyn_sssp", cases[graph], batch, skip=("parent",), backend=backend, src="0")
    _agree("dyn_pr", cases[graph], batch, rtol=1e-4, atol=1e-6, backend=backend, **PR)
    if cases[graph][2]:       # an undirected run: a triangle count
        _agree("dyn_tc", cases[graph], batch, backend=backend)


@pytest.mark.cuda
def test_a_cuda_program_reads_the_stream_before_the_gpu(cases, tmp_path):
    """nvcc builds dyn_sssp (sm_75, starc's default: test_cuda_build's build of it, shared
    through the build cache); the built program rejects a bad update file as OpenCL's does, on
    a machine with no GPU too (the stream is read with the command line)."""
    built = cuda_build(DYNAMIC / "dyn_sssp.sp")
    assert isinstance(built, BuiltProgram), str(built)
    bad = tmp_path / "bad.updates"
    bad.write_text("a 1 2 5\nx 3 4\n")
    proc = subprocess.run(built.argv_prefix + [str(cases["uniform"][0]), "--updates",
                                               str(bad), "--batchSize", "2", "--src", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{bad}:2: an update starts with 'a' (add) or 'd' (delete), not 'x'" in proc.stderr


def _assert_weight_sums(cases, program, text: str, backend: str, endpoint: str) -> None:
    """Runs ``text`` over the R-MAT case's stream in batches of 31 and checks its ``total``:
    per vertex, the sum of the weights of the edges whose ``endpoint`` (``sources``: out-edges,
    ``targets``: in-edges) it is, on the graph the stream leaves, computed with numpy."""
    path, updates, _ = cases["rmat"]
    program.write_text(text)
    got = starc.compile(str(program), backend).run(path, updates=str(updates), batchSize=31)
    final = _graph_after(path, updates, False, 31)
    expected = np.zeros(final.num_nodes, dtype=np.int64)
    np.add.at(expected, getattr(final, endpoint), final.weights.astype(np.int64))
    assert (got.props["total"] == expected).all()


CARRIED = """\
Dynamic Apply(Graph g, propNode<int> total, propEdge<int> weight, updates<g> U, int batchSize) {
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            v.total += e.weight;
        }
    }
}
"""


def _backends(*names):
    """The pytest params of ``names`` among OpenCL and OTHER_BACKENDS (CUDA always)."""
    every = [pytest.param("opencl", marks=pytest.mark.opencl), *OTHER_BACKENDS]
    return [param for param in every if param.values[0] in names + ("cuda",)]


@pytest.mark.parametrize("backend", _backends("opencl", "openacc"))
def test_edge_weights_follow_their_edges_through_the_batches(cases, tmp_path, backend):
    """The weights on the device after every batch: each kept edge's own, each added edge
    its update's (read back, carried to the new ids, uploaded): per vertex, the sum over its
    out-edges of the graph the stream leaves, computed here with numpy."""
    _assert_weight_sums(cases, tmp_path / "carried.sp", CARRIED, backend, "sources")


BUMPED = CARRIED.replace("""    Batch (U : batchSize) {
""", """    Batch (U : batchSize) {
        forall (v in g.nodes()) {
            for (w in g.neighbors(v)) {
                edge e = g.get_edge(v, w);
                e.weight = e.weight + v;
            }
        }
""")


@pytest.mark.parametrize("backend", _backends("opencl", "sycl"))
def test_weights_a_kernel_changes_are_read_back_before_each_update(cases, tmp_path, backend):
    """A kernel adds its vertex to every weight in each batch, before the update: the device's
    weights, not the host's, are carried to the new ids (the plan reads them back, as it does
    not for dyn_sssp's input weights), and the sums equal the reference's."""
    path, updates, _ = cases["rmat"]
    program = tmp_path / "bumped.sp"
    program.write_text(BUMPED)
    runs = [starc.compile(str(program), which).run(path, updates=str(updates), batchSize=31)
            for which in ("reference", backend)]
    problems = compare_results(*runs)
    assert not problems, "\n".join(problems)
    # each kept edge's weight grew once per batch it lived through: the sums differ from
    # the unchanged weights' (so an update carrying the host's stale copy would be caught)
    final = _graph_after(path, updates, False, 31)
    unchanged = np.zeros(final.num_nodes, dtype=np.int64)
    np.add.at(unchanged, final.sources, final.weights.astype(np.int64))
    assert (runs[1].props["total"] != unchanged).any()


PULLED = CARRIED.replace("""        for (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);""", """        for (w in g.nodes_to(v)) {
            edge e = g.get_edge(w, v);""")


@pytest.mark.parametrize("backend", _backends("openacc", "sycl"))
def test_in_edge_weights_read_through_the_kept_reverse_edge_ids(cases, tmp_path, backend):
    """A program that reads each in-edge's weight through the reverse CSR's edge ids (so the
    host keeps renumbering them; dyn_sssp's updates do not): per vertex, the sum over its
    in-edges of the graph the stream leaves, computed here with numpy."""
    _assert_weight_sums(cases, tmp_path / "pulled.sp", PULLED, backend, "targets")
