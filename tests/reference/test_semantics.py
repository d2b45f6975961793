"""C semantics, fixedPoint double buffering, Min/Max with secondary targets, BFS roles and
run-time errors of the reference executor, each with a small DSL program."""

from __future__ import annotations

import numpy as np
import pytest

from starc.diagnostics import CompileError
from starc.reference import ExecutionError, execute
from starc.reference.values import FLT_MAX, INT_MAX, INT_MIN, LONG_MAX, LONG_MIN

import reference_oracles as oracles
from reference_helpers import compile_text, make_graph, relation, run_both

LINE = make_graph(4, [(0, 1), (1, 2), (2, 3)], [1, 1, 1])


def ret(body: str, rtype: str = "int", graph=LINE, **options):
    text = f"function F(Graph g) {{\n{body}\n}}"
    return run_both(compile_text(text), graph, options).ret


@pytest.mark.parametrize("body, expected", [
    ("int x = 2147483647; x = x + 1; return x;", INT_MIN),
    ("int x = -2147483647; x = x - 2; return x;", INT_MAX),
    ("int x = 65536; x = x * 65536; return x;", 0),
    ("long x = 9223372036854775807; x = x + 1; return x;", LONG_MIN),
    ("int x = 7; int y = -2; return x / y;", -3),
    ("int x = -7; int y = 2; return x / y;", -3),
    ("int x = -7; int y = 2; return x % y;", -1),
    ("int x = 7; int y = -2; return x % y;", 1),
    ("int x = INF; return x;", INT_MAX),
    ("int x = -INF; return x;", INT_MIN),
    ("long x = INF; return x;", LONG_MAX),
    ("double d = 2.9; int x = d; return x;", 2),
    ("double d = -2.9; int x = d; return x;", -2),
    ("bool b = True; int x = b; return x + 1;", 2),
])
def test_integer_semantics(body, expected):
    assert ret(body) == expected


def test_float_is_float32():
    value = ret("float f = 0.1; float h = f * 3.0; return h;")
    assert value == float(np.float32(np.float32(0.1) * np.float32(3.0)))
    assert ret("float f = 16777216.0; f = f + 1.0; return f;") == 16777216.0
    assert ret("double f = 16777216.0; f = f + 1.0; return f;") == 16777217.0


def test_float_inf_values():
    assert ret("float f = INF; return f;") == FLT_MAX
    assert ret("float f = -INF; return f;") == -FLT_MAX
    assert ret("double f = -INF; return f;") == -np.finfo(np.float64).max
    assert ret("float f = 1.0; float z = 0.0; return f / z;") == float("inf")


def test_casts_to_bool_and_back():
    assert ret("int x = 5; bool b = x; if (b) { return 1; } return 0;") == 1
    assert ret("float f = 0.0; bool b = f; if (b) { return 1; } return 0;") == 0


def test_integer_division_by_zero_names_the_line():
    program = compile_text("function F(Graph g) {\n  int z = 0;\n  int x = 5 / z;\n  return x;\n}")
    with pytest.raises(ExecutionError, match=r"test.sp:3:\d+: runtime error: integer division by zero"):
        execute(program, LINE, {})


def test_division_by_zero_inside_a_vectorised_forall():
    text = """function F(Graph g, propNode<int> p) {
  forall (v in g.nodes()) { v.p = 10 / (v - 2); }
}"""
    for vectorize in (True, False):
        with pytest.raises(ExecutionError, match="test.sp:2:.*integer division by zero"):
            execute(compile_text(text), LINE, {}, vectorize=vectorize)


def test_vertex_out_of_range_is_an_error():
    text = "function F(Graph g, propNode<int> p) {\n  node v = g.num_nodes();\n  v.p = 1;\n}"
    with pytest.raises(ExecutionError, match="out of range"):
        execute(compile_text(text), LINE, {})


FLAGS = """function F(Graph g, propNode<int> hops, node src) {
  propNode<bool> active;
  g.attachNodeProperty(active = False, hops = 0);
  src.active = True;
  bool fin = False;
  fixedPoint until (fin : !active) {
    forall (v in g.nodes().filter(active == True)) {
      v.hops = v.hops + 1;
      forall (w in g.neighbors(v)) { w.active = True; }
    }
  }
}"""


