"""Data-driven fixedPoint (``analysis/frontier.py``): a worklist only where the convergence
flag is set (to True, through the next buffer) by filtered kernels alone."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.frontier_seed import ALL_FLAGGED, ONE_FLAGGED
from starc.analysis.priority_window import WINDOW_DELTA
from starc.analysis.frontier import DENSE_DIVISOR, FRONTIER_COUNT, FRONTIER_ROUND, choose_form
from starc.ir import nodes as ir

from analysis_helpers import ROOT, dsl_plan, dsl_text, host_nodes, plan_of

PROGRAMS = ROOT / "tests" / "e2e" / "programs"


def _loops(plan: P.Plan):
    return [s for s in host_nodes(plan.host) if isinstance(s, P.FixedPointLoop)]


def _structured(text: str) -> P.FixedPointLoop:
    [loop] = _loops(plan_of(text, stop_after="frontier"))
    return loop


@pytest.mark.parametrize("name", ["sssp", "cc"])
def test_sssp_and_cc_get_a_worklist(name):
    [loop] = _loops(dsl_plan(name, stop_after="frontier"))
    assert loop.worklist is not None and loop.topology_why == ""
    plan = dsl_plan(name)
    [both] = [s for s in host_nodes(plan.host) if isinstance(s, P.DataDrivenLoop)]
    sparse = [k for _, k in loop.worklist.launches]
    assert all(k.extent == "frontier" for k in sparse)
    # The worklist form appends where the topology form sets the flag, and never sets it.
    chosen = choose_form(plan, worklist=True)
    kept = {k.name for k in chosen.kernels}
    assert {k.name for k in sparse} <= kept
    assert not any(isinstance(n, P.FlagSet) for k in chosen.kernels
                   for n in _walk(k.body))
    assert sum(isinstance(n, P.QueueAppend) for k in chosen.kernels for n in _walk(k.body))
    assert "finished_flag" not in {a.name for a in chosen.arrays}
    # The topology form is today's loop, with none of the worklist's arrays or kernels.
    topology = choose_form(plan, worklist=False)
    assert not any(isinstance(s, P.DataDrivenLoop) for s in host_nodes(topology.host))
    assert not any(a.name.endswith(("_frontier", "_queued")) for a in topology.arrays)
    assert {k.name for k in topology.kernels}.isdisjoint({k.name for k in sparse})
    assert both.topology.stmts == tuple(topology.host.stmts[-len(both.topology.stmts):])


def _parity(expr, following: int) -> bool:
    """Whether ``expr`` is ``round % 2`` (``following``: ``1 - round % 2``), ``round`` a host
    or a kernel scalar."""
    if following:
        if not (isinstance(expr, ir.Binary) and expr.op == "-" and expr.left.value == 1):
            return False
        expr = expr.right
    if not (isinstance(expr, ir.Binary) and expr.op == "%" and expr.right.value == 2):
        return False
    at = expr.left
    return (isinstance(at, ir.VarRef) and at.sym.name == FRONTIER_ROUND) or \
        (isinstance(at, P.KernelScalar) and at.name == FRONTIER_ROUND)


def test_the_worklist_loop_launches_by_density_and_clears_what_the_queue_set():
    loop = [s for s in host_nodes(choose_form(dsl_plan("sssp"), worklist=True).host)
            if isinstance(s, P.HostDoWhile)][0]
    kinds = [type(s).__name__ for s in loop.body.stmts]
    # no reset of the queue length before a sparse round: the round's kernel zeroes the slot
    # the next round uses
    assert kinds == ["HostReduce", "HostIf", "SwapArrays", "SwapArrays", "HostIf"]
    next_round, launch, swap, swap_queues, after = loop.body.stmts
    assert next_round.sym.name == FRONTIER_ROUND
    assert launch.cond.op == ">" and launch.cond.right.right.value == DENSE_DIVISOR
    [reset, unwindowed, dense], [grouped] = launch.then.stmts, launch.orelse.stmts
    # a small sparse round runs in one work-group's rounds (test_worklist_rounds.py), a
    # larger one a launch
    assert grouped.then.stmts[0].kernel.extent == "group"
    [sparse] = grouped.orelse.stmts
    # a dense round's kernels have no first item to spare: the host zeroes the next slot
    assert isinstance(reset, P.WriteElement) and reset.array.name == "modified_frontier_size"
    assert reset.array.extent == "two" and _parity(reset.index, 1)
    # and it takes no mins for the sparse rounds' priority window (test_priority_window.py)
    assert isinstance(unwindowed, P.Fill) and unwindowed.array.extent == "window"
    assert isinstance(unwindowed.value, ir.Inf)
    assert (dense.kernel.extent, sparse.kernel.extent) == ("nodes", "frontier")
    assert dict(sparse.scalar_args).keys() == {FRONTIER_COUNT, FRONTIER_ROUND, WINDOW_DELTA}
    assert dict(dense.scalar_args).keys() == {FRONTIER_ROUND}
    [zero] = [n for n in _walk(sparse.kernel.body) if isinstance(n, P.QueueReset)]
    assert zero.size == reset.array and _parity(zero.slot, 1)
    [first] = [n for n in _walk(sparse.kernel.body)
               if isinstance(n, ir.If) and zero in n.then.stmts]
    assert first.cond.op == "==" and first.cond.left.sym == sparse.kernel.index
    assert first.cond.right.value == 0 and first in sparse.kernel.body.stmts
    assert (swap.a.name, swap.b.name) == ("modified", "modified_nxt")
    assert (swap_queues.a.name, swap_queues.b.name) == ("modified_frontier",
                                                         "modified_frontier_nxt")
    assert after.cond == launch.cond
    # dense: fill all next flags, read the flip count and, when the next round is sparse,
    # compact the flags into the queue
    fill, count, compact = after.then.stmts
    assert isinstance(fill, P.Fill) and fill.array.name == "modified_nxt"
    assert isinstance(count.value, P.DeviceRead) and count.value.array.name == reset.array.name
    assert _parity(count.value.index, 0)
    assert compact.cond.op == "&&" and compact.orelse is None
    assert [c.op for c in (compact.cond.left, compact.cond.right)] == ["!=", "<="]
    # the compaction is a round of its own: the next slot zeroed, the build appends to its
    again, again_reset, build, recount = compact.then.stmts
    assert again == next_round and again_reset == reset
    assert build.kernel.name == "modified_frontier_build"
    assert dict(build.scalar_args).keys() == {FRONTIER_ROUND}
    assert build.kernel.extent == "nodes" and recount == count
    # sparse: its appends are the new length; the sparse kernel cleared its entries' flags
    # (no clear launch: test_a_one_kernel_round_clears_its_entries_flags_in_that_kernel)
    [sparse_count] = after.orelse.stmts
    assert sparse_count == count
    assert loop.cond.op == "!=" and loop.cond.left.sym == count.sym


def test_a_one_kernel_round_clears_its_entries_flags_in_that_kernel():
    """The sparse kernel's last statement clears its entry's flag, whether its filter held or
    not, so the worklist has no clear kernel (a launch fewer a sparse round)."""
    [loop] = _loops(dsl_plan("sssp", stop_after="frontier"))
    assert loop.worklist.clear is None
    [(_, sparse)] = loop.worklist.launches
    entry, tested, cleared, _reset = sparse.body.stmts
    assert isinstance(tested, ir.If) and isinstance(cleared, ir.Assign)
    assert cleared.target.prop.name == "modified" and cleared.value.value is False
    assert cleared.target.index.sym == entry.sym
    [written] = [p for p in sparse.params if p.array is not None and p.array.name == "modified"]
    assert written.written


@pytest.mark.parametrize("change, reason", [
    # the body reads the flag at another vertex, which that vertex's item may have cleared
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;",
     "if (nbr.modified == False) {\n"
     "                    <nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;\n"
     "                }"),
    # a second kernel in the round tests the flag after the first
    ("            }\n        }\n    }\n}",
     "            }\n        }\n        forall (v in g.nodes().filter(modified == True)) {\n"
     "            v.dist = v.dist + 0;\n        }\n    }\n}"),
])
def test_a_round_whose_flags_are_read_elsewhere_keeps_its_clear_kernel(change, reason):
    text = SSSP.replace(change, reason)
    assert text != SSSP
    loop = _structured(text)
    assert loop.worklist is not None and loop.worklist.clear is not None
    assert all(not isinstance(sparse.body.stmts[-2], ir.Assign)
               for _, sparse in loop.worklist.launches)


def test_dense_rounds_count_flips_without_stamp_or_append():
    plan = choose_form(dsl_plan("sssp"), worklist=True)
    dense = next(k for k in plan.kernels if k.name.endswith("_dense"))
    nodes = list(_walk(dense.body))
    assert not any(isinstance(n, (P.QueueAppend, P.FlagSet)) for n in nodes)
    assert not any(isinstance(n, P.AtomicMinMax) and n.func == "Max" for n in nodes)
    [count] = [n for n in nodes if isinstance(n, P.QueueCount)]
    assert count.size.name == "modified_frontier_size"
    # counted only where the flag read clear, in the same branch that sets it
    [flip] = [n for n in nodes if isinstance(n, ir.If) and count in n.then.stmts]
    assert isinstance(flip.cond, ir.Unary) and flip.cond.operand.prop.name == "modified_nxt"
    [store] = [s for s in flip.then.stmts if isinstance(s, ir.Assign)]
    assert store.target.prop.name == "modified_nxt" and store.value.value is True
    assert {p.array.name for p in dense.params if p.array is not None}.isdisjoint(
        {"modified_queued", "modified_frontier", "modified_frontier_nxt"})
    sparse = next(k for k in plan.kernels if k.name.endswith("_sparse"))
    assert any(isinstance(n, P.QueueAppend) for n in _walk(sparse.body))
    assert not any(isinstance(n, P.QueueCount) for n in _walk(sparse.body))


def _walk(node):
    from starc.ir import nodes as ir
    return ir.walk(node)


def test_plain_flag_sets_get_a_worklist():
    loop = _structured((PROGRAMS / "frontier_reach.sp").read_text())
    assert loop.worklist is not None


def test_an_unfiltered_kernel_in_the_body_keeps_the_topology_form():
    loop = _structured((PROGRAMS / "frontier_unsafe.sp").read_text())
    assert loop.worklist is None
    assert "not filtered on 'modified == True'" in loop.topology_why


SSSP = (ROOT / "dsl" / "sssp.sp").read_text()


@pytest.mark.parametrize("change, reason", [
    # the flag is also cleared: the queue would hold vertices whose flag is False
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;",
     "<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;\n"
     "                v.modified = False;"),
    # a computed flag value
    ("<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;",
     "<nbr.dist, nbr.modified> = <Min(nbr.dist, v.dist + e.weight), True>;\n"
     "                nbr.modified = v.modified;"),
    # host work in the loop that reads the flag
    ("    fixedPoint until (finished : !modified) {\n",
     "    fixedPoint until (finished : !modified) {\n        bool seen = src.modified;\n"),
    # the body forces rounds
    ("    fixedPoint until (finished : !modified) {\n",
     "    fixedPoint until (finished : !modified) {\n        finished = False;\n"),
    # a filter that is not the flag
    ("forall (v in g.nodes().filter(modified == True))",
     "forall (v in g.nodes().filter(dist < INF))"),
])
def test_unsafe_bodies_keep_the_topology_form(change, reason):
    text = SSSP.replace(change, reason)
    assert text != SSSP
    loop = _structured(text)
    assert loop.worklist is None and loop.topology_why
    plan = plan_of(text)
    assert not any(isinstance(s, P.DataDrivenLoop) for s in host_nodes(plan.host))


def test_the_plan_dump_shows_both_forms_and_why_not():
    from starc.analysis.dump import plan_dump
    text = plan_dump(dsl_plan("sssp"))
    assert "data-driven (worklist" in text and "topology-driven {" in text
    assert "append nbr to modified_frontier_nxt" in text
    assert "count 1 in modified_frontier_size" in text
    structured = plan_dump(plan_of((PROGRAMS / "frontier_unsafe.sp").read_text(),
                                   stop_after="frontier"))
    assert "topology-driven: the body launches a kernel not filtered" in structured


def test_a_fixedpoint_run_once_per_batch_fills_its_stamps_and_flags_on_its_first_run_only():
    """dyn_sssp's three fixedPoints inside its batch loop keep their round counts across
    batches (declared once, at the top) and fill their stamps and next flags only when the
    count is 0 (their first run) or past the limit; a target without worklists (MPI) keeps
    no round count."""
    plan = plan_of(dsl_text("dynamic/dyn_sssp"), function="DynSSSP")
    chosen = choose_form(plan, worklist=True)
    top = {s.sym for s in chosen.host.stmts if isinstance(s, P.HostDeclare)}
    [batch] = [s for s in host_nodes(chosen.host) if isinstance(s, P.BatchLoop)]

    def stamp_fill(s):
        return isinstance(s, P.Fill) and s.array.name.endswith("_queued")
    # (Incremental's set-up twice: before its update kernel's seed, and in its prologue for a
    # batch without additions)
    assert sum(map(stamp_fill, host_nodes(batch))) == 4
    firsts = [s for s in host_nodes(batch) if isinstance(s, P.HostIf)
              and any(map(stamp_fill, s.then.stmts))]
    assert len(firsts) == 4
    rounds = {first.cond.left.left.sym for first in firsts}
    assert len(rounds) == 3 and rounds <= top
    assert not any(isinstance(s, P.HostDeclare) and s.sym in rounds for s in host_nodes(batch))
    guarded = []
    for first in firsts:
        assert first.cond.op == "||" and first.cond.left.left.sym.name == FRONTIER_ROUND
        names = [s.array.name for s in first.then.stmts if isinstance(s, P.Fill)]
        assert sum(n.endswith("_queued") for n in names) == 1
        assert sum(n.endswith("_nxt") for n in names) == 1
        # (the queue length: a run leaves both its slots 0)
        assert sum(n.endswith("_frontier_size") for n in names) == 1
        guarded += [n for n in names if not n.endswith(("_queued", "_nxt", "_frontier_size"))]
    # (and the flags of the two seeded loops: ``test_a_seeded_fixedpoint_run_per_batch...``)
    assert sorted(guarded) == ["Decremental_modified", "Decremental_newly"]
    topology = choose_form(plan, worklist=False)
    assert not any(isinstance(s, P.HostDeclare) and s.sym.name == FRONTIER_ROUND
                   for s in host_nodes(topology.host))


def test_a_batch_resets_a_queue_length_only_before_a_dense_round_or_a_compaction():
    """dyn_sssp's three worklists, per batch: no reset of the queue length before a sparse
    round nor at a rerun's start (a run leaves both slots 0; the sparse round's first item
    zeroes the slot the next round uses), only before a dense round (in its branch) and a
    compaction, and the fill of both slots on a loop's first run."""
    chosen = choose_form(plan_of(dsl_text("dynamic/dyn_sssp"), function="DynSSSP"),
                         worklist=True)
    [batch] = [s for s in host_nodes(chosen.host) if isinstance(s, P.BatchLoop)]

    def resets(stmt):
        return [s for s in host_nodes(stmt) if isinstance(s, (P.WriteElement, P.Fill))
                and s.array.name.endswith("_frontier_size")]
    loops = [s for s in host_nodes(batch) if isinstance(s, P.HostDoWhile)]
    assert len(loops) == 3
    firsts = [s for s in host_nodes(batch) if isinstance(s, P.HostIf)
              and isinstance(s.cond.left, ir.Binary) and s.cond.left.left.sym.name ==
              FRONTIER_ROUND]
    # (Incremental's twice: before its update kernel's seed and in its prologue)
    assert len(firsts) == 4 and all(len(resets(first)) == 1 for first in firsts)
    assert all(isinstance(r, P.Fill) for first in firsts for r in resets(first))
    allowed = {id(r) for first in firsts for r in resets(first)}
    for loop in loops:
        choices = [s for s in loop.body.stmts if isinstance(s, P.HostIf)]
        compactions = [s for s in host_nodes(choices[-1].then) if isinstance(s, P.HostIf)]
        assert len(compactions) == 1
        for dense_first in (choices[0].then, compactions[0].then):
            [reset] = resets(dense_first)
            assert isinstance(reset, P.WriteElement) and dense_first.stmts.index(reset) <= 1
            allowed.add(id(reset))
        assert resets(choices[0].orelse) == []     # the sparse branch
    assert {id(r) for r in resets(batch)} == allowed


