"""The plan passes after outlining: privatisation, error-check placement, fixedPoint and BFS
expansion, explicit scalar transfers and dead-scalar elision (``starc.analysis.lower``)."""

from __future__ import annotations

import pytest

from analysis_helpers import SEARCHED_BFS, dsl_plan, host_nodes, plan_of
from starc.analysis import plan as P
from starc.analysis.frontier import choose_form
from starc.analysis.lower import PASS_NAMES
from starc.ir import nodes as ir


def kinds(block: P.HostBlock):
    return [type(s).__name__ for s in block.stmts]


def only(block: P.HostBlock, cls):
    found = [s for s in host_nodes(block) if isinstance(s, cls)]
    assert len(found) == 1, kinds(block)
    return found[0]


# --- privatisation (reductions.privatise) ----------------------------------------------------

@pytest.mark.parametrize("body, private", [
    ("total += v.a;", True),
    ("total = Max(total, v.a);", True),                       # a plain atomic max
    ("total += v.a; total -= 1;", False),                     # two operators: not exclusive
    ("if (total > 3) { v.a = 1; } total += 1;", False),       # read: every update matters
])
def test_privatise_takes_exclusive_update_only_scalars(body, private):
    text = f"""
function F(Graph g, propNode<int> a) {{
    int total = 0;
    forall (v in g.nodes()) {{ {body} }}
    return total;
}}
"""
    (red,) = plan_of(text).kernels[0].reductions
    assert red.private is private


def test_privatise_leaves_bool_and_single_item_kernels_alone():
    text = """
function F(Graph g, propNode<int> a, node src) {
    bool any = False;
    int total = 0;
    forall (v in g.nodes()) { any |= v.a > 2; }
    for (v in g.nodes()) { total += v.a; }
    return total;
}
"""
    for kernel in plan_of(text).kernels:
        assert not any(r.private for r in kernel.reductions), kernel.name


# --- error-check placement ------------------------------------------------------------------

def test_user_loop_launching_checked_kernels_checks_first():
    text = """
function F(Graph g, propNode<int> a, int d) {
    int i = 0;
    while (i < 3) {
        forall (v in g.nodes()) { v.a = v.a / d; }
        i = i + 1;
    }
}
"""
    loop = only(plan_of(text).host, P.HostWhile)
    assert kinds(loop.body)[0] == "CheckErrors"
    assert plan_of(text, stop_after="outline").error is not None


def test_loop_without_checked_kernels_reads_no_error_word():
    loop = only(dsl_plan("pr").host, P.HostDoWhile)
    assert not any(isinstance(s, P.CheckErrors) for s in host_nodes(loop))


# --- fixedPoint expansion (control.expand_fixedpoint) ---------------------------------------

def test_fixedpoint_expands_to_a_do_while_on_the_device_flag():
    # sssp's topology-driven form (its worklist form: tests/analysis/test_frontier.py)
    plan = choose_form(dsl_plan("sssp"), worklist=False)
    assert not [s for s in host_nodes(plan.host) if isinstance(s, (P.FixedPointLoop, P.BFSLoop))]
    loop = only(plan.host, P.HostDoWhile)
    assert kinds(loop.body) == ["WriteElement", "Fill", "Launch", "SwapArrays"]
    clear, reset, _, swap = loop.body.stmts
    assert (clear.array.name, clear.value.value) == ("finished_flag", 0)
    assert (reset.array.name, reset.value.value) == ("modified_nxt", False)
    assert (swap.a.name, swap.b.name) == ("modified", "modified_nxt")
    cond = loop.cond
    assert cond.op == "!=" and isinstance(cond.left, P.DeviceRead)
    assert cond.left.array.name == "finished_flag"