def test_fixed_point_flags_are_double_buffered():
    # On a path 0 -> 1 -> 2 -> 3, one vertex is active per round. Without double buffering,
    # vertex 1 would be activated and run in the same round as vertex 0 (ascending order).
    r = run_both(compile_text(FLAGS), LINE, {"src": "0"})
    assert r.props["hops"].tolist() == [1, 1, 1, 1]
    cycle = make_graph(3, [(0, 1), (1, 2), (2, 0)], [1, 1, 1])
    # a cycle never settles: count rounds through a bounded general fixedPoint instead
    bounded = FLAGS.replace("propNode<int> hops, node src", "propNode<int> hops, node src, int limit") \
        .replace("v.hops = v.hops + 1;", "v.hops = v.hops + 1;\n if (v.hops >= limit) { v.active = False; }") \
        .replace("forall (w in g.neighbors(v)) { w.active = True; }",
                 "if (v.hops < limit) { forall (w in g.neighbors(v)) { w.active = True; } }")
    r = run_both(compile_text(bounded), cycle, {"src": "0", "limit": "2"})
    assert r.props["hops"].tolist() == [2, 1, 1]   # one active vertex per round


def test_fixed_point_body_can_force_another_round():
    text = """function F(Graph g) {
  propNode<bool> p;
  g.attachNodeProperty(p = False);
  bool fin = False;
  int rounds = 0;
  fixedPoint until (fin : !p) {
    rounds = rounds + 1;
    if (rounds < 3) { fin = False; }
  }
  return rounds;
}"""
    assert run_both(compile_text(text), LINE, {}).ret == 3


def test_min_assignment_secondary_targets_follow_the_winner():
    text = """function F(Graph g, propNode<int> best, propNode<node> parent, propNode<int> tag) {
  g.attachNodeProperty(best = INF, parent = -1, tag = 0);
  forall (v in g.nodes()) {
    forall (w in g.neighbors(v)) {
      <w.best, w.parent, w.tag> = <Min(w.best, 10 - v), v, 100 + v>;
    }
  }
}"""
    graph = make_graph(4, [(0, 3), (2, 3), (1, 3), (1, 2)], [1, 1, 1, 1])
    r = run_both(compile_text(text), graph, {})
    assert r.props["best"].tolist() == [INT_MAX, INT_MAX, 9, 8]
    assert r.props["parent"].tolist() == [-1, -1, 1, 2]
    assert r.props["tag"].tolist() == [0, 0, 101, 102]


def test_max_assignment_ties_keep_the_first_update():
    text = """function F(Graph g, propNode<int> best, propNode<node> parent) {
  g.attachNodeProperty(best = -INF, parent = -1);
  forall (v in g.nodes()) {
    forall (w in g.neighbors(v)) {
      <w.best, w.parent> = <Max(w.best, 7), v>;
    }
  }
}"""
    graph = make_graph(4, [(2, 3), (0, 3), (1, 3)], [1, 1, 1])
    r = run_both(compile_text(text), graph, {})
    assert r.props["best"].tolist() == [INT_MIN, INT_MIN, INT_MIN, 7]
    assert r.props["parent"].tolist() == [-1, -1, -1, 0]


def test_reductions_on_scalars_and_neighbours():
    text = """function F(Graph g, propNode<int> indeg, propNode<float> share) {
  g.attachNodeProperty(indeg = 0, share = 0);
  long edges = 0;
  float total = 0;
  forall (v in g.nodes()) {
    forall (w in g.neighbors(v)) { w.indeg += 1; w.share += 0.5; edges += 1; }
    total += 0.25;
  }
  return edges;
}"""
    graph = make_graph(3, [(0, 1), (0, 2), (1, 2), (2, 2)], [1, 1, 1, 1])
    r = run_both(compile_text(text), graph, {})
    assert r.ret == 4
    assert r.props["indeg"].tolist() == [0, 1, 3]
    assert r.props["share"].tolist() == [0.0, 0.5, 1.5]


def test_graph_queries_and_edges():
    text = """function F(Graph g, propNode<int> outd, propNode<int> ind, propNode<int> e01,
                        propNode<bool> has) {
  forall (v in g.nodes()) {
    v.outd = g.count_outNbrs(v);
    v.ind = g.count_inNbrs(v);
    v.e01 = g.get_edge(v, 1);
    v.has = g.is_an_edge(v, 2);
  }
  return g.num_edges();
}"""
    graph = make_graph(3, [(1, 2), (0, 1), (0, 1), (2, 2)], [1, 1, 1, 1])
    r = run_both(compile_text(text), graph, {})
    assert r.props["outd"].tolist() == [2, 1, 1]
    assert r.props["ind"].tolist() == [0, 2, 2]
    assert r.props["e01"].tolist() == [0, -1, -1]
    assert r.props["has"].tolist() == [False, True, True]
    assert r.ret == 4


