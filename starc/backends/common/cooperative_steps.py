"""The steps of a binned kernel's heavy vertex (``plan.CooperativeLoop.steps``) printed to C text.

Each step becomes a ``StepCode`` whose lines the binned shell (``binned_shell``) places in its
group and warp tiers: every lane's declarations, a push or fold loop whose edges the lanes
stride through (``CPrinter.strided``), the first lane's statements, a search's pieces (its
edge range, the test at one position, the branch the winning lane runs) and a branch's test.
"""

from __future__ import annotations

from typing import List

from starc.backends.common.c_statements import CPrinter
from starc.backends.common.kernel_arguments import EdgeLoopCode, FrontierCode, StepCode
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["print_steps", "print_frontier"]


def print_steps(steps, stmts, printer: CPrinter) -> List[StepCode]:
    """The ``StepCode`` of each of ``steps`` over the block ``stmts`` of the kernel's body."""
    printed = []
    for step in steps:
        stmt = stmts[step.at]
        if step.kind == "branch":
            printed.append(StepCode("branch", test=printer.expr(stmt.cond),
                                    then=print_steps(step.then, stmt.then.stmts, printer),
                                    orelse=print_steps(step.orelse, stmt.orelse.stmts,
                                                       printer)))
        elif step.kind == "search":
            printed.append(_search(stmt, step.guarded, printer))
        elif step.kind in ("push", "fold"):
            printer.strided = stmt.var
            try:
                lines = printer.block(ir.Block((stmt,), loc=stmt.loc), 0)
            finally:
                printer.strided = None
            code = StepCode(step.kind, lines)
            if step.kind == "fold":
                accumulator = step.accumulator
                code.accumulator = printer.expr(ir.VarRef(accumulator, type=accumulator.type))
                code.combine = printer.wrapping(step.op, accumulator.type, "{0}", "{1}") \
                    if step.wraps else f"{{0}} {step.op} {{1}}"
            printed.append(code)
        else:
            printed.append(StepCode(step.kind, printer.block(ir.Block((stmt,), loc=stmt.loc),
                                                             0)))
    return printed


def _reads(node, sym: ir.Symbol) -> bool:
    return node is not None and any(isinstance(x, ir.VarRef) and x.sym == sym
                                    for x in ir.walk(node))


def _search(loop: ir.Loop, guarded: bool, printer: CPrinter) -> StepCode:
    """A search loop's pieces (``StepCode``): the range of the vertex's row, the variables
    bound at a position (each only where read), the test (the filter and, ``guarded``, the
    body's ``if``) and the winner's statements (before the ``break``)."""
    body = loop.body.stmts[0].then if guarded else loop.body
    tests = [t for t in (loop.filter, loop.body.stmts[0].cond if guarded else None) if t]
    test = tests[0] if len(tests) == 1 else None
    if len(tests) == 2:
        test = ir.Binary("&&", tests[0], tests[1], type=Scalar.BOOL, loc=loop.loc)
    then = body.stmts[:-1]
    then_block = ir.Block(then, loc=loop.loc)
    row = _Row(loop, printer)
    return StepCode("search", printer.block(then_block, 0), begin=row.begin, end=row.end,
                    position=row.position, descending=isinstance(loop.domain, ir.InNeighbors)
                    and loop.domain.descending, binding=row.binding(test),
                    test="" if test is None else printer.expr(test),
                    winner_binding=row.binding(then_block))


class _Row:
    """A neighbour loop's row, for a shell that picks its positions itself: ``begin``,
    ``end``, the position's name and the lines binding the loop's variables at it."""

    def __init__(self, loop: ir.Loop, printer: CPrinter) -> None:
        dom = loop.domain
        self.loop, self.printer = loop, printer
        self.forward = isinstance(dom, ir.Neighbors)
        ctx, d = printer.ctx, printer.d
        of = printer.expr(dom.of)
        self.var = ctx.names.bind(loop.var)
        self.position = ctx.names.bind(dom.edge) if self.forward else \
            ctx.names.fresh(f"{self.var}_in")
        self.begin, self.end = ctx.row_bounds(self.forward, of)

    def binding(self, part) -> List[str]:
        """The declarations of what ``part`` reads: the neighbour, an in-edge's id."""
        ctx, d, loop = self.printer.ctx, self.printer.d, self.loop
        lines = []
        if _reads(part, loop.var):
            ends = ctx.graph_array("targets" if self.forward else "rev_sources")
            lines.append(f"int {self.var} = {d.index(ends, self.position)};")
        if not self.forward and _reads(part, loop.domain.edge):
            edge = ctx.names.bind(loop.domain.edge)
            ids = ctx.graph_array("rev_edge_ids")
            lines.append(f"int {edge} = {d.index(ids, self.position)};")
        return lines


def print_frontier(kernel, printer: CPrinter) -> FrontierCode:
    """The pieces of a worklist round's ``edges`` schedule (``plan.FrontierEdges``)."""
    split, stmts = kernel.frontier_edges, kernel.body.stmts
    entry, after = stmts[0], stmts[len(stmts) - split.after:]
    stmts = stmts[:len(stmts) - len(after)]
    loops = stmts[1].then.stmts if split.tested else stmts[1:]
    window = loops[0] if split.windowed else None     # if (below) {loops} else {defer}
    if window is not None:
        loops = window.then.stmts
    printed = []
    for loop in loops:
        row = _Row(loop, printer)
        body = loop.body if loop.filter is None else \
            ir.Block((ir.If(loop.filter, loop.body, loc=loop.loc),), loc=loop.loc)
        query = "count_outNbrs" if row.forward else "count_inNbrs"
        degree = ir.GraphQuery(query, loop.domain.graph, (loop.domain.of,), type=Scalar.INT,
                               loc=loop.loc)
        printed.append(EdgeLoopCode(printer.expr(degree), row.begin, row.position,
                                    row.binding(body), printer.block(body, 0)))
    return FrontierCode(printer.block(ir.Block((entry,), loc=entry.loc), 0),
                        printer.ctx.names.bind(entry.sym),
                        printer.expr(stmts[1].cond) if split.tested else "", printed,
                        printer.block(ir.Block(after, loc=entry.loc), 0) if after else [],
                        printer.expr(window.cond) if window is not None else "",
                        printer.block(window.orelse, 0) if window is not None else [])
