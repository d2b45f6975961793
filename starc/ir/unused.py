"""Which variables an IR tree reads, and the warnings about what nothing sees: ``unused`` (a
local variable that a function declares and never reads) and ``no-result`` (a Dynamic function
whose results no run can see). The kernels' dead locals (analysis/dead_locals.py) use the
same notion of a read."""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Set

from starc.diagnostics import DiagnosticSink
from starc.ir import nodes as ir
from starc.ir.types import PropType

__all__ = ["read_symbols", "report_unused", "report_no_result", "stored_variable"]


def stored_variable(node: ir.Node) -> Optional[ir.Symbol]:
    """The variable a plain store (``x = e``, ``x op= e``) writes, else None."""
    if isinstance(node, (ir.Assign, ir.Reduce)) and isinstance(node.target, ir.VarRef):
        return node.target.sym
    return None


def read_symbols(tree: ir.Node) -> Set[int]:
    """Uids of the symbols ``tree`` reads. Storing to a variable is not reading it, nor is
    declaring it; any other mention is, a construct that names it (``fixedPoint until
    (x : ...)``) included."""
    read: Set[int] = set()

    def visit(value) -> None:
        if isinstance(value, ir.Symbol):
            read.add(value.uid)
        elif isinstance(value, tuple):
            for item in value:
                visit(item)
        elif isinstance(value, ir.Node):
            skip = ("loc", "type")
            if isinstance(value, ir.Declare):
                skip += ("sym",)
            elif stored_variable(value) is not None:
                skip += ("target",)
            for field in dataclasses.fields(value):
                if field.name not in skip:
                    visit(getattr(value, field.name))

    visit(tree)
    return read


def report_unused(body: ir.Block, sink: DiagnosticSink) -> None:
    """Warn at each declaration in ``body`` whose variable nothing reads."""
    declared: Dict[int, ir.Declare] = {}
    for node in ir.walk(body):
        if isinstance(node, ir.Declare):
            declared.setdefault(node.sym.uid, node)
    read = read_symbols(body)
    for uid, decl in declared.items():
        if uid not in read:
            sink.warning("unused", f"'{decl.sym.name}' is declared but never read", decl.loc,
                         hint="'-W no-unused' silences this warning")


def report_no_result(fn: ir.Function, sink: DiagnosticSink) -> None:
    """Warn at a Dynamic function whose results are lost: it returns nothing and takes no
    property, the only things a run prints (the graph it updates is not). StarPlat's dynamic
    triangle count is one: it computes its count batch after batch, then drops it. (Helpers
    without a result are left alone: tests and sketches write them on purpose.)"""
    if fn.kind != "Dynamic" or fn.return_type is not None or \
            any(isinstance(p.type, PropType) for p in fn.params):
        return
    sink.warning("no-result", f"'{fn.name}' has no result: it returns nothing and takes no "
                              "propNode or propEdge parameter, so a run of it prints nothing",
                 fn.loc, hint="return the value (return x;) or keep it in a propNode parameter")