#: a fixedPoint on ``m`` relaxing ``d``, inside a loop
_RELAX_IN_LOOP = """
        bool fin = False;
        fixedPoint until (fin : !m) {
            forall (v in g.nodes().filter(m == True)) {
                forall (w in g.neighbors(v)) {
                    <w.d, w.m> = <Min(w.d, v.d + 1), True>;
                }
            }
        }
"""


def test_only_the_hoisted_round_counts_go_with_the_worklist_form():
    """A program's own variable named like the round count stays in both forms; the hoisted
    count of the fixedPoint inside its loop is dropped with the worklist form alone."""
    plan = plan_of("""
function F(Graph g, propNode<bool> m, propNode<int> d) {
    int frontier_round = 0;
    while (frontier_round < 3) {
        g.attachNodeProperty(m = True, d = 0);
""" + _RELAX_IN_LOOP + """        frontier_round = frontier_round + 1;
    }
}
""")

    def declared(p):
        return [s.sym for s in p.host.stmts if isinstance(s, P.HostDeclare)
                and s.sym.name == FRONTIER_ROUND]
    worklist, topology = choose_form(plan, worklist=True), choose_form(plan, worklist=False)
    assert len(declared(worklist)) == 2
    [own] = declared(topology)
    assert own in declared(worklist)


