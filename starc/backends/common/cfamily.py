"""The backend-neutral C-family printer's entry point: one ``plan.Kernel`` to C text.

``lower_kernel(kernel, dialect)`` turns one ``plan.Kernel`` into a ``KernelCode``: the ordered
argument list (what the host passes, in which order) and the body lines, ready for the
backend's kernel shell (``__kernel``/``__global__``/a lambda). The dialect lives in
``dialect``, the printer in ``c_expressions`` and ``c_statements``, the argument list in
``kernel_arguments``; their public names are re-exported here.
"""

from __future__ import annotations

from starc.analysis import plan as P
from starc.backends.common.c_expressions import POSTFIX, PRECEDENCE
from starc.backends.common.c_statements import CPrinter, PrivateAccumulator, source_name
from starc.backends.common.cooperative_steps import print_frontier, print_steps
from starc.backends.common.sourcemap import mark, marker, span_of
from starc.backends.common.dialect import (ATOMIC_OPS, C_KEYWORDS, GRAPH_ARRAYS, INDENT,
                                           Dialect, DialectError)
from starc.backends.common.kernel_arguments import (CooperativeCode, KernelArg,
                                                   KernelArguments, KernelCode, NameTable)
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = [
    "DialectError", "Dialect", "NameTable", "KernelArg", "KernelCode", "CooperativeCode",
    "KernelArguments",
    "CPrinter", "lower_kernel", "ATOMIC_OPS", "GRAPH_ARRAYS", "INDENT", "C_KEYWORDS",
    "PRECEDENCE", "POSTFIX", "PrivateAccumulator",
]


def lower_kernel(kernel: P.Kernel, dialect: Dialect) -> KernelCode:
    """Print ``kernel``'s guard and body; the argument list is complete afterwards."""
    if kernel.extent not in ("nodes", "edges", "frontier", "single", "group"):
        dialect.missing(f"a kernel over '{kernel.extent}'", kernel.loc)
    ctx = KernelArguments(kernel, dialect)
    printer = CPrinter(dialect, ctx)
    printer.vector = {v.var: v for v in kernel.vector_loops}
    index = ctx.names.bind(kernel.index)
    guard = None
    if kernel.guard is not None:
        guard = printer.expr(ir.Unary("!", kernel.guard, type=Scalar.BOOL))
    # Exclusive scalar reductions: a private per work item, one atomic combine at the end
    # (a forall body has no return, so the end is always reached after the guard). The
    # guard and the accumulators come from the forall, like the body.
    accumulated = [r for r in kernel.reductions if r.strategy != "atomic"]
    setup = mark(printer.open_accumulators(accumulated, 1), kernel)
    item = mark(printer.block(kernel.body, 1), kernel)
    cooperative = _cooperative(kernel, printer) if kernel.cooperative is not None else None
    frontier = _frontier(kernel, printer) if kernel.frontier_edges is not None else None
    # (a work-group's local queues are known once every append is printed)
    setup += mark(printer.stage_lines(end=False), kernel)
    finish = mark(printer.close_accumulators(1) + printer.stage_lines(end=True), kernel)
    index_used = kernel.extent != "single" or any(
        isinstance(x, ir.VarRef) and x.sym == kernel.index for x in ir.walk(kernel.body))
    loc = kernel.loc
    comment = f"// {source_name(loc.file)}:{loc.line}" if loc is not None and loc.line > 0 else ""
    forall = marker(span_of(kernel))
    return KernelCode(kernel.name, kernel.extent, index if index_used else None,
                      ctx.arguments(), forall + comment, ctx.features, guard, setup, item,
                      finish, forall, dialect.skip_item, cooperative, frontier,
                      ctx.group_locals, kernel.uniform_items)


def _cooperative(kernel: P.Kernel, printer: CPrinter) -> CooperativeCode:
    """The heavy-vertex part of a binned kernel: its body split at the shared loop, which
    the lanes stride through."""
    split = kernel.cooperative
    stmts = kernel.body.stmts
    if split.steps:
        steps = print_steps(split.steps, stmts, printer)
        folds = [s.accumulator.type for s in _flat(split.steps) if s.kind == "fold"]
        return CooperativeCode(printer.expr(split.degree), [], "",
                               printer.dialect_type(folds[0]) if folds else "", "", [],
                               split.warp_from,
                               printer.ctx.graph_array(split.order) if split.order else "",
                               split.group_from, _marked(steps, kernel))
    loop = stmts[split.loop_at]
    printer.strided = loop.var
    try:
        shared = printer.block(ir.Block(stmts[:split.loop_at + 1], loc=kernel.body.loc), 1)
    finally:
        printer.strided = None
    rest = printer.block(ir.Block(stmts[split.loop_at + 1:], loc=kernel.body.loc), 1)
    accumulator = ir.VarRef(split.accumulator, type=split.accumulator.type)
    combine = printer.wrapping(split.op, split.accumulator.type, "{0}", "{1}") if split.wraps \
        else f"{{0}} {split.op} {{1}}"
    return CooperativeCode(printer.expr(split.degree), mark(shared, kernel),
                           printer.expr(accumulator),
                           printer.dialect_type(split.accumulator.type), combine,
                           mark(rest, kernel), split.warp_from,
                           printer.ctx.graph_array(split.order) if split.order else "",
                           split.group_from)


def _frontier(kernel: P.Kernel, printer: CPrinter):
    """A worklist round's split edges (``plan.FrontierEdges``), its lines mapped to the
    forall."""
    code = print_frontier(kernel, printer)
    code.entry = mark(code.entry, kernel)
    for loop in code.loops:
        loop.binding, loop.body = mark(loop.binding, kernel), mark(loop.body, kernel)
    return code


def _flat(steps):
    for step in steps:
        yield step
        yield from _flat(step.then + step.orelse)


def _marked(steps, kernel: P.Kernel):
    """``steps`` with their lines mapped to the forall (``sourcemap.mark``)."""
    for step in steps:
        step.lines = mark(step.lines, kernel)
        _marked(step.then, kernel)
        _marked(step.orelse, kernel)
    return steps
