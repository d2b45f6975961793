"""Device arrays and the transfer plan: copy flags, roles, hoisting, host operations."""

from __future__ import annotations

import pytest

from analysis_helpers import DSL, array, dsl_plan, host_of, plan_of
from starc.analysis import plan as P
from starc.ir.types import Scalar

ALL = sorted(p.stem for p in DSL.glob("*.sp"))


@pytest.mark.parametrize("name", ALL)
def test_copy_flags_follow_roles(name):
    plan = dsl_plan(name)
    names = [a.name for a in plan.arrays]
    assert len(names) == len(set(names))
    for a in plan.arrays:
        assert a.copy_in == (a.role in ("graph", "weight")), a
        assert a.copy_out == (a.role == "result"), a
    results = {p.name for p in plan.function.params
               if getattr(p.type, "kind", None) == "node" and hasattr(p.type, "elem")}
    assert {a.name for a in plan.arrays if a.copy_out} == results


def test_weights_copied_in_locals_never_copied_out():
    plan = dsl_plan("sssp")
    w = array(plan, "weight")
    assert (w.role, w.extent, w.copy_in, w.copy_out) == ("weight", "edges", True, False)
    assert array(plan, "dist").copy_out and not array(plan, "modified").copy_out
    assert [a.name for a in plan.arrays if a.role == "graph"] == ["offsets", "targets"]


def test_only_used_graph_arrays():
    assert [a.name for a in dsl_plan("tc").arrays if a.role == "graph"] == [
        "offsets", "targets"]
    # pr's in-neighbour loop never uses its edge: no forward edge ids are copied.
    assert [a.name for a in dsl_plan("pr").arrays if a.role == "graph"] == [
        "offsets", "rev_offsets", "rev_sources"]


def test_in_neighbour_edge_ids_only_when_the_edge_is_used():
    plan = plan_of("""
function F(Graph g, propNode<int> s, propEdge<int> weight) {
    forall (v in g.nodes()) {
        for (u in g.nodes_to(v)) {
            edge e = g.get_edge(u, v);
            v.s = v.s + e.weight;
        }
    }
}
""")
    assert [a.name for a in plan.arrays if a.role == "graph"] == [
        "rev_offsets", "rev_sources", "rev_edge_ids"]


def test_bc_locals_declared_in_host_loop_are_hoisted():
    plan = dsl_plan("bc", "outline")
    sigma, delta = array(plan, "sigma"), array(plan, "delta")
    assert (sigma.role, sigma.elem, sigma.copy_in, sigma.copy_out) == (
        "local", Scalar.DOUBLE, False, False)
    assert (delta.role, delta.elem) == ("local", Scalar.DOUBLE)
    (loop,) = host_of(plan, P.HostForSet)
    # inside the loop: the attach (two fills) and src.sigma = 1; no allocation, no declaration
    kinds = [type(s).__name__ for s in loop.body.stmts]
    assert kinds == ["Fill", "Fill", "WriteElement", "BFSLoop"]
    assert not host_of(plan, P.HostDeclare)


def test_host_operations_sssp():
    plan = dsl_plan("sssp", "outline")
    fills = host_of(plan, P.Fill)
    assert [(f.array.name, type(f.value).__name__) for f in fills] == [
        ("dist", "Inf"), ("modified", "Const")]
    writes = host_of(plan, P.WriteElement)
    assert [(w.array.name, w.index.sym.name) for w in writes] == [
        ("modified", "src"), ("dist", "src")]
    (decl,) = host_of(plan, P.HostDeclare)
    assert decl.sym.name == "finished"
    assert [s.name for s in plan.host_scalars] == ["src", "finished"]


def test_pr_copy_and_host_reads():
    plan = dsl_plan("pr", stop_after="expand")     # the swap pass makes it a swap later
    (copy,) = host_of(plan, P.CopyArray)
    assert (copy.dst.name, copy.src.name) == ("pageRank", "pageRank_nxt")
    text = """
function R(Graph g, propNode<int> a, node src) {
    g.attachNodeProperty(a = 3);
    int x = src.a + 1;
    src.a += x;
    return x;
}
"""
    plan = plan_of(text)
    decl = host_of(plan, P.HostDeclare)[0]
    assert isinstance(decl.init.left, P.DeviceRead) and decl.init.left.array.name == "a"
    (write,) = host_of(plan, P.WriteElement)
    assert isinstance(write.value.left, P.DeviceRead)


