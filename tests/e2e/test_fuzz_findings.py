"""The five classes of issue 32 (found by differential fuzzing) and later fuzz findings, each as
a small program with its answer worked out by hand: the backends give that answer, or the same located error.

Backends per finding (CI time: each case is a build of 7 to 14 s): the reference (no build),
the backend the finding was found on, and one more, rotated so that every compiled backend
runs at least two of the programs (program x backend covered by a rotation, not in full);
the nvcc strict build (-Werror) for the findings that are shapes a C++ compiler warns about
(constants at the range's edges, a comparison of a value with itself, a program without a
kernel). Before: every program on every backend and through nvcc (30 builds).
"""

from __future__ import annotations

import pathlib

import pytest

import starc
from starc.diagnostics import CompileError

from e2e_cases import build_with_nvcc

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
_MARKED = {"opencl": pytest.param("opencl", marks=pytest.mark.opencl),
           "sycl": pytest.param("sycl", marks=pytest.mark.sycl),
           "openacc": pytest.param("openacc", marks=pytest.mark.openacc),
           "mpi": pytest.param("mpi", marks=pytest.mark.mpi)}


def backends(found_on, other):
    """The reference, the backend(s) the finding was found on and one other backend."""
    return ["reference", *(_MARKED[name] for name in (*found_on, other) if name in _MARKED)]


# k4: 0->1, 0->2, 0->3, 1->2, 1->3, 2->3, 3->0 (CSR rows sorted by target)
K4 = "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 0\n"


@pytest.fixture(scope="module")
def k4(tmp_path_factory):
    path = tmp_path_factory.mktemp("graphs") / "k4.el"
    path.write_text(K4)
    return path


def _run(name, backend, graph, **params):
    return starc.compile(str(PROGRAMS / f"{name}.sp"), backend).run(graph, **params)


@pytest.mark.parametrize("backend", backends(("reference",), "opencl"))
def test_update_reading_its_target_in_a_sequential_loop(backend, k4):
    """Each step sets v.d = v.d - (v.d + w) = -w: the last neighbour wins (the reference once
    gave -8 at vertex 0). The local: 1*(1+1) = 2, 2*(2+2) = 8, 8*(8+3) = 88."""
    results = _run("self_reading_update", backend, k4)
    assert results.props["d"].tolist() == [-3, -3, -3, 0]
    assert results.props["t"].tolist() == [88, 18, 4, 1]


@pytest.mark.parametrize("backend", backends(("opencl",), "openacc"))
def test_signed_overflow_wraps_in_kernels(backend, k4):
    """INT_MAX + 5 wraps to INT_MIN + 4, below INT_MAX (OpenCL once kept d = INF and
    wrapped = 0); LLONG_MAX * 2 wraps to -2, so big = 2 + v."""
    results = _run("wrapping_overflow", backend, k4)
    assert results.props["d"].tolist() == [-2 ** 31 + 4] * 4
    assert results.props["wrapped"].tolist() == [True] * 4
    assert results.props["big"].tolist() == [2, 3, 4, 5]
    assert results.ret == 14


@pytest.mark.parametrize("backend", backends(("mpi",), "sycl"))
def test_program_without_a_kernel(backend, k4):
    """s: 3 -> 7 -> 16 -> 35 -> 74 -> 153 (MPI's build once rejected it)."""
    assert _run("no_kernel", backend, k4).ret == 153


@pytest.mark.parametrize("backend", backends(("mpi",), "opencl"))
def test_the_lowest_int_literal_is_an_int(backend, k4):
    """-7 * -2147483648 wraps to INT_MIN in 32 bits; -(INT_MIN) is INT_MIN, plus v; on the
    host, LLONG_MIN - 1 wraps to LLONG_MAX and INT_MIN * 3 to INT_MIN (MPI once computed
    the kernel's product in 64 bits: C's 2147483648 is a long)."""
    results = _run("lowest_literal", backend, k4)
    assert results.props["w"].tolist() == [-2 ** 31] * 4
    assert results.props["a"].tolist() == [-2 ** 31 + v for v in range(4)]
    assert results.ret == 2 ** 63 - 1 - 2 ** 31


@pytest.mark.parametrize("backend", backends(("mpi",), "openacc"))
def test_constant_expressions_that_overflow_wrap(backend, k4):
    """INT_MAX * 2 = -2 (plus v), INT_MAX + 1 = INT_MIN, LLONG_MIN - 1 = LLONG_MAX: a valid
    program that MPI's strict build once refused (-Woverflow under -Werror)."""
    results = _run("constant_overflow", backend, k4)
    assert results.props["a"].tolist() == [-2, -1, 0, 1]
    assert results.ret == 2 ** 63 - 1 - 2 ** 31