def _per_batch_node_launches(plan: P.Plan) -> list:
    """The kernels over all vertices a batch launches once each, outside the rounds (the
    n-long scans of a batch's fixed cost)."""
    [batch] = [s for s in host_nodes(plan.host) if isinstance(s, P.BatchLoop)]
    in_rounds = {id(s) for loop in host_nodes(batch) if isinstance(loop, P.HostDoWhile)
                 for s in host_nodes(loop)}
    return [s.kernel.name for s in host_nodes(batch) if isinstance(s, P.Launch)
            and id(s) not in in_rounds and s.kernel.extent == "nodes"]


def test_the_kernel_that_sets_the_first_flags_appends_the_first_queue():
    """dyn_sssp's Decremental: the subtree loop's flags are filled False and set by one
    kernel (``v.newly = True`` at its own vertex), the pull's likewise (``v.modified = True``):
    their worklist form launches that kernel with an append where it sets the flag, in place
    of the build's scan over all vertices (5 -> 3 such scans a batch); the topology form (MPI)
    launches it as written. Incremental's flags are set by the update loop, at an update's
    source: its seed (``test_the_batchs_update_kernel_appends_the_incremental_first_queue``)
    takes the last scan (3 -> 2)."""
    plan = plan_of(dsl_text("dynamic/dyn_sssp"), function="DynSSSP")
    worklist = choose_form(plan, worklist=True)
    scans = _per_batch_node_launches(worklist)
    assert scans == ["DynSSSP_forall_39_seed", "DynSSSP_forall_57_seed"], scans
    seed = next(k for k in worklist.kernels if k.name == "DynSSSP_forall_39_seed")
    [append] = [n for n in ir.walk(seed.body) if isinstance(n, P.QueueAppend)]
    assert append.queue.name == "Decremental_newly_frontier"
    assert append.value == ir.VarRef(seed.index, type=seed.index.type)
    topology = choose_form(plan, worklist=False)
    assert _per_batch_node_launches(topology) == ["DynSSSP_forall_39", "DynSSSP_forall_57"]
    assert not any(k.name.endswith("_seed") for k in topology.kernels)


