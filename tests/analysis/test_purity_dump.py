"""Lowering is pure and deterministic; hand-built IR (no frontend) lowers; the plan dump."""

from __future__ import annotations

import copy
import pickle

import pytest

from analysis_helpers import DSL, dsl_plan, nodes_of, program_of
from starc.analysis import lower_function, plan_dump
from starc.diagnostics import SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import GRAPH, Scalar

ALL = sorted(p.stem for p in DSL.glob("*.sp"))


@pytest.mark.parametrize("name", ALL)
def test_lowering_does_not_mutate_its_input(name):
    program = program_of((DSL / f"{name}.sp").read_text())
    before = pickle.dumps(program)
    snapshot = copy.deepcopy(program)
    first = lower_function(program, program.functions[0])
    assert pickle.dumps(program) == before
    assert program == snapshot
    second = lower_function(program, program.functions[0])
    assert plan_dump(first) == plan_dump(second)


# --- hand-built IR: triangle counting without the frontend -------------------------------------

def _loc(line):
    return SourceLoc("hand.sp", line, 5)


def _tc_program() -> ir.Program:
    S = ir.SymbolKind
    g = ir.Symbol("g", GRAPH, S.PARAM, 1)
    count = ir.Symbol("count", Scalar.LONG, S.LOCAL, 2)
    v = ir.Symbol("v", Scalar.NODE, S.LOOP, 3)
    u = ir.Symbol("u", Scalar.NODE, S.LOOP, 4)
    eu = ir.Symbol("e_u", Scalar.EDGE, S.EDGE, 5)
    ref = lambda s: ir.VarRef(s, type=s.type)  # noqa: E731
    bump = ir.Reduce("+", ref(count), ir.Const(1, type=Scalar.LONG), loc=_loc(5))
    inner = ir.Loop(u, ir.Neighbors(g, ref(v), eu), ir.Block((bump,)), parallel=True,
                    filter=ir.Binary("<", ref(u), ref(v), type=Scalar.BOOL), loc=_loc(4))
    outer = ir.Loop(v, ir.AllNodes(g), ir.Block((inner,)), parallel=True, loc=_loc(3))
    body = ir.Block((ir.Declare(count, ir.Const(0, type=Scalar.LONG), loc=_loc(2)), outer,
                     ir.Return(ref(count), loc=_loc(7))))
    fn = ir.Function("TC", (g,), body, Scalar.LONG)
    return ir.Program((fn,), "hand.sp")


def test_hand_built_ir_lowers():
    program = _tc_program()
    snapshot = copy.deepcopy(program)
    plan = lower_function(program, program.functions[0])
    assert program == snapshot
    (k,) = plan.kernels
    assert (k.name, k.extent, k.index.name) == ("TC_forall_3", "nodes", "v")
    (red,) = k.reductions
    assert (red.sym.name, red.op, red.exclusive, red.array.elem) == (
        "count", "+", True, Scalar.LONG)
    assert [p.name for p in k.params] == ["offsets", "targets", "count_dev"]
    # the count travels to its device copy before the launch and back after it
    assert [type(s).__name__ for s in plan.host.stmts] == [
        "HostDeclare", "ToDevice", "Launch", "FromDevice", "HostReturn"]
    assert plan.host_scalars == (red.sym,)


def test_fresh_symbols_do_not_clash_with_program_uids():
    plan = dsl_plan("bc")
    program_uids = {s.uid for s in _all_symbols(plan.program)}
    invented = [a.sym for a in plan.arrays if a.role in ("level", "next")]
    invented += [l.var for k in plan.kernels for l in nodes_of(k.body, ir.Loop)
                 if l.var.name == "bfs_nbr"]
    assert invented and all(s.uid not in program_uids for s in invented)
    # (a kernel's sparse variant repeats its loop, the same symbol: bfs_queue.py)
    assert len({s.uid for s in invented}) == len(set(invented))


def _all_symbols(node):
    from starc.analysis.naming import symbols_in
    return list(symbols_in(node))


def test_array_for_resolves_every_kernel_property():
    for name in ALL:
        plan = dsl_plan(name)
        for k in plan.kernels:
            for read in nodes_of(k.body, ir.PropRead):
                assert plan.array_for(read.prop).sym == read.prop


def test_dump_sssp():
    text = plan_dump(dsl_plan("sssp"))
    assert "plan Compute_SSSP(" in text
    assert "  weight           int     edges    weight  copy_in" in text
    assert "  dist             int     nodes    result  copy_out" in text
    assert "kernel Compute_SSSP_forall_11 over nodes v" in text
    assert "  guard: modified[v] == True" in text
    assert "atomic Min(dist[nbr], dist[v] + weight[e]) read first {" in text
    assert "set flag finished_flag if clear;" in text
    assert "modified_nxt[nbr] = True;" in text and "set flag finished_flag if clear;" in text
    assert "write dist[src] = 0;" in text
    # the fixedPoint, expanded: flag cleared, next buffer reset, buffers swapped, flag read
    # (its topology-driven form, second in the data-driven block: backends without worklists)
    assert ("    do {\n      write finished_flag[0] = 0;\n      fill modified_nxt = False;\n"
            "      launch Compute_SSSP_forall_11;\n      swap modified <-> modified_nxt;\n"
            "    } while (read finished_flag[0] != 0);\n  }\n") in text
    structured = plan_dump(dsl_plan("sssp", "outline"))
    assert ("fixedPoint finished: current modified, next modified_nxt, flag finished_flag {"
            in structured)


@pytest.mark.parametrize("name", ALL)
def test_dump_every_program(name):
    text = plan_dump(dsl_plan(name))
    assert text.startswith("plan ") and "host:" in text and "<" not in text.replace(
        "<-", "").replace("propNode<", "").replace("propEdge<", "").replace(
        "SetN<", "").replace(" < ", "").replace(" <= ", "")
