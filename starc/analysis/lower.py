"""The analysis driver: one function of a typed IR program in, its ``Plan`` out."""

from __future__ import annotations

from starc.analysis.host import CALLS_UNSUPPORTED, HostLowering
from starc.analysis.naming import SymbolFactory
from starc.analysis.plan import HostBlock, Plan
from starc.analysis.transfers import ArrayTable
from starc.backends.base import BackendError
from starc.ir import nodes as ir

__all__ = ["lower_function"]


def _reject_calls(function: ir.Function) -> None:
    for node in ir.walk(function.body):
        if isinstance(node, (ir.CallExpr, ir.ExprStmt)):
            raise BackendError(CALLS_UNSUPPORTED, node.loc)


def lower_function(program: ir.Program, function: ir.Function) -> Plan:
    """Outline kernels, plan transfers, reductions, fixedPoint and BFS for ``function``.

    Pure: ``program`` and ``function`` are not modified (IR nodes are frozen; new nodes are
    built). Raises ``BackendError`` (with the construct's location) for what the device
    backends cannot express yet.
    """
    _reject_calls(function)
    symbols = SymbolFactory(program)
    table = ArrayTable(function, symbols)
    host = HostLowering(function, table)
    zeros = host.result_zero_fills()
    body = host.block(function.body)
    body = HostBlock(tuple(zeros) + body.stmts, loc=body.loc)
    return Plan(function, program, table.arrays(), tuple(host.kernels), body,
                tuple(host.host_scalars))
