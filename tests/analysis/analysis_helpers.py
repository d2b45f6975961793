"""Shared helpers of the analysis tests: compile DSL text to a plan, find things in plans."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, List, Type, TypeVar

from starc.analysis import lower_function
from starc.analysis import plan as P
from starc.diagnostics import DiagnosticSink
from starc.ir import nodes as ir

from label_rounds import cc_in_rounds

ROOT = Path(__file__).resolve().parents[2]
DSL = ROOT / "dsl"
T = TypeVar("T")

#: An ordered triangle count whose inner loop walks a neighbour's row below it (GAPBS's
#: shape): a distributed run needs the whole rows of its ghosts
#: (``Distribution.ghost_row_slices`` False)
TRIANGLES_OVER_A_NEIGHBOURS_ROW = """function F(Graph g) {
    long count = 0;
    forall (v in g.nodes()) {
        forall (u in g.neighbors(v).filter(u < v)) {
            forall (w in g.neighbors(u).filter(w < u)) {
                if (g.is_an_edge(v, w)) { count += 1; }
            }
        }
    }
    return count;
}
"""

#: dsl/tc.sp with its rows swapped (``row_swap``): the inner loop walks a lower neighbour's
#: row above the vertex, only the part of a ghost's row a rank holds as a slice
TRIANGLES_OVER_A_NEIGHBOURS_SLICE = TRIANGLES_OVER_A_NEIGHBOURS_ROW.replace("w < u", "w > v")


def program_of(text: str, filename: str = "test.sp") -> ir.Program:
    from starc.frontend.parser import parse
    from starc.ir.sema import analyze
    sink = DiagnosticSink()
    sink.add_source(filename, text)
    program = analyze(parse(text, filename), sink)
    assert program is not None and not sink.has_errors, [d.header() for d in sink.diagnostics]
    return program


def plan_of(text: str, function: str = None, stop_after: str = None) -> P.Plan:
    """The plan of ``text`` (its first function, or ``function``) after every analysis pass,
    or after the pass named ``stop_after`` (``"outline"``: fixedPoint and BFS loops still
    structured)."""
    program = program_of(text)
    fn = program.function(function) if function else program.functions[0]
    return lower_function(program, fn, stop_after=stop_after)


#: dsl/bfs.sp with the source's level from a parameter: the parents loop's value is then no
#: proven depth (``analysis.depth_values``), so its search stays (the last-parent search and
#: the bottom-up step running B1 at discovery)
SEARCHED_BFS = "bfs_searched"
#: dsl/cc.sp with its label propagation kept as rounds on every backend (no union-find:
#: tests/label_rounds.py), for the tests of the worklists' machinery
CC_IN_ROUNDS = "cc_in_rounds"


def dsl_text(name: str) -> str:
    """The text of dsl/<name>.sp (or of ``SEARCHED_BFS``, ``CC_IN_ROUNDS``)."""
    if name == CC_IN_ROUNDS:
        return cc_in_rounds()
    if name == SEARCHED_BFS:
        return (DSL / "bfs.sp").read_text().replace("node src)", "node src, int start)") \
            .replace("src.level = 0;", "src.level = start;")
    return (DSL / f"{name}.sp").read_text()


def dsl_plan(name: str, stop_after: str = None) -> P.Plan:
    return plan_of(dsl_text(name), stop_after=stop_after)


def kernel(plan: P.Plan, suffix: str) -> P.Kernel:
    """The kernel whose name ends with ``suffix`` (e.g. ``forall_11``)."""
    found = [k for k in plan.kernels if k.name.endswith(suffix)]
    assert len(found) == 1, [k.name for k in plan.kernels]
    return found[0]


def nodes_of(node, cls: Type[T]) -> List[T]:
    return [n for n in ir.walk(node) if isinstance(n, cls)]


def host_nodes(stmt: P.HostStmt) -> Iterator[P.HostStmt]:
    """Pre-order walk of a host tree (kernels are not entered)."""
    yield stmt
    for name in ("stmts", "then", "orelse", "body", "worklist", "topology"):
        value = getattr(stmt, name, None)
        if isinstance(value, tuple):
            for s in value:
                yield from host_nodes(s)
        elif isinstance(value, P.HostStmt):
            yield from host_nodes(value)


def host_of(plan: P.Plan, cls: Type[T]) -> List[T]:
    return [s for s in host_nodes(plan.host) if isinstance(s, cls)]


def array(plan: P.Plan, name: str) -> P.DeviceArray:
    found = [a for a in plan.arrays if a.name == name]
    assert found, [a.name for a in plan.arrays]
    return found[0]


def params(k: P.Kernel) -> dict:
    """name -> written for array params; name -> 'value' for by-value scalars."""
    return {p.name: (p.written if p.array is not None else "value") for p in k.params}