SEEDED = """
function F(Graph g, propNode<bool> m, propNode<int> d, propNode<bool> start) {
    g.attachNodeProperty(m = False, d = 0);
    forall (v in g.nodes().filter(start == True)) {
        v.m = True;
    }
    bool fin = False;
    fixedPoint until (fin : !m) {
        forall (v in g.nodes().filter(m == True)) {
            forall (w in g.neighbors(v)) {
                <w.d, w.m> = <Min(w.d, v.d + 1), True>;
            }
        }
    }
}
"""


def _worklist(text: str) -> P.Worklist:
    [loop] = [s for s in host_nodes(plan_of(text, stop_after="frontier").host)
              if isinstance(s, P.FixedPointLoop)]
    assert loop.worklist is not None
    return loop.worklist


def _seeded(text: str) -> bool:
    return _worklist(text).seed is not None


def _changed(text: str, change: str, reason: str) -> str:
    changed = text.replace(change, reason)
    assert changed != text
    return changed


@pytest.mark.parametrize("change, reason", [
    # the flags not all False before the kernel: the queue would miss those set before
    ("g.attachNodeProperty(m = False, d = 0);", "g.attachNodeProperty(m = True, d = 0);"),
    # the flag set at a neighbour: two items may set it, so two would append it
    ("        v.m = True;\n",
     "        forall (w in g.neighbors(v)) {\n            w.m = True;\n        }\n"),
    # set twice by the same item
    ("        v.m = True;\n", "        v.m = True;\n        if (v.d == 0) { v.m = True; }\n"),
    # read in the kernel (a value other than the one the queue records)
    ("        v.m = True;\n", "        v.m = True;\n        v.d = v.d + 1;\n"
     "        if (v.m) { v.d = 1; }\n"),
    # a statement between the kernel and the loop that reads the device
    ("    bool fin = False;\n", "    bool fin = False;\n    d[0] = 3;\n"),
])
def test_the_first_queue_is_built_where_the_setting_kernel_cannot_append_it(change, reason):
    assert _seeded(SEEDED)
    assert not _seeded(_changed(SEEDED, change, reason))