def test_weight_bounds_and_endpoints():
    text = """function F(Graph g, propEdge<int> w, propNode<int> lo) {
  forall (e in g.edges()) { e.destination.lo = e.source; }
  return maxWt(w) - minWt(w);
}"""
    graph = make_graph(3, [(0, 1), (1, 2)], [4, 9])
    r = execute(compile_text(text), graph, {})
    assert r.ret == 5
    assert r.props["lo"].tolist() == [0, 0, 1]


def test_function_calls_pass_properties_by_reference():
    text = """function Fill(Graph g, propNode<int> p, int value) {
  g.attachNodeProperty(p = value);
  value = 0;
}
function Main(Graph g, propNode<int> out) {
  int x = 5;
  Fill(g, out, x);
  return x;
}"""
    program = compile_text(text)
    r = run_both(program, LINE, {})
    assert r.function == "Main"
    assert r.props["out"].tolist() == [5, 5, 5, 5]
    assert r.ret == 5


def test_while_break_and_early_return():
    text = """function F(Graph g) {
  int i = 0;
  while (True) {
    i = i + 1;
    if (i == 4) { break; }
  }
  for (v in g.nodes()) {
    if (v == 2) { return i * 10 + v; }
  }
  return -1;
}"""
    assert ret(text.split("{", 1)[1].rsplit("}", 1)[0]) == 42


def test_bfs_parents_and_children():
    text = """function F(Graph g, propNode<int> parents, propNode<int> children, node src) {
  g.attachNodeProperty(parents = 0, children = 0);
  iterateInBFS (v in g.nodes() from src) {
    for (w in g.neighbors(v)) { v.parents = v.parents + 1; }
  }
  iterateInReverse (v != src) {
    for (w in g.neighbors(v)) { v.children = v.children + 1; }
  }
}"""
    # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 1 (back edge), 3 -> 4
    graph = make_graph(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 1), (3, 4)], [1] * 6)
    r = run_both(compile_text(text), graph, {"src": "0"})
    assert r.props["parents"].tolist() == [0, 1, 1, 2, 1]
    assert r.props["children"].tolist() == [0, 1, 1, 1, 0]   # the root is excluded by v != src


def test_bfs_filter_restricts_the_body_not_the_traversal():
    text = """function F(Graph g, propNode<int> seen, node src) {
  g.attachNodeProperty(seen = 0);
  iterateInBFS (v in g.nodes() from src).filter(v != 1) {
    v.seen = 1;
  }
}"""
    r = run_both(compile_text(text), LINE, {"src": "0"})
    assert r.props["seen"].tolist() == [1, 0, 1, 1]


# The source has no parents, ever: not on a cycle back to it, not through a self-loop, not
# from an in-neighbour the traversal never reaches (whose level, -1, is "depth 0 minus one").
@pytest.mark.parametrize("n, edges, parents, children", [
    (3, [(0, 1), (1, 2), (2, 0)], [0, 1, 1], [1, 1, 0]),                     # directed 3-cycle
    (3, [(0, 0), (0, 1), (1, 2), (2, 2)], [0, 1, 1], [1, 1, 0]),             # self-loop at src
    (4, [(0, 1), (0, 2), (1, 0), (2, 0), (2, 3), (3, 0), (1, 3)],
     [0, 1, 1, 2], [2, 1, 1, 0]),                                            # src with in-edges
    (5, [(0, 1), (1, 2), (3, 0), (4, 3), (2, 1), (3, 1)],
     [0, 1, 1, 0, 0], [1, 1, 0, 0, 0]),                                      # unreached in-nbr
])
def test_bfs_source_has_no_parents(n, edges, parents, children):
    graph = make_graph(n, edges, [1] * len(edges))
    assert relation(graph) == (parents, children)
    expected = oracles.bfs_relation_counts(graph, 0)
    assert relation(graph) == (expected[0].tolist(), expected[1].tolist())


def test_bfs_filter_and_reverse_condition_do_not_change_who_is_a_parent_or_child():
    """A filtered-out vertex still is its children's parent (and the reverse condition only
    picks which vertices run B2, not who counts as a child)."""
    # levels: 0 | 1, 2 | 3 (parents 1, 2) | 4 (parent 3); 5 -> 0 unreached
    graph = make_graph(6, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (5, 0), (4, 0)], [1] * 7)
    parents, children = relation(graph, bfs_filter=".filter(v != 1)", cond="v != 3")
    assert parents == [0, 0, 1, 2, 1, 0]
    assert children == [2, 1, 1, 0, 0, 0]
    expected = oracles.bfs_relation_counts(graph, 0, lambda v: v != 1, lambda v: v != 3)
    assert (parents, children) == (expected[0].tolist(), expected[1].tolist())


