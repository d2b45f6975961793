"""Data-driven fixedPoint (issue 15, item 1) on every backend against the reference, on graphs
big enough for sparse rounds (a queue of at most n/20 vertices) as well as dense ones: a long
weighted path (one active vertex per round), a random graph, a two-level star (a round
with every leaf active) and a levelled tree whose rounds go sparse -> dense -> sparse -> dense
and end on a dense round, plus the program that keeps the topology-driven form.

CI time: each (program, backend) is one build (run on every graph, each way), so programs x
backends is covered by a cyclic half of the product (``CASES_RUN``): every program on two
backends, every backend (MPI at 2 ranks) with two programs, sssp and cc on MPI."""

from __future__ import annotations

import functools
import pathlib
import random

import pytest

from starc.analysis.frontier import DENSE_DIVISOR
from starc.results import compare_results

from e2e_cases import compile_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "e2e" / "programs"
BACKENDS = [pytest.param("opencl", None, marks=pytest.mark.opencl, id="opencl"),
            pytest.param("sycl", None, marks=pytest.mark.sycl, id="sycl"),
            pytest.param("openacc", None, marks=pytest.mark.openacc, id="openacc"),
            pytest.param("mpi", 2, marks=pytest.mark.mpi, id="mpi-2")]
#: program -> (path, run parameters)
CASES = {"sssp": (ROOT / "dsl" / "sssp.sp", {"src": "0"}),
         "cc": (ROOT / "dsl" / "cc.sp", {}),
         "frontier_reach": (PROGRAMS / "frontier_reach.sp", {"src": "0"}),
         "frontier_unsafe": (PROGRAMS / "frontier_unsafe.sp", {"src": "0"})}


def _graphs(directory: pathlib.Path):
    rng = random.Random(15)
    n = 400
    path = [f"{v} {v + 1} {rng.randint(1, 9)}" for v in range(n - 1)]
    # shortcuts that improve distances late: later rounds re-activate few vertices
    path += [f"{v} {v + 37} 300" for v in range(0, n - 37, 41)]
    sparse = {f"{rng.randrange(1000)} {rng.randrange(1000)}" for _ in range(2500)}
    rand = [f"{e} {rng.randint(1, 20)}" for e in sorted(sparse)]
    star = [f"0 {v} {rng.randint(1, 5)}" for v in range(1, 300)]
    star += [f"{v} {300 + v % 50} {rng.randint(1, 5)}" for v in range(1, 300)]
    files = {}
    for name, lines in (("path", path), ("random", rand), ("star", star),
                        ("levels", _levels())):
        file = directory / f"{name}.el"
        file.write_text("\n".join(lines) + "\n")
        files[name] = file
    return files


#: the levelled tree: 0 -> 1..100; k -> 100 + k for k = 1..5; 100 + k -> 20 children each;
#: vertex 399 (and 398) pad n to 400 without being reachable from 0
LEVELS = 400


def _levels():
    lines = [f"0 {v} 1" for v in range(1, 101)] + [f"{k} {100 + k} 1" for k in range(1, 6)]
    lines += [f"{100 + k} {106 + 20 * (k - 1) + j} 1" for k in range(1, 6) for j in range(20)]
    return lines + [f"{LEVELS - 1} {LEVELS - 2} 1"]


def test_the_levelled_tree_drives_dense_and_sparse_rounds():
    """Rounds of ``frontier_reach`` (and unit-weight sssp) from 0 run over its BFS levels,
    each vertex with one parent (no racing flips, so dense counts are exact): level sizes
    1, 100, 5, 100 against n/20 = 20 make the rounds sparse, dense (whose count, 5, sends the
    flags through the compaction kernel), sparse, dense (which flips nothing: the exit)."""
    children = {}
    for line in _levels():
        a, b, _ = map(int, line.split())
        children.setdefault(a, []).append(b)
    level, sizes, seen = [0], [], {0}
    while level:
        sizes.append(len(level))
        level = [w for v in level for w in children.get(v, ()) if w not in seen]
        seen.update(level)
    assert sizes == [1, 100, 5, 100]
    dense = [size > LEVELS // DENSE_DIVISOR for size in sizes]
    assert dense == [False, True, False, True]


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return _graphs(tmp_path_factory.mktemp("frontier"))


@functools.lru_cache(maxsize=None)
def _expected(name: str, file, undirected: bool):
    return _compiled(name, "reference").run(file, undirected=undirected, **CASES[name][1])


@functools.lru_cache(maxsize=None)
def _compiled(name: str, backend: str, ranks=None):
    path = str(CASES[name][0])
    return compile_for(path, backend, ranks)


#: (program, backend): backend j runs programs j and j + 1 (of the sorted names, cyclically)
CASES_RUN = [pytest.param(name, *backend.values, marks=backend.marks, id=f"{name}-{backend.id}")
             for j, backend in enumerate(BACKENDS)
             for name in (sorted(CASES)[j % len(CASES)], sorted(CASES)[(j + 1) % len(CASES)])]


@pytest.mark.parametrize("name, backend, ranks", CASES_RUN)
def test_data_driven_rounds_agree_with_the_reference(name, backend, ranks, graph_files):
    params = CASES[name][1]
    for graph, file in graph_files.items():
        for undirected in (False, True):
            expected = _expected(name, file, undirected)
            actual = _compiled(name, backend, ranks).run(file, undirected=undirected, **params)
            problems = compare_results(expected, actual)
            assert not problems, f"{name} on {graph} ({backend}, undirected={undirected}):\n" \
                + "\n".join(problems)