@pytest.mark.parametrize("backend", backends(("openacc", "mpi"), "sycl"))
def test_comparisons_of_a_value_with_itself(backend, k4):
    """100 (x >= x) + 2 per vertex (a degree <= itself) + 2 per vertex (Max(a, a) = 2) + 3
    per edge (v / 3 == v / 3); never v != v, w + 1 > w + 1 or 1.5 != 1.5. OpenACC and MPI
    once failed to build."""
    assert _run("self_compare", backend, k4).ret == 100 + 2 * 4 + 2 * 4 + 3 * 7


MIXED = """function Mixed(Graph g, propNode<float> x) {
  g.attachNodeProperty(x = 2.0);
  float acc = 1.0;
  forall (v in g.nodes()) {
    if (v % 2 == 0) { acc *= v.x; } else { acc += v.x; }
  }
  return acc;
}
"""


@pytest.mark.parametrize("backend", ["reference", "opencl", "sycl", "openacc", "mpi",
                                     "cuda"])
def test_operators_that_do_not_commute_are_one_located_error(backend):
    """Reference, OpenCL and OpenACC once returned 22 on a 6-cycle and MPI 14: the result
    depends on the order of the iterations, so the program is refused, before any backend
    builds anything."""
    with pytest.raises(CompileError) as error:
        starc.compile(MIXED, backend)
    [diagnostic] = error.value.diagnostics
    assert (diagnostic.code, diagnostic.loc.line, diagnostic.loc.col) == ("E0402", 5, 44)
    assert "'acc' is updated with '+=' here and with '*=' at line 5" in diagnostic.message


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["wrapping_overflow", "no_kernel", "self_compare",
                                  "constant_overflow"])
def test_programs_build_with_nvcc(name, tmp_path):
    """Where nvcc is (a GPU need not be): the strict build (-Werror all-warnings) of the
    findings a compiler may warn about; self_reading_update and lowest_literal were wrong
    values, which a build without a GPU does not see (CI time: an nvcc build is ~14 s)."""
    build_with_nvcc(PROGRAMS / f"{name}.sp", tmp_path / "build")


@pytest.mark.parametrize("backend", backends(("opencl",), "sycl"))
def test_a_batch_refreshes_row_bounds_that_only_degrees_read(backend, k4, tmp_path):
    """k4's out-degrees 3 2 1 1; batch 1 deletes 0->1 and adds 2->0 (2 2 2 1), batch 2 adds
    2->1 and deletes 3->0 (2 2 3 0). OpenCL's .cl once lacked the int scatter kernel that
    refreshes the touched rows' bounds (the program holds no int slot array)."""
    updates = tmp_path / "u.txt"
    updates.write_text("d 0 1\na 2 0\na 2 1\nd 3 0\n")
    # a Dynamic program: with dsl/dynamic's, apart from the static programs other tests sweep
    program = starc.compile(str(PROGRAMS / "dynamic" / "degrees_on_slack_rows.sp"), backend)
    results = program.run(k4, updates=str(updates), batchSize="2")
    assert results.props["deg"].tolist() == [2, 2, 3, 0]


@pytest.mark.parametrize("backend", backends(("sycl",), "opencl"))
def test_a_graph_without_edges_takes_its_first_edges_in_a_batch(backend, tmp_path):
    """Three vertices, no edge; batch 1 adds 0->1 (5) and 1->2 (2): dist 0 5 7; batch 2
    deletes 0->1 and adds 0->2 (9): dist 0 INF 9, vertex 1 its own parent again. The first
    re-layout of rows with slack left the reverse edge ids unsized (an empty vector was taken
    for ids not kept), and the additions wrote past them: a crash (fuzzed on SYCL, also
    OpenCL's)."""
    graph, updates = tmp_path / "empty.mtx", tmp_path / "u.txt"
    graph.write_text("%%MatrixMarket matrix coordinate integer general\n3 3 0\n")
    updates.write_text("a 0 1 5\na 1 2 2\nd 0 1\na 0 2 9\n")
    dsl = PROGRAMS.parents[2] / "dsl" / "dynamic" / "dyn_sssp.sp"
    results = starc.compile(str(dsl), backend).run(graph, updates=str(updates), batchSize="2",
                                                   src="0")
    assert results.props["dist"].tolist() == [0, 2**31 - 1, 9]
    assert results.props["parent"].tolist() == [0, 1, 0]


