"""The ``unused`` warning: a local variable that a function declares and never reads."""

from __future__ import annotations

import dataclasses
from typing import Dict, Set

from starc.diagnostics import DiagnosticSink
from starc.ir import nodes as ir

__all__ = ["report_unused"]


def report_unused(body: ir.Block, sink: DiagnosticSink) -> None:
    """Warn at each declaration in ``body`` whose variable nothing reads. Storing to a
    variable (``x = e``, ``x += e``) is not reading it; any other mention is, a construct
    that names it (``fixedPoint until (x : ...)``) included."""
    declared: Dict[int, ir.Declare] = {}
    read: Set[int] = set()

    def visit(value) -> None:
        if isinstance(value, ir.Symbol):
            read.add(value.uid)
        elif isinstance(value, tuple):
            for item in value:
                visit(item)
        elif isinstance(value, ir.Node):
            skip = ()
            if isinstance(value, ir.Declare):
                declared.setdefault(value.sym.uid, value)
                skip = ("sym",)
            elif isinstance(value, (ir.Assign, ir.Reduce)) and isinstance(value.target, ir.VarRef):
                skip = ("target",)
            for field in dataclasses.fields(value):
                if field.name not in skip + ("loc", "type"):
                    visit(getattr(value, field.name))

    visit(body)
    for uid, decl in declared.items():
        if uid not in read:
            sink.warning("unused", f"'{decl.sym.name}' is declared but never read", decl.loc,
                         hint="'-W no-unused' silences this warning")