def _per_batch_node_fills(plan: P.Plan) -> list:
    """The arrays over all vertices a batch fills every time, outside the rounds and the
    worklists' first-run guards (``if (round == 0 || ...)``)."""
    [batch] = [s for s in host_nodes(plan.host) if isinstance(s, P.BatchLoop)]
    skipped = {id(s) for node in host_nodes(batch)
               if isinstance(node, P.HostDoWhile) or (
                   isinstance(node, P.HostIf) and isinstance(node.cond, ir.Binary)
                   and node.cond.op == "||" and isinstance(node.cond.left, ir.Binary)
                   and getattr(node.cond.left.left, "sym", None) is not None
                   and node.cond.left.left.sym.name == FRONTIER_ROUND)
               for s in host_nodes(node) if s is not node}
    return [s.array.name for s in host_nodes(batch) if isinstance(s, P.Fill)
            and id(s) not in skipped and s.array.extent == "nodes"]


def test_a_seeded_fixedpoint_run_per_batch_fills_its_flags_on_its_first_run_only():
    """dyn_sssp's Decremental: nothing but the seed launch and the loop writes the subtree
    loop's and the pull's flags, and a fixedPoint leaves its flags all False, so the worklist
    form fills them on the loop's first run only (a batch's n-long fills 4 -> 1: the batch's
    own gone; its modified is False already, ``loop_fills``); the topology form (MPI) fills
    them before the seed launch."""
    plan = plan_of(dsl_text("dynamic/dyn_sssp"), function="DynSSSP")
    worklist = choose_form(plan, worklist=True)
    assert _per_batch_node_fills(worklist) == ["gone"]
    topology = choose_form(plan, worklist=False)
    fills = _per_batch_node_fills(topology)
    assert "Decremental_newly" in fills and "Decremental_modified" in fills
    [batch] = [s for s in host_nodes(topology.host) if isinstance(s, P.BatchLoop)]
    order = [s.array.name if isinstance(s, P.Fill) else s.kernel.name
             for s in host_nodes(batch) if isinstance(s, (P.Fill, P.Launch))]
    assert order.index("Decremental_newly") < order.index("DynSSSP_forall_39")


