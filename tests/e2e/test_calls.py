"""A function calling others (LANGUAGE.md §3) runs on every backend as on the reference: the
device backends inline the calls (starc/analysis/inline.py)."""

from __future__ import annotations

import functools

import pytest

import starc
from starc.results import compare_results

from e2e_cases import write_graph_files

PROGRAM = """\
function bump(Graph h, propNode<long> acc, propNode<bool> seen, int k) {
    int twice = k * 2;
    forall (v in h.nodes()) {
        forall (w in h.neighbors(v)) {
            w.acc += twice;
        }
        v.seen = True;
    }
    k = k + 100;
}
function degree_sum(Graph h, propNode<long> p) {
    long s = 0;
    forall (v in h.nodes()) {
        s += v.p + h.count_outNbrs(v);
    }
    return s;
}
function clamp(long x, long hi) {
    if (x > hi) {
        return hi;
    }
    if (x < 0) {
        return 0;
    }
    return x;
}
function Main(Graph g, propNode<long> acc, propNode<bool> seen, int k) {
    g.attachNodeProperty(acc = 1, seen = False);
    bump(g, acc, seen, k);
    bump(g, acc, seen, k + 1);
    long t = degree_sum(g, acc);
    if (degree_sum(g, acc) > 10) {
        t = t + degree_sum(g, acc) * 1000;
    }
    return clamp(t, 100000) + clamp(k, 2);
}
"""

BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc),
            pytest.param("mpi", marks=pytest.mark.mpi),
            pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu])]


@functools.lru_cache(maxsize=None)
def compiled(backend):
    return starc.compile(PROGRAM, backend, function="Main")


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("graph", ["rmat", "self_loops_dups", "one_vertex", "cycle3"])
def test_calls_agree_with_reference(backend, graph, graph_files):
    expected = compiled("reference").run(graph_files[graph], k=3)
    actual = compiled(backend).run(graph_files[graph], k=3)
    assert expected.ret is not None
    problems = compare_results(expected, actual)
    assert not problems, "\n".join(problems)
