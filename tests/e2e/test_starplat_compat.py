"""StarPlat spellings starc accepts (issue 16) run on every backend with the reference's
answer: ``x++``/``x--`` and ``v.p++`` as statements (counts inside foralls are reductions),
``e.weight`` read from the graph file without a declared ``propEdge`` (item 3), vertex ids
held in ``int`` variables (item 2), checked at run time like any other index.

CI time: each (program, backend) builds once and runs every graph, and the backends build the
spellings of INCREMENTS, IMPLICIT_WEIGHT and BRACKETS as one program, SPELLINGS (their bodies
one after the other, the three results in one return value), whose reference run is checked
against the three programs' own; INT_IDS, which every backend builds for its run-time errors
anyway, stays on its own."""

from __future__ import annotations

import functools

import pytest

import starc
from starc.reference import ExecutionError
from starc.results import compare_results

from e2e_cases import DSL, write_graph_files

# In the style of StarPlat's programs: counters bumped with ++/-- on host scalars, on a shared
# scalar inside a forall (a count reduction), on the loop vertex and on a neighbour (an atomic
# update), in a sequential for and in a while loop. One operator per array per forall (MPI
# refuses two, E0501).
INCREMENTS = """\
function Count_Things(Graph g, propNode<int> outDeg, propNode<int> inHits, propNode<long> down,
                      node src) {
    g.attachNodeProperty(outDeg = 0, inHits = 0, down = 100);
    int edges = 0;
    long left = 1000;
    forall (v in g.nodes()) {
        forall (nbr in g.neighbors(v)) {
            v.outDeg++;
            nbr.inHits++;
            edges++;
            left--;
        }
        v.down--;
    }
    forall (v in g.nodes().filter(outDeg > 1)) {
        for (nbr in g.nodes_to(v)) {
            v.down--;
        }
    }
    int rounds = 0;
    double half = 0.5;
    while (rounds < 3) {
        rounds++;
        half--;
    }
    src.down++;
    src.down++;
    edges--;
    if (half < 0) {
        left++;
    }
    return edges * 100000 + rounds * 10000 + left;
}
"""

# StarPlat's SSSP and CC variants read e.weight without declaring it: the graph's weights.
# dsl/sssp.sp (which declares it) is the oracle; the implicit one drops the parameter and
# also sums every edge's weight in a sequential neighbour loop.
EXPLICIT_WEIGHT = (DSL / "sssp.sp").read_text().rstrip()[:-1] + """\
    long total = 0;
    forall (v in g.nodes()) {
        for (nbr in g.neighbors(v)) {
            edge e = g.get_edge(v, nbr);
            total += e.weight;
        }
    }
    return total;
}
"""
IMPLICIT_WEIGHT = EXPLICIT_WEIGHT.replace("propEdge<int> weight, ", "")
assert IMPLICIT_WEIGHT != EXPLICIT_WEIGHT

# Push-relabel and matching style (item 2): the source is an 'int' parameter and the sink an
# 'int' local, both used as vertices; 'mate' holds a vertex id in a propNode<int> (-1: none)
# and is read back into an int that indexes a property inside a forall (an atomic update).
INT_IDS = """\
function Preflow_Start(Graph g, propNode<int> label, propNode<int> excess, propNode<int> mate,
                       int source) {
    g.attachNodeProperty(label = 0, excess = 0, mate = -1);
    int n = g.num_nodes();
    int sink = n - 1;
    source.label = n;
    forall (v in g.nodes()) {
        if (v == source) {
            forall (nbr in g.neighbors(v)) {
                nbr.excess += 1;
                source.excess += -1;
            }
        }
    }
    forall (v in g.nodes()) {
        int best = -1;
        for (w in g.neighbors(v)) {
            if (best == -1 || w < best) {
                best = w;
            }
        }
        v.mate = best;
    }
    forall (v in g.nodes()) {
        int m = v.mate;
        if (m != -1) {
            m.excess += 10;
        }
    }
    if (sink != source) {
        sink.label = sink.label + source.label + 1;
    }
    int labelled = 0;
    forall (v in g.nodes()) {
        if (v.label > 0 && v != source) {
            labelled += 1;
        }
    }
    return labelled * 1000 + sink.excess;
}
"""