ONCE = """
function F(Graph g, propNode<int> d, propNode<bool> start, int k) {
    propNode<bool> m;
    int i = 0;
    while (i < k) {
        g.attachNodeProperty(m = False);
        forall (v in g.nodes().filter(start == True)) {
            v.m = True;
        }
""" + _RELAX_IN_LOOP + """        i = i + 1;
    }
}
"""


def _filled_once(text: str) -> bool:
    worklist = _worklist(text)
    assert worklist.seed is not None
    return worklist.fill is not None


@pytest.mark.parametrize("change, reason", [
    # another kernel sets the flags after the loop: the next run would find them set
    ("        i = i + 1;\n", "        forall (v in g.nodes()) { v.m = True; }\n"
     "        i = i + 1;\n"),
    # another fill of the flags (True) elsewhere
    ("    int i = 0;\n", "    int i = 0;\n    g.attachNodeProperty(m = True);\n"),
])
def test_the_seeds_fill_stays_where_something_else_writes_the_flags(change, reason):
    assert _filled_once(ONCE)
    assert not _filled_once(_changed(ONCE, change, reason))


def _update_seeded(text: str) -> P.Worklist:
    """The worklist of ``text``'s last fixedPoint (dyn_sssp's Incremental)."""
    loops = [s for s in host_nodes(plan_of(text, function="DynSSSP", stop_after="frontier").host)
             if isinstance(s, P.FixedPointLoop)]
    assert loops[-1].worklist is not None
    return loops[-1].worklist