FORCED = """
function F(Graph g, propNode<int> a, int k) {
    propNode<bool> modified;
    g.attachNodeProperty(modified = True, a = 0);
    bool done = False;
    int rounds = 0;
    fixedPoint until (done : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            v.a = v.a + 1;
            v.modified = v.a < 3;
        }
        rounds = rounds + 1;
        if (rounds > 2 * k) { return rounds; }
        while (rounds < 0) { break; }
        if (done) { done = False; }
    }
    return rounds;
}
"""


def test_forced_fixedpoint_keeps_iterating_while_the_flag_variable_is_false():
    plan = plan_of(FORCED)
    loop = only(plan.host, P.HostDoWhile)
    first = loop.body.stmts[0]
    assert isinstance(first, P.HostAssign) and first.sym.name == "done"
    assert first.value.value is True
    assert loop.cond.op == "||" and loop.cond.right.op == "!"
    assert loop.cond.right.operand.sym.name == "done"


def test_every_exit_from_a_fixedpoint_swaps_the_buffers_first():
    loop = only(plan_of(FORCED).host, P.HostDoWhile)
    exits = []

    def visit(block, in_loop):
        stmts = block.stmts
        for i, s in enumerate(stmts):
            if isinstance(s, (P.HostBreak, P.HostContinue, P.HostReturn)):
                exits.append((type(s).__name__, in_loop, type(stmts[i - 1]).__name__))
            for child in ("then", "orelse", "body"):
                nested = getattr(s, child, None)
                if isinstance(nested, P.HostBlock):
                    visit(nested, in_loop and not isinstance(s, P.HostWhile))

    visit(loop.body, True)
    # (sema rejects break/continue of the fixedPoint itself; a return leaves it too)
    assert ("HostReturn", True, "SwapArrays") in exits
    # the break of the inner while leaves that loop only: no swap before it
    (inner,) = [e for e in exits if not e[1]]
    assert inner[0] == "HostBreak" and inner[2] != "SwapArrays"


# --- BFS expansion (control.expand_bfs) -----------------------------------------------------

def test_bfs_expands_to_levels_a_direction_optimizing_loop_and_a_reverse_sweep():
    # the form that steps over every vertex (MPI's); the queue form: test_bfs_queue.py
    plan = choose_form(dsl_plan("bc", "expand"), worklist=False)
    block = next(s for s in host_nodes(plan.host) if isinstance(s, P.HostBlock)
                 and any(isinstance(x, P.HostDoWhile) for x in s.stmts))
    assert kinds(block) == ["Fill", "WriteElement"] + ["HostDeclare"] * 5 + [
        "HostDoWhile", "HostForRange"]
    fill, root, depth, awake, scout, unexplored, bottom_up, loop, reverse = block.stmts
    assert (fill.array.name, fill.value.value) == ("bfs_level", -1)
    assert root.index.sym.name == "src" and root.value.value == 0
    assert depth.sym.name == "bfs_depth" and depth.init.value == 0
    # the root is the first frontier; no out-edges counted yet; every edge unexplored
    assert (awake.sym.name, awake.init.value) == ("bfs_awake", 1)
    assert (scout.sym.name, scout.init.value) == ("bfs_scout", 0)
    assert unexplored.init.op == "num_edges" and bottom_up.init.value is False
    # the loop runs while the last step reached a vertex
    assert loop.cond.op == "!=" and loop.cond.left.sym == awake.sym
    assert kinds(loop.body) == ["HostIf", "HostDeclare", "HostAssign", "HostIf", "HostReduce"]
    decide, frontier, clear, step, advance = loop.body.stmts
    # top-down -> bottom-up when scout > unexplored / alpha (GAPBS alpha = 15)
    (switch,) = decide.then.stmts
    assert decide.cond.op == "!" and switch.sym == bottom_up.sym
    assert switch.value.op == ">" and switch.value.left.sym == scout.sym
    assert switch.value.right.op == "/" and switch.value.right.left.sym == unexplored.sym
    assert switch.value.right.right.value == 15
    assert frontier.init.sym == awake.sym and (clear.sym, clear.value.value) == (awake.sym, 0)
    # bottom-up while the frontier grows or holds more than n / beta (GAPBS beta = 18)
    assert step.cond.sym == bottom_up.sym
    assert kinds(step.then) == ["HostAssign", "Launch", "HostAssign"]
    _, up, stay = step.then.stmts
    assert up.kernel.name.endswith("bfs_up_12")
    assert stay.sym == bottom_up.sym and stay.value.op == "||"
    grows, large = stay.value.left, stay.value.right
    assert grows.op == ">=" and (grows.left.sym, grows.right.sym) == (awake.sym, frontier.sym)
    assert large.op == ">" and large.right.left.op == "num_nodes" and large.right.right.value == 18
    # top-down: the frontier's out-edges leave the unexplored ones
    assert kinds(step.orelse) == ["HostReduce", "HostAssign", "Launch"]
    less, _, down = step.orelse.stmts
    assert (less.sym, less.op, less.value.sym) == (unexplored.sym, "-", scout.sym)
    assert down.kernel.name.endswith("bfs_fwd_12")
    for launch in (up, down):
        assert launch.scalar_args == (("bfs_depth", ir.VarRef(depth.sym, type=depth.sym.type)),)
    assert (advance.sym, advance.value.value) == (depth.sym, 1)
    assert (reverse.step, reverse.last.value) == (-1, 0)
    assert reverse.first.op == "-" and reverse.first.left.sym == depth.sym
    (sweep,) = reverse.body.stmts
    assert sweep.kernel.name.endswith("bfs_rev_17")
    assert sweep.scalar_args[0][1].sym == reverse.var


