"""Which variables an IR tree reads, and the ``unused`` warning built on it: a local variable
that a function declares and never reads. The kernels' dead locals (analysis/dead_locals.py)
use the same notion of a read."""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Set

from starc.diagnostics import DiagnosticSink
from starc.ir import nodes as ir

__all__ = ["read_symbols", "report_unused", "stored_variable"]


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
