"""g.randSP and g.combineRandom on every backend (issue 16, item 5): a StarPlat-style graph
colouring and a program that returns its random properties give the reference's results for
--seed 0 and --seed 7; the colouring is valid (checked with networkx); other seeds give other
numbers; the generated command line takes --seed as an optional option."""

from __future__ import annotations

import functools
import pathlib
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
import scipy.io

import starc
from starc.reference.randoms import starc_random
from starc.results import compare_results

from e2e_cases import write_graph_files

# tests/e2e/programs/colouring_randsp.sp: StarPlat's graphColoring style (randSP and
# combineRandom in a host do-while loop), returning the rounds it took.
PROGRAMS_DIR = pathlib.Path(__file__).resolve().parent / "programs"
COLOURING = (PROGRAMS_DIR / "colouring_randsp.sp").read_text()

# The numbers themselves: two draws (the second refills 'again'), a long property, and a
# combine of them.
DRAWS = """\
function draws(Graph g, propNode<int> first, propNode<long> wide, propNode<int> again,
               propNode<long> both) {
    g.randSP(first, wide);
    g.randSP(again);
    g.combineRandom(both, first, again);
}
"""

PROGRAMS = {"colouring": COLOURING, "draws": DRAWS}
BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc),
            pytest.param("mpi", marks=pytest.mark.mpi),
            pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu])]
GRAPHS = ("rmat", "self_loops_dups", "isolated")
SEEDS = ("0", "7")


@functools.lru_cache(maxsize=None)
def compiled(name, backend):
    return starc.compile(PROGRAMS[name], backend)


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


def _reference(name, graph_file, seed=None):
    params = {} if seed is None else {"seed": seed}
    return compiled(name, "reference").run(graph_file, undirected=True, **params)


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("seed", SEEDS)
def test_reference_colouring_is_valid(graph, seed, graph_files):
    results = _reference("colouring", graph_files[graph], seed)
    colour = results.props["colour"]
    edges = nx.Graph(_edges(graph_files[graph]))
    assert colour.min() >= 0 and colour.max() < results.ret
    clashes = [(u, w) for u, w in edges.edges() if u != w and colour[u] == colour[w]]
    assert not clashes, f"neighbours share a colour: {clashes[:5]}"


def _edges(path):
    """The graph's edges from its file, read independently of starc (scipy for .mtx)."""
    if str(path).endswith(".mtx"):
        matrix = scipy.io.mmread(str(path)).tocoo()
        return list(zip(matrix.row.tolist(), matrix.col.tolist()))
    pairs = []
    for line in open(path):
        words = line.split()
        if words and words[0][0] not in "#%":
            pairs.append((int(words[0]), int(words[1])))
    return pairs


@pytest.mark.parametrize("graph", ("rmat", "isolated"))
def test_reference_draws_are_the_defined_numbers(graph, graph_files):
    for seed in (None, "7"):
        results = _reference("draws", graph_files[graph], seed)
        s = int(seed or 0)
        v = np.arange(len(results.props["first"]))
        assert np.array_equal(results.props["first"], starc_random(s, 0, 0, v))
        assert np.array_equal(results.props["wide"], starc_random(s, 0, 1, v))
        assert np.array_equal(results.props["again"], starc_random(s, 1, 0, v))
        assert np.array_equal(results.props["both"],
                              starc_random(s, 0, 0, v).astype(np.int64) * 2 ** 32
                              + starc_random(s, 1, 0, v))


def test_other_seeds_give_other_numbers_and_the_default_is_zero(graph_files):
    path = graph_files["rmat"]
    zero, seven = _reference("draws", path, "0"), _reference("draws", path, "7")
    assert not compare_results(zero, _reference("draws", path))
    assert compare_results(zero, seven)
    assert not np.array_equal(zero.props["first"], seven.props["first"])
    colour = [_reference("colouring", path, seed).props["prio"] for seed in SEEDS]
    assert not np.array_equal(*colour)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_random_programs_agree_with_reference(name, backend, graph_files):
    """One case a build (CI time: a case per graph and seed let pytest-xdist's two workers
    build one program twice), run on every graph with every seed."""
    failures = []
    for graph in GRAPHS:
        for seed in SEEDS:
            expected = _reference(name, graph_files[graph], seed)
            actual = compiled(name, backend).run(graph_files[graph], undirected=True,
                                                 seed=seed)
            problems = compare_results(expected, actual)
            if problems:
                failures.append(f"{name} on {graph} --seed {seed} ({backend}):\n"
                                + "\n".join(problems))
    assert not failures, "\n".join(failures)


@pytest.mark.openacc
def test_generated_command_line_takes_an_optional_seed(tmp_path, graph_files):
    source = tmp_path / "draws.sp"
    source.write_text(DRAWS)
    built = subprocess.run([sys.executable, "-m", "starc", "build", str(source), "-b", "openacc",
                            "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    program = str(tmp_path / "out" / "draws")
    shown = subprocess.run([program, "--help"], capture_output=True, text=True)
    assert "[--seed INT]" in shown.stdout and "(default 0)" in shown.stdout
    bad = subprocess.run([program, str(graph_files["rmat"]), "--seed", "x"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--seed expects an integer (64-bit), got 'x'" in bad.stderr
    runs = [subprocess.run([program, str(graph_files["rmat"])] + extra, capture_output=True,
                           text=True).stdout for extra in ([], ["--seed", "0"], ["--seed", "7"])]
    assert runs[0] == runs[1] != runs[2]


@pytest.mark.cuda
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_cuda_builds_the_random_programs(name, tmp_path):
    """Where no GPU runs them (the agreement test above needs one), nvcc still compiles
    starc_random and the kernels that call it."""
    source = tmp_path / f"{name}.sp"
    source.write_text(PROGRAMS[name])
    built = subprocess.run([sys.executable, "-m", "starc", "build", str(source), "-b", "cuda",
                            "--gpu-arch", "sm_75", "-o", str(tmp_path / "out")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert (tmp_path / "out" / name).is_file()