def test_the_batchs_update_kernel_appends_the_incremental_first_queue():
    """dyn_sssp's Incremental: the batch fills 'modified' False, and only the OnAdd kernel sets
    it (at an update's source, several updates the same vertex) before the loop, with the
    graph update between. Its worklist form launches a variant that appends each vertex it
    flags once, claimed by the worklist's stamp in a round of its own, after the worklist's
    first-run set-up; the loop builds no first queue. The topology form (MPI) launches the
    kernel as written."""
    text = dsl_text("dynamic/dyn_sssp")
    assert "appended by the batch's update kernel at line 93" in \
        _update_seeded(text).update_seed
    plan = plan_of(text, function="DynSSSP")
    worklist = choose_form(plan, worklist=True)
    [update] = [s for s in host_nodes(worklist.host)
                if isinstance(s, P.UpdateLoop) and s.kind == "add"]
    stmts = update.body.stmts
    assert isinstance(stmts[0], P.HostIf)       # the first run's stamps and length, first
    # (past the round limit a round sooner than the loop's own test after the seed's round,
    # which would empty the seeded queue)
    assert stmts[0].cond.right.op == ">="
    assert isinstance(stmts[1], P.HostReduce) and stmts[1].sym.name == FRONTIER_ROUND
    launch = stmts[2]
    assert launch.kernel.name == "DynSSSP_updates_93_seed"
    assert dict(launch.scalar_args)[FRONTIER_ROUND].sym is stmts[1].sym
    [claim] = [n for n in ir.walk(launch.kernel.body) if isinstance(n, P.AtomicMinMax)]
    assert claim.target.prop.name == "modified_queued" and claim.func == "Max"
    [append] = claim.then
    assert isinstance(append, P.QueueAppend) and append.queue.name == "modified_frontier"
    # (its build remains the compaction after a dense round: ``_per_batch_node_launches``)
    topology = choose_form(plan, worklist=False)
    names = {s.kernel.name for s in host_nodes(topology.host) if isinstance(s, P.Launch)}
    assert "DynSSSP_updates_93" in names and not any(n.endswith("_seed") for n in names)


@pytest.mark.parametrize("change, reason", [
    # the flags not filled False in the batch before the kernel
    ("g.attachNodeProperty(gone = False, modified = False);",
     "g.attachNodeProperty(gone = False);"),
    # the kernel reads the flag
    ("            if (s.dist != INF) {\n                s.modified = True;",
     "            if (s.dist != INF && !s.modified) {\n                s.modified = True;"),
    # the kernel clears a flag
    ("            if (s.dist != INF) {\n                s.modified = True;\n            }",
     "            if (s.dist != INF) {\n                s.modified = True;\n            }"
     " else {\n                s.modified = False;\n            }"),
    # another kernel sets the flags between the update kernel and the loop
    ("        g.updateCSRAdd(updateBatch);\n",
     "        g.updateCSRAdd(updateBatch);\n"
     "        forall (v in g.nodes().filter(gone == True)) {\n            v.modified = True;\n"
     "        }\n"),
])
def test_the_incremental_first_queue_is_built_where_the_update_kernel_cannot_append_it(
        change, reason):
    text = dsl_text("dynamic/dyn_sssp")
    assert _update_seeded(text).update_seed
    assert not _update_seeded(_changed(text, change, reason)).update_seed


#: the fuzzer's shape (tests/fuzz/dynamic_programs.py): the batch recomputes from src by a
#: fixedPoint on the same flag before its OnAdd, which leaves the flag all False (dyn_sssp's
#: Relax)
_DYN_SSSP = dsl_text("dynamic/dyn_sssp")
AFTER_A_LOOP = _DYN_SSSP[_DYN_SSSP.index("function Relax("):_DYN_SSSP.index("Static ")] + """
Dynamic DynSSSP(Graph g, propNode<int> dist, propNode<node> parent, propEdge<int> weight,
                updates<g> U, int batchSize, node src) {
    propNode<bool> modified;
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.attachNodeProperty(dist = INF, modified = False);
        src.dist = 0;
        src.modified = True;
        Relax(g, dist, parent, weight, modified);
        OnAdd (u in U.currentBatch()) : {
            node s = u.source;
            if (s.dist != INF) {
                s.modified = True;
            }
        }
        g.updateCSRAdd(U);
        Relax(g, dist, parent, weight, modified);
    }
}
"""