def test_nested_bfs_parents_are_those_of_the_bfs_the_vertex_belongs_to():
    """Inside an inner iterateInBFS, g.neighbors(v) of the outer BFS variable v visits v's
    parents in the outer traversal (they once came from the inner traversal's levels)."""
    text = """function F(Graph g, propNode<int> x, node src) {
  g.attachNodeProperty(x = 0);
  iterateInBFS (v in g.nodes() from src) {
    iterateInBFS (u in g.nodes() from v) {
      for (w in g.neighbors(v)) { u.x += 1; }
    }
  }
}"""
    # outer levels 0 | 1, 2 | 3 | 4; u.x = sum over outer v reaching u of v's parent count
    graph = make_graph(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], [1] * 5)
    r = run_both(compile_text(text), graph, {"src": "0"})
    assert r.props["x"].tolist() == [0, 1, 1, 4, 5]


def test_dsl_programs_take_the_fast_paths():
    from starc.graphs.generators import rmat
    from reference_helpers import dsl_program
    graph = rmat(scale=7, edge_factor=8, weights=True)
    undirected = graph.symmetrised()
    src = str(int(np.argmax(np.diff(graph.offsets))))
    for name, g, options in [("sssp", graph, {"src": src}), ("sswp", graph, {"src": src}),
                             ("cc", graph, {}), ("bfs", graph, {"src": src}),
                             ("pr", graph, {"beta": "1e-4", "delta": "0.85", "maxIter": "20"}),
                             ("kcore", undirected, {"k": "3"}), ("tc", undirected, {}),
                             ("bc", graph, {"sourceSet": f"{src},1"})]:
        stats = run_both(dsl_program(name), g, options).stats
        assert stats["vector"] > 0 and stats["fallback"] == 0, (name, stats)


def test_one_scalar_reduced_with_commuting_operators():
    """Each update keeps its own operator in the sequential interleaving (a bug once folded
    every update of a scalar with the first operator seen). 4 vertices: +10 each, -1 on the
    even ones (sequential: 40 - 2)."""
    body = "int t = 0; forall (v in g.nodes()) { t += 10; if (v % 2 == 0) { t -= 1; } } return t;"
    assert ret(body) == 38


@pytest.mark.parametrize("body", [
    "int t = 1; forall (v in g.nodes()) { t += 1; t *= 2; } return t;",
    "float t = 1; forall (v in g.nodes()) { t *= 3; t -= 1; } return t;",
])
def test_one_scalar_reduced_with_operators_that_do_not_commute_is_rejected(body):
    """The result would depend on the order of the iterations (issue 32: the backends gave
    22 and 14 for one such program), so it has no meaning to execute."""
    with pytest.raises(CompileError) as error:
        ret(body)
    assert [d.code for d in error.value.diagnostics] == ["E0402"]
    assert "do not commute" in error.value.diagnostics[0].message


# k4: 0->1, 0->2, 0->3, 1->2, 1->3, 2->3, 3->0
K4 = make_graph(4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 0)])


@pytest.mark.parametrize("update, expected", [
    # each step stores -w: the last neighbour in CSR order wins (issue 32's SelfRed)
    ("v.d -= v.d + w;", [-3, -3, -3, 0]),
    ("v.d = v.d - (v.d + w);", [-3, -3, -3, 0]),
    # each step reads what the previous stored: 1*(1+1)=2, 2*(2+2)=8, 8*(8+3)=88 at vertex 0
    ("v.d *= v.d + w;", [88, 18, 4, 1]),
    ("v.d = Min(v.d, v.d - w);", [-5, -4, -2, 1]),
])
def test_sequential_update_reading_its_own_target(update, expected):
    """Inside a sequential loop, an update whose value reads its own target sees the value
    the previous step stored: the vectorised layer must not treat it as a fold of values
    computed up front (it once gave d 0 = -8)."""
    text = ("function F(Graph g, propNode<int> d) {\n g.attachNodeProperty(d = 1);\n"
            " forall (v in g.nodes()) { for (w in g.neighbors(v)) { " + update + " } }\n}")
    results = run_both(compile_text(text), K4, {})
    assert results.props["d"].tolist() == expected


def test_sequential_local_update_reading_itself():
    text = ("function F(Graph g, propNode<int> d) {\n forall (v in g.nodes()) {\n"
            " int t = 1; for (w in g.neighbors(v)) { t *= t + w; } v.d = t; }\n}")
    assert run_both(compile_text(text), K4, {}).props["d"].tolist() == [88, 18, 4, 1]