def test_same_named_locals_get_unique_array_names():
    text = """
function U(Graph g, propNode<int> out) {
    g.attachNodeProperty(out = 0);
    if (True) {
        propNode<int> tmp;
        g.attachNodeProperty(tmp = 1);
        out = tmp;
    } else {
        propNode<int> tmp;
        g.attachNodeProperty(tmp = 2);
        out = tmp;
    }
}
"""
    plan = plan_of(text)
    assert [a.name for a in plan.arrays] == ["out", "tmp", "tmp_2"]
    copies = host_of(plan, P.CopyArray)
    assert [c.src.name for c in copies] == ["tmp", "tmp_2"]


def test_property_copied_onto_itself_is_no_copy_and_properties_start_at_zero():
    """'rank = rank;' plans nothing (an overlapping copy failed in OpenCL); a declared
    property is zeroed where it is declared (each time: here in a loop body) unless an attach
    follows at once, and so are the results (propNode parameters) not attached at the top."""
    plan = plan_of("""
function F(Graph g, propNode<float> rank, propNode<int> out, propNode<bool> done) {
    g.attachNodeProperty(done = False);
    rank = rank;
    int i = 0;
    while (i < 2) {
        propNode<int> tmp;
        propNode<int> set;
        g.attachNodeProperty(set = 1);
        forall (v in g.nodes()) { v.out += v.tmp + v.set; }
        i = i + 1;
    }
}
""")
    assert not host_of(plan, P.CopyArray)
    zero_fills = [(s.array.name, s.value.value) for s in host_of(plan, P.Fill)]
    assert zero_fills == [("rank", 0.0), ("out", 0), ("done", False), ("tmp", 0), ("set", 1)]
    (loop,) = host_of(plan, P.HostWhile)
    assert [s.array.name for s in loop.body.stmts if isinstance(s, P.Fill)] == ["tmp", "set"]


def test_a_result_attached_after_scalar_declarations_is_not_zeroed_first():
    """PageRank's 'float numNodes = g.num_nodes();' before its attach cannot read the result:
    one fill, the attach's. A scalar whose value reads the result before the attach sees the
    zero, so the zero fill stays."""
    assert [(s.array.name, type(s.value).__name__) for s in host_of(dsl_plan("pr"), P.Fill)
            if s.array.name == "pageRank"] == [("pageRank", "Binary")]
    plan = plan_of("""
function F(Graph g, node s, propNode<int> out) {
    int before = s.out;
    int n = g.num_nodes();
    g.attachNodeProperty(out = before + n);
}
""")
    assert [(s.array.name, getattr(s.value, "value", None)) for s in host_of(plan, P.Fill)] \
        == [("out", 0), ("out", None)]


def test_every_lock_is_released_by_a_fill_before_the_algorithm():
    """Device memory starts undefined: the plan, not a printer, zeroes each lock array once,
    first thing, so every backend starts with every lock free."""
    text = ("function F(Graph g, propNode<int> d, propNode<node> parent) {\n"
            "    g.attachNodeProperty(d = 0, parent = 0);\n"
            "    forall (v in g.nodes()) {\n"
            "        forall (w in g.neighbors(v)) {\n"
            "            <w.d, w.parent> = <Max(w.d, v + 1), v>;\n"
            "        }\n    }\n}\n")
    plan = plan_of(text)
    locks = [a for a in plan.arrays if a.role == "lock"]
    assert len(locks) == 1
    first = plan.host.stmts[0]
    assert isinstance(first, P.Fill) and first.array == locks[0] and first.value.value == 0


def test_host_element_access_is_checked_unless_the_id_is_a_parameter_or_loop_variable():
    """A property element the host reads or writes through a computed id carries the
    reference's bounds check as a plan fact (P.HostCheckedIndex); a node parameter, already
    validated when arguments are bound, does not."""
    text = ("function F(Graph g, propNode<int> a, node src) {\n"
            "    node x = src + 3;\n"
            "    x.a = 5;\n"
            "    src.a = x.a;\n}\n")
    plan = plan_of(text)
    writes = host_of(plan, P.WriteElement)
    checked = [w for w in writes if isinstance(w.index, P.HostCheckedIndex)]
    assert len(writes) == 2 and len(checked) == 1
    assert checked[0].index.name == "a" and checked[0].index.loc.line == 3
    (read,) = [w.value for w in writes if isinstance(w.value, P.DeviceRead)]
    assert isinstance(read.index, P.HostCheckedIndex) and read.index.loc.line == 4


def test_the_error_word_starts_at_no_error_by_a_fill_before_the_algorithm():
    text = ("function F(Graph g, propNode<int> a, int d) {\n"
            "    forall (v in g.nodes()) {\n        v.a = 10 / d;\n    }\n}\n")
    plan = plan_of(text)
    fills = [s for s in plan.host.stmts if isinstance(s, P.Fill)]
    assert plan.error is not None
    assert any(f.array == plan.error.site and f.value.value == 0 for f in fills)