# Item 5: StarPlat's 'p[v]' for 'v.p' (reads, writes, reductions, an int index) and its
# residual-capacity idiom 'g.attachEdgeProperty(p = g.getEdgeLen())' (a copy of the weights).
BRACKETS = """\
function Push_Start(Graph g, propNode<int> excess, propNode<int> seen, int source) {
    propEdge<int> residual;
    g.attachEdgeProperty(residual = g.getEdgeLen());
    g.attachNodeProperty(excess = 0, seen = 0);
    excess[source] = 1;
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            edge e = g.get_edge(v, w);
            excess[w] += residual[e];
            seen[v] += 1;
        }
    }
    long total = 0;
    forall (e in g.edges()) {
        total += residual[e];
    }
    return total + excess[source];
}
"""


def _body(text: str):
    """The statements of a one-function program, up to its return, and its return value."""
    body = text[text.index("{") + 1:text.rindex("}")]
    statements, returned = body.rsplit("return ", 1)
    return statements.rstrip() + "\n", returned.strip().rstrip(";")


def _spellings() -> str:
    """INCREMENTS, IMPLICIT_WEIGHT and BRACKETS in one function: their bodies in turn (the
    locals named 'total' apart), returning increments + 10^8 * (weights + 10^6 * brackets)."""
    weights, weights_ret = _body(IMPLICIT_WEIGHT)
    counts, counts_ret = _body(INCREMENTS)
    brackets, brackets_ret = _body(BRACKETS.replace("total", "total2"))
    assert (weights_ret, brackets_ret) == ("total", "total2 + excess[source]")
    return (
        "function Spellings(Graph g, propNode<int> dist, propNode<int> outDeg, "
        "propNode<int> inHits,\n                   propNode<long> down, propNode<int> excess, "
        "propNode<int> seen, node src,\n                   int source) {" + weights + counts
        + brackets + f"    long result = {brackets_ret};\n"
        "    result = result * 1000000 + total;\n"
        f"    result = result * 100000000 + {counts_ret};\n    return result;\n}}\n")


SPELLINGS = _spellings()

PROGRAMS = {"increments": (INCREMENTS, {"src": "0"}),
            "implicit_weight": (IMPLICIT_WEIGHT, {"src": "0"}),
            "int_ids": (INT_IDS, {"source": "0"}),
            "brackets": (BRACKETS, {"source": "0"}),
            "spellings": (SPELLINGS, {"src": "0", "source": "0"})}
#: what the backends build: the three spellings together, and int_ids
ON_BACKENDS = ("spellings", "int_ids")

BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc),
            pytest.param("mpi", marks=pytest.mark.mpi),
            pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.gpu])]
GRAPHS = ("rmat", "self_loops_dups", "one_vertex", "isolated", "disconnected")


@functools.lru_cache(maxsize=None)
def compiled(name, backend):
    return starc.compile(PROGRAMS[name][0], backend)


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