@pytest.mark.parametrize("backend", backends(("mpi",), "opencl"))
@pytest.mark.parametrize("edges, lo, hi, spread", [
    # 0->1 (5), 0->2 (3), 1->2 (8), 2->0 (6); vertex 3 has no edge (on 3 ranks, its rank none)
    ([(0, 1, 5), (0, 2, 3), (1, 2, 8), (2, 0, 6)], [3] * 4, [6, 7, 7, 8], 5),
    # no edge at all: INF and -INF, whose difference wraps to 1
    ([], [2 ** 31 - 1] * 4, [-2 ** 31] * 4, 1)])
def test_weight_bounds_are_the_whole_graphs(backend, edges, lo, hi, spread, tmp_path):
    """minWt/maxWt in a forall (every device backend once refused it: E0501) and on the host
    (MPI once gave each rank the bound of its own edges: a vertex on the second rank read 6,
    not 3). Found while extending the differential fuzzer to them."""
    graph = tmp_path / "g.mtx"
    graph.write_text("%%MatrixMarket matrix coordinate integer general\n"
                     f"4 4 {len(edges)}\n" + "".join(f"{s + 1} {t + 1} {w}\n"
                                                     for s, t, w in edges))
    ranks = {"ranks": 3, "oversubscribe": True} if backend == "mpi" else {}
    results = starc.compile(str(PROGRAMS / "weight_bounds.sp"), backend, **ranks).run(graph)
    assert results.props["lo"].tolist() == lo
    assert results.props["hi"].tolist() == hi
    assert results.ret == spread


# w4: 0->1 (5), 1->2 (7), 2->3 (9), 3->0 (6); batch 1 adds 0->2 (3) and deletes 1->2: weights
# 5 3 9 6; batch 2 deletes 2->3 and adds 3->1 (12): weights 5 3 6 12, bounds 3 and 12
W4, W4_UPDATES = "0 1 5\n1 2 7\n2 3 9\n3 0 6\n", "a 0 2 3\nd 1 2\nd 2 3\na 3 1 12\n"


@pytest.fixture
def w4(tmp_path):
    graph, updates = tmp_path / "w4.el", tmp_path / "w4.txt"
    graph.write_text(W4)
    updates.write_text(W4_UPDATES)
    return graph, updates


@pytest.mark.parametrize("backend", backends(("opencl",), "openacc"))
def test_weight_bounds_follow_a_graph_in_rows_with_slack(backend, w4):
    """minWt and maxWt after each batch, with a kernel over the edge ids (a vertex's low: its
    in-degree x minWt) and one with a lockstep variant (Relax). The host's bounds took the
    free slots' weights too (0: return 12000, not 12003), and on a CPU OpenCL device the
    kernel over edge ids read the slots' sources, which only a lockstep device had
    allocated: a crash. Fuzzed on SYCL, also OpenCL's and OpenACC's."""
    graph, updates = w4
    program = starc.compile(str(PROGRAMS / "dynamic" / "weight_bounds_on_slack_rows.sp"),
                            backend)
    results = program.run(graph, updates=str(updates), batchSize="2", src="0")
    assert results.ret == 12003
    assert results.props["low"].tolist() == [3, 6, 3, 0]
    assert results.props["dist"].tolist() == [0, 5, 3, 2**31 - 1]


@pytest.mark.parametrize("backend", backends(("mpi",), "sycl"))
def test_weight_bounds_only_the_host_reads_follow_the_batches(backend, w4):
    """minWt and maxWt where no kernel reads the weights: the host's vector of them was not
    carried through a batch (every device backend: the old edges' bounds, 9005 on MPI), nor,
    on rows with slack, kept to the slots in use."""
    graph, updates = w4
    ranks = {"ranks": 3, "oversubscribe": True} if backend == "mpi" else {}
    program = starc.compile(str(PROGRAMS / "dynamic" / "weight_bounds_on_the_host.sp"),
                            backend, **ranks)
    for size in ("1", "2"):
        assert program.run(graph, updates=str(updates), batchSize=size).ret == 12003


@pytest.mark.parametrize("backend", backends(("mpi",), "openacc"))
def test_an_outer_neighbour_read_only_as_a_range_key(backend, k4):
    """Pairs u < w of v's out-neighbours: 0 has 1 2 3 (3 pairs), 1 has 2 3 (1), 2 and 3 one
    neighbour each. u is read only by the search for w > u in v's sorted row; every C-family
    backend once declared no u ('u' was not declared in this scope). Fuzzed on MPI."""
    results = _run("range_key_only", backend, k4)
    assert results.props["pairs"].tolist() == [3, 1, 0, 0]
    assert results.ret == 4
