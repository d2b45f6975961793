"""Binding a program's parameters from --name value options, and choosing the entry function."""

from __future__ import annotations

import numpy as np
import pytest

from starc.runcontract import DataError, UsageError, bind_arguments, entry_function, param_specs

from reference_helpers import compile_text, dsl_program, make_graph

GRAPH = make_graph(5, [(0, 1), (1, 2)], [3, 4], name="g.el")

PARAMS = compile_text("""function F(Graph g, int k, long big, float f, double d, bool b,
                                    node src, SetN<g> sources, propNode<int> out,
                                    propEdge<int> weight) { }""").functions[0]


def bind(**options):
    bound = bind_arguments(PARAMS, GRAPH, options)
    return {sym.name: value for sym, value in bound.items()}


GOOD = dict(k="3", big="-9000000000", f="0.1", d="2.5e3", b="true", src="4", sources="0,2,4")


def test_param_specs():
    specs = {s.name: s for s in param_specs(PARAMS)}
    assert [s.name for s in param_specs(PARAMS)] == ["g", "k", "big", "f", "d", "b", "src",
                                                      "sources", "out", "weight"]
    assert specs["g"].kind == "Graph" and not specs["g"].is_input
    assert specs["src"].kind == "node" and specs["src"].is_input
    assert specs["sources"].kind == "SetN"
    assert specs["out"].kind == "propNode" and not specs["out"].is_input
    assert specs["weight"].kind == "propEdge" and not specs["weight"].is_input
    assert specs["k"].kind == "scalar" and str(specs["k"].scalar) == "int"


def test_bind_values():
    values = bind(**GOOD)
    assert values["g"] is GRAPH
    assert values["k"] == 3 and values["big"] == -9000000000
    assert values["f"] == float(np.float32(0.1)) and values["d"] == 2500.0
    assert values["b"] is True and values["src"] == 4 and values["sources"] == [0, 2, 4]
    assert values["weight"].dtype == np.int32 and values["weight"].tolist() == [3, 4]
    assert "out" not in values
    assert bind(**{**GOOD, "sources": ""})["sources"] == []
    assert bind_arguments(PARAMS, GRAPH, {f"--{k}": v for k, v in GOOD.items()})


@pytest.mark.parametrize("change, message", [
    ({"k": None}, r"missing --k \(an int\)"),
    ({"src": None}, r"missing --src \(a node id \(0\.\.4\)\)"),
    ({"src": "x"}, r"--src expects a node id \(a non-negative integer\), got 'x'"),
    ({"src": "5"}, r"--src expects a node id \(0\.\.4\), got '5' \(g\.el has 5 vertices\)"),
    ({"src": "-1"}, r"--src expects a node id"),
    ({"k": "1.5"}, r"--k expects an int, got '1.5'"),
    ({"k": "2147483648"}, r"--k expects an int, got '2147483648' \(out of range"),
    ({"f": "abc"}, r"--f expects a float, got 'abc'"),
    ({"f": "1e39"}, r"too large for a float"),
    ({"b": "yes"}, r"--b expects a bool"),
    ({"sources": "0,,2"}, r"--sources expects a comma-separated list of node ids, e.g. "
                          r"0,5,9, got '0,,2' \('' is not a node id\)"),
    ({"sources": "0,9"}, r"--sources .* got '0,9' \(9 is out of range: g\.el has 5 vertices\)"),
    # a set (LANGUAGE.md section 2): bc would count a repeated source twice
    ({"sources": "3,1,3,1"}, r"--sources expects a comma-separated list of node ids, e\.g\. "
                             r"0,5,9, got '3,1,3,1' \(1 is given twice\)"),
])
def test_bind_errors(change, message):
    options = {**GOOD, **change}
    options = {k: v for k, v in options.items() if v is not None}
    with pytest.raises(UsageError, match=message):
        bind(**options)


def test_ids_on_a_graph_without_vertices_are_worded_as_the_programs_word_them():
    # starc_cli.hpp's check_node says the same for --src and for a set's item
    # (tests/backends/common/test_runtime.py, the empty graph).
    empty = make_graph(0, [], name="empty.el")
    for param, value in (("node src", "0"), ("SetN<g> src", "0,1")):
        function = compile_text(f"function F(Graph g, {param}) {{ }}").functions[0]
        with pytest.raises(UsageError) as raised:
            bind_arguments(function, empty, {"src": value})
        assert str(raised.value) == "--src 0: empty.el has no vertices, so no node id is valid"


def test_weights_missing_or_not_integral():
    unweighted = make_graph(3, [(0, 1)], name="g.el")
    # Data the program cannot use is an input error (exit status 1), not a usage error.
    with pytest.raises(DataError, match=r"g.el: the program reads edge weights \(propEdge<int> weight\) "
                                         "but the file has none"):
        bind_arguments(dsl_program("sssp").functions[0], unweighted, {"src": "0"})
    real = make_graph(3, [(0, 1)], [1.5], name="r.el")
    real.weights_integral = False
    with pytest.raises(DataError, match="needs integer edge weights"):
        bind_arguments(dsl_program("sssp").functions[0], real, {"src": "0"})
    as_float = compile_text("function F(Graph g, propEdge<float> w) { }").functions[0]
    bound = bind_arguments(as_float, real, {})
    assert list(bound.values())[1].tolist() == [1.5]


def test_undirected_name_is_the_file():
    graph = make_graph(3, [(0, 1)], name="g.el", undirected=True)
    with pytest.raises(UsageError, match="g.el has 3 vertices"):
        bind_arguments(dsl_program("bfs").functions[0], graph, {"src": "3"})


def test_entry_function():
    program = compile_text("""function Helper(Graph g, propNode<int> p) { g.attachNodeProperty(p = 1); }
function Main(Graph g, propNode<int> q) { Helper(g, q); }
function Other(Graph g, propNode<int> r) { Helper(g, r); }""")
    assert entry_function(program).name == "Other"      # the last one nobody calls
    assert entry_function(program, "Main").name == "Main"
    with pytest.raises(UsageError, match="has no function 'Nope'"):
        entry_function(program, "Nope")
    assert entry_function(dsl_program("bc")).name == "Compute_BC"