def test_a_fixedpoint_on_the_flag_before_the_update_kernel_leaves_it_false_for_the_seed():
    """The last statement before the OnAdd kernel that touches the flag is a fixedPoint on it,
    which exits with the flags all False: the update kernel appends the first queue; a
    statement between them that sets the flag stops it."""
    assert "left all False by the fixedPoint on it" in _update_seeded(AFTER_A_LOOP).update_seed
    changed = _changed(AFTER_A_LOOP, "        OnAdd (u in U.currentBatch()) : {\n",
                       "        src.modified = True;\n"
                       "        OnAdd (u in U.currentBatch()) : {\n")
    assert not _update_seeded(changed).update_seed


def test_a_loop_whose_flags_were_all_set_starts_dense_without_a_build():
    """cc attaches its flags True: the first queue is every vertex, so the count starts at
    n (a dense round) and no build scans the flags first; sssp, whose flags one launch sets,
    keeps its seeded queue."""
    [cc] = [s for s in host_nodes(dsl_plan("cc", stop_after="frontier").host)
            if isinstance(s, P.FixedPointLoop)]
    assert cc.worklist.all_flagged
    host = choose_form(dsl_plan("cc"), worklist=True).host
    before = list(host_nodes(host))
    loop = next(i for i, s in enumerate(before) if isinstance(s, P.HostDoWhile))
    assert not any(isinstance(s, P.Launch) and s.kernel.name == "modified_frontier_build"
                   for s in before[:loop])
    [count] = [s for s in before[:loop] if isinstance(s, P.HostDeclare)
               and s.sym.name == FRONTIER_COUNT]
    assert isinstance(count.init, ir.GraphQuery) and count.init.op == "num_nodes"
    [form] = [s for s in host_nodes(dsl_plan("cc").host) if isinstance(s, P.DataDrivenLoop)]
    assert form.first_queue == ALL_FLAGGED
    [sssp] = [s for s in host_nodes(dsl_plan("sssp", stop_after="frontier").host)
              if isinstance(s, P.FixedPointLoop)]
    assert not sssp.worklist.all_flagged


def test_a_loop_whose_host_set_one_flag_writes_that_vertex_as_its_first_queue():
    """sssp fills its flags False and the host sets src's: the first queue is src, which
    the host writes (count 1), with no build scanning every flag."""
    [sssp] = [s for s in host_nodes(dsl_plan("sssp", stop_after="frontier").host)
              if isinstance(s, P.FixedPointLoop)]
    assert sssp.worklist.first_vertex.sym.name == "src" and sssp.worklist.seed is None
    before = list(host_nodes(choose_form(dsl_plan("sssp"), worklist=True).host))
    loop = next(i for i, s in enumerate(before) if isinstance(s, P.HostDoWhile))
    assert not any(isinstance(s, P.Launch) and s.kernel.name == "modified_frontier_build"
                   for s in before[:loop])
    [write] = [s for s in before[:loop] if isinstance(s, P.WriteElement)
               and s.array.name == "modified_frontier"]
    assert write.index.value == 0 and write.value.sym.name == "src"
    [count] = [s for s in before[:loop] if isinstance(s, P.HostDeclare)
               and s.sym.name == FRONTIER_COUNT]
    assert count.init.value == 1
    [form] = [s for s in host_nodes(dsl_plan("sssp").host) if isinstance(s, P.DataDrivenLoop)]
    assert form.first_queue == ONE_FLAGGED


@pytest.mark.parametrize("between", ["src.dist = 0; v0.modified = True;",
                                     "forall (v in g.nodes()) { v.modified = True; }"])
def test_a_second_flag_set_before_the_loop_builds_the_first_queue(between):
    text = dsl_text("sssp").replace("src.dist = 0;", between).replace(
        "node src)", "node src, node v0)")
    [loop] = [s for s in host_nodes(plan_of(text, stop_after="frontier").host)
              if isinstance(s, P.FixedPointLoop)]
    assert loop.worklist.first_vertex is None
