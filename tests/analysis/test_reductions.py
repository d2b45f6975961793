"""The reduction and atomic plan: scalar reductions, atomic updates, Min/Max with locks."""

from __future__ import annotations

from analysis_helpers import dsl_plan, kernel, nodes_of, params, plan_of
from starc.analysis import plan as P
from starc.analysis.frontier import choose_form
from starc.ir import nodes as ir


def test_tc_triangle_count_is_an_exclusive_sum():
    k = kernel(dsl_plan("tc"), "forall_6")
    (red,) = k.reductions
    assert (red.sym.name, red.op, red.exclusive) == ("triangle_count", "+", True)
    assert (red.array.name, red.array.extent, red.array.role) == (
        "triangle_count_dev", "one", "scalar")
    (atomic,) = nodes_of(k.body, P.AtomicReduce)
    assert isinstance(atomic.target, ir.VarRef) and atomic.target.sym == red.sym


def test_kcore_degree_decrement_is_an_atomic_minus_and_own_write_is_plain():
    plan = dsl_plan("kcore")
    k = kernel(plan, "forall_24")
    atomics = nodes_of(k.body, P.AtomicReduce)
    props = [a for a in atomics if isinstance(a.target, ir.PropRead)]
    assert [(a.op, a.target.prop.name, a.target.index.sym.name) for a in props] == [
        ("-", "degree", "w")]
    assigns = [a for a in nodes_of(k.body, ir.Assign) if isinstance(a.target, ir.PropRead)]
    assert [(a.target.prop.name, a.target.index.sym.name) for a in assigns] == [("peeled", "v")]
    assert not nodes_of(k.body, ir.Reduce)
    k = kernel(plan, "forall_17")
    (red,) = k.reductions
    assert (red.sym.name, red.op, red.exclusive) == ("removed", "+", True)
    assigns = [a for a in nodes_of(k.body, ir.Assign) if isinstance(a.target, ir.PropRead)]
    assert [(a.target.prop.name, a.target.index.sym.name) for a in assigns] == [
        ("inCore", "v"), ("peeled", "v")]
    assert not [a for a in nodes_of(k.body, P.AtomicReduce) if isinstance(a.target, ir.PropRead)]
    assert not nodes_of(k.body, ir.Reduce)


def test_pr_diff_in_both_branches_is_exclusive():
    k = kernel(dsl_plan("pr"), "forall_13")
    (red,) = k.reductions
    assert (red.sym.name, red.op, red.exclusive) == ("diff", "+", True)
    assert len(nodes_of(k.body, P.AtomicReduce)) == 2


def test_reduction_read_elsewhere_is_not_exclusive():
    text = """
function N(Graph g, propNode<int> a) {
    int s = 0;
    forall (v in g.nodes()) {
        v.a = s;
        s += 1;
    }
}
"""
    (red,) = plan_of(text).kernels[0].reductions
    assert red.op == "+" and not red.exclusive


def test_own_element_reduce_is_plain_update():
    text = """
function O(Graph g, propNode<int> a) {
    g.attachNodeProperty(a = 0);
    forall (v in g.nodes()) {
        v.a += 2;
        int t = 1;
        t *= 3;
    }
}
"""
    # (after outline: the wrap pass later marks the + as wrapping, analysis/wrapping.py)
    k = plan_of(text, stop_after="outline").kernels[0]
    assert not [a for a in nodes_of(k.body, P.AtomicReduce) if isinstance(a.target, ir.PropRead)]
    assert not nodes_of(k.body, ir.Reduce)
    first = k.body.stmts[0]
    assert isinstance(first, ir.Assign) and isinstance(first.value, ir.Binary)
    assert first.value.op == "+" and first.value.left == first.target


def test_sssp_cc_sswp_min_max_are_unlocked_atomics():
    for name, func, count in (("sssp", "Min", 1), ("cc", "Min", 2), ("sswp", "Max", 1)):
        # the foralls as written (the worklist form adds an atomic max of the round stamp)
        plan = choose_form(dsl_plan(name), worklist=False)
        atomics = [a for k in plan.kernels for a in nodes_of(k.body, P.AtomicMinMax)]
        assert len(atomics) == count, name
        for a in atomics:
            assert a.func == func and a.locked is False and a.lock is None
            assert isinstance(a.target, ir.PropRead)


LOCKED = """
function P(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight, node src) {
    g.attachNodeProperty(dist = INF, parent = -1);
    src.dist = 0;
    forall (v in g.nodes()) {
        forall (n in g.neighbors(v)) {
            edge e = g.get_edge(v, n);
            <n.dist, n.parent> = <Min(n.dist, v.dist + e.weight), v>;
        }
    }
}
"""


def test_min_with_non_constant_secondary_target_is_locked():
    plan = plan_of(LOCKED)
    k = plan.kernels[0]
    (atomic,) = nodes_of(k.body, P.AtomicMinMax)
    assert atomic.locked is True
    assert (atomic.lock.name, atomic.lock.role, atomic.lock.extent) == (
        "dist_lock", "lock", "nodes")
    assert atomic.lock in plan.arrays
    assert params(k)["dist_lock"] is True and params(k)["parent"] is True
    ((target, value),) = atomic.others
    assert target.prop.name == "parent" and value.sym.name == "v"


def test_min_max_on_own_element_or_local_is_a_plain_compare():
    text = """
function M(Graph g, propNode<int> a, propNode<int> b) {
    g.attachNodeProperty(a = 5, b = 0);
    forall (v in g.nodes()) {
        int m = 0;
        m = Max(m, v.b);
        <v.a, v.b> = <Min(v.a, m), 1>;
    }
}
"""
    k = plan_of(text).kernels[0]
    assert not nodes_of(k.body, P.AtomicMinMax)
    ifs = [s for s in k.body.stmts if isinstance(s, ir.If)]
    assert [i.cond.op for i in ifs] == [">", "<"]
    assert len(ifs[1].then.stmts) == 2       # target store then the secondary store


def test_host_scalar_writes_in_kernel_become_stores():
    text = """
function F(Graph g, propNode<int> a) {
    bool found = False;
    forall (v in g.nodes()) {
        if (v.a > 3) { found = True; }
    }
}
"""
    k = plan_of(text).kernels[0]
    (store,) = nodes_of(k.body, P.ScalarStore)
    assert store.array.name == "found_dev" and store.array.sym.name == "found"
    assert k.stores == (store.array,) and not k.reductions


def test_max_on_host_scalar_is_a_scalar_reduction():
    text = """
function X(Graph g, propNode<int> a) {
    int best = 0;
    forall (v in g.nodes()) {
        best = Max(best, v.a);
    }
}
"""
    k = plan_of(text).kernels[0]
    (atomic,) = nodes_of(k.body, P.AtomicMinMax)
    assert isinstance(atomic.target, ir.VarRef) and not atomic.locked
    (red,) = k.reductions
    assert (red.sym.name, red.op, red.exclusive) == ("best", "Max", True)
