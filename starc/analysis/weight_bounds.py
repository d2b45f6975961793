"""minWt / maxWt inside a kernel: computed by the host right before it, read as a scalar.

The bound of an edge property is a whole-graph value: the host computes it from the weights
it holds (an MPI rank combines its part with every other rank's, a collective), which no work
item can do. Inside a forall or a BFS body every iteration reads the same value, so the host
computes it once before the statement that may launch a kernel (any but host control: a
write of a fixedPoint's flags and a sequential loop over the graph run on the device too),
into a local the kernel receives by value like any host scalar. Right before, not at the
function's start: a Dynamic program's batches change the weights between launches (a program
that writes the property itself is refused where the bound is printed,
``host_statements.weight_bound``).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from starc.analysis.naming import SymbolFactory
from starc.ir import nodes as ir

__all__ = ["hoist_weight_bounds"]


def _holds_host_code(stmt: ir.Stmt) -> bool:
    """Whether ``stmt`` is host control whose blocks are host code (``HostLowering``): every
    other statement may be run by the device, all of it (a forall, a BFS, a sequential loop
    over the graph run by one work item, a write of a fixedPoint's flags)."""
    if isinstance(stmt, ir.Loop):
        return isinstance(stmt.domain, ir.SetMembers)
    return isinstance(stmt, (ir.Block, ir.If, ir.While, ir.DoWhile, ir.FixedPoint, ir.Batch))


def hoist_weight_bounds(function: ir.Function, symbols: SymbolFactory) -> ir.Function:
    """``function`` with every minWt/maxWt outside host control's conditions read from a
    local declared right before the statement that holds it."""

    def hoisted(stmt: ir.Stmt) -> List[ir.Stmt]:
        bounds: Dict[Tuple[str, int], ir.Symbol] = {}
        declares: List[ir.Stmt] = []
        for node in ir.walk(stmt):
            if isinstance(node, ir.WeightBound) and (node.func, node.prop.uid) not in bounds:
                sym = symbols.make(f"{node.func}_{node.prop.name}", node.type, loc=node.loc)
                bounds[(node.func, node.prop.uid)] = sym
                declares.append(ir.Declare(sym, node, loc=stmt.loc))
        if not bounds:
            return [stmt]

        def read(node: ir.Node):
            if isinstance(node, ir.WeightBound):
                return ir.VarRef(bounds[(node.func, node.prop.uid)], type=node.type,
                                 loc=node.loc)
            return None
        return declares + [ir.transform(stmt, read)]

    def host(node):
        if isinstance(node, ir.Block):
            stmts = tuple(out for stmt in node.stmts
                          for out in ([host(stmt)] if _holds_host_code(stmt) else hoisted(stmt)))
            return node if stmts == node.stmts else dataclasses.replace(node, stmts=stmts)
        if isinstance(node, tuple):
            return tuple(host(item) for item in node)
        if not isinstance(node, ir.Stmt):     # expressions and domains hold no statement
            return node
        changes = {f.name: host(getattr(node, f.name)) for f in dataclasses.fields(node)
                   if f.name not in ("loc", "type")}
        return dataclasses.replace(node, **changes)

    return dataclasses.replace(function, body=host(function.body))