def test_bfs_counts_travel_around_each_step_launch():
    plan = choose_form(dsl_plan(SEARCHED_BFS), worklist=False)
    loop = next(s for s in host_nodes(plan.host) if isinstance(s, P.HostDoWhile))
    step = loop.body.stmts[3]
    # bottom-up: the frontier's pending B1 first (no counts), then the step; both mark B1 run
    assert kinds(step.then) == ["HostIf", "HostAssign", "ToDevice", "Launch", "FromDevice",
                                "HostAssign", "HostAssign"]
    # top-down: with or without the frontier's B1
    assert kinds(step.orelse) == ["HostReduce", "HostAssign", "HostIf", "HostAssign"]
    for launch in (step.orelse.stmts[2].then, step.orelse.stmts[2].orelse):
        assert kinds(launch) == ["ToDevice", "ToDevice", "Launch", "FromDevice", "FromDevice"]


# --- explicit scalar transfers and dead scalars ---------------------------------------------

def test_reduced_scalar_travels_around_its_launch():
    host = dsl_plan("tc").host
    assert kinds(host)[-4:] == ["ToDevice", "Launch", "FromDevice", "HostReturn"]
    to, launch, back = host.stmts[-4:-1]
    assert to.sym.name == back.sym.name == "triangle_count"
    assert to.array == back.array == launch.kernel.reductions[0].array


def test_scalars_nothing_reads_are_elided():
    text = """
function F(Graph g, propNode<int> a, int unused_param) {
    int never_read = 3;
    never_read = 4;
    int kept = 1;
    forall (v in g.nodes()) { v.a = kept; }
}
"""
    plan = plan_of(text)
    names = {s.sym.name for s in host_nodes(plan.host)
             if isinstance(s, (P.HostDeclare, P.HostAssign))}
    assert names == {"kept"}
    params = {p.name: p.uid in plan.read_scalars for p in plan.function.params
              if p.name == "unused_param"}
    assert params == {"unused_param": False}


def test_stop_after_names_every_pass():
    assert PASS_NAMES[0] == "outline" and PASS_NAMES[-1] == "elide"
    for name in PASS_NAMES:
        assert isinstance(dsl_plan("bc", name), P.Plan)
    with pytest.raises(ValueError, match="no analysis pass named"):
        dsl_plan("bc", "nonsense")