def test_increments_on_the_reference_count_what_they_should(graph_files):
    """The oracle itself, against counts taken from the edge list: vertex 0 of 'isolated'
    (edges 0->1 1->2 2->0 3->4) has out-degree 1, in-degree 1."""
    results = compiled("increments", "reference").run(graph_files["isolated"], src="0")
    assert list(results.props["outDeg"]) == [1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert list(results.props["inHits"]) == [1, 1, 1, 0, 1, 0, 0, 0, 0]
    assert list(results.props["down"]) == [101] + [99] * 8
    # 4 edges - 1, 3 rounds, left = 1000 - 4 + 1 (half = 0.5 - 3 < 0)
    assert results.ret == 3 * 100000 + 3 * 10000 + 997


def test_int_ids_on_the_reference_follow_the_edges(graph_files):
    """'isolated' (9 vertices; 0->1 1->2 2->0 3->4): source 0 pushes one unit to 1; each
    vertex's smallest out-neighbour gets 10; the sink (8) gets the source's label + 1."""
    results = compiled("int_ids", "reference").run(graph_files["isolated"], source="0")
    assert list(results.props["mate"]) == [1, 2, 0, 4] + [-1] * 5
    assert list(results.props["excess"]) == [9, 11, 10, 0, 10, 0, 0, 0, 0]
    assert list(results.props["label"]) == [9] + [0] * 7 + [10]
    assert results.ret == 1000


def test_brackets_and_edge_lengths_on_the_reference(graph_files):
    """'isolated': 0->1 (5), 1->2 (1), 2->0 (2), 3->4 (7); every vertex gets its in-edges'
    weights, vertex 0 one more; the return is the weights' sum plus excess[0]."""
    results = compiled("brackets", "reference").run(graph_files["isolated"], source="0")
    assert list(results.props["excess"]) == [3, 5, 1, 0, 7, 0, 0, 0, 0]
    assert list(results.props["seen"]) == [1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert results.ret == 15 + 3


@pytest.mark.parametrize("backend", [pytest.param("reference")] + BACKENDS)
@pytest.mark.parametrize("source", ["9", "-1"])
def test_int_id_out_of_range_stops_with_the_located_reference_error(backend, source,
                                                                    graph_files):
    """An int used as a vertex is checked where it indexes a property (here the first use,
    'source.label = n;' at 6:5): every backend stops with the reference executor's text."""
    with pytest.raises(ExecutionError) as failure:
        compiled("int_ids", backend).run(graph_files["isolated"], source=source)
    assert str(failure.value) == (f"<string>:6:5: runtime error: index {source} of 'label' "
                                  "out of range 0..8")


@pytest.mark.parametrize("graph", ["rmat", "isolated", "self_loops_dups"])
def test_implicit_weight_means_the_declared_weight_parameter(graph, graph_files):
    implicit = compiled("implicit_weight", "reference").run(graph_files[graph], src="0")
    explicit = starc.compile(EXPLICIT_WEIGHT, "reference").run(graph_files[graph], src="0")
    assert not compare_results(explicit, implicit)
    # 'isolated': 0->1 (5), 1->2 (1), 2->0 (2), 3->4 (7)
    if graph == "isolated":
        assert list(implicit.props["dist"])[:3] == [0, 5, 6]
        assert implicit.ret == 15


def test_implicit_weight_needs_a_weighted_graph(tmp_path):
    graph = tmp_path / "plain.el"
    graph.write_text("0 1\n1 2\n")
    with pytest.raises(starc.runcontract.DataError, match="the program reads edge weights"):
        compiled("implicit_weight", "reference").run(graph, src="0")


@pytest.mark.parametrize("graph", GRAPHS)
def test_the_spellings_together_give_each_ones_results(graph, graph_files):
    """SPELLINGS on the reference: the properties and the return values of INCREMENTS,
    IMPLICIT_WEIGHT and BRACKETS run on their own."""
    together = compiled("spellings", "reference").run(graph_files[graph], src="0", source="0")
    # increments + 10^8 * (weights + 10^6 * brackets); increments may be negative (-1 edge
    # counted on a graph without edges), so each part is taken as the nearest to zero
    rest, parts = int(together.ret), {}
    for name, scale in (("increments", 10 ** 8), ("implicit_weight", 10 ** 6)):
        parts[name] = (rest + scale // 2) % scale - scale // 2
        rest = (rest - parts[name]) // scale
    parts["brackets"] = rest
    for name, part in parts.items():
        alone = compiled(name, "reference").run(graph_files[graph], **PROGRAMS[name][1])
        for prop, values in alone.props.items():
            assert together.props[prop].tolist() == values.tolist(), (graph, name, prop)
        assert part == int(alone.ret), (graph, name)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ON_BACKENDS)
def test_starplat_spellings_agree_with_reference(name, backend, graph_files):
    """One build, every graph."""
    params = PROGRAMS[name][1]
    for graph in GRAPHS:
        expected = compiled(name, "reference").run(graph_files[graph], **params)
        actual = compiled(name, backend).run(graph_files[graph], **params)
        problems = compare_results(expected, actual)
        assert not problems, f"{name} on {graph} ({backend}):\n" + "\n".join(problems)
