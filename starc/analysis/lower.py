"""The analysis driver: one function of a typed IR program in, its ``Plan`` out."""

from __future__ import annotations

from starc.analysis.checks import ErrorWord
from starc.analysis.host import HostLowering
from starc.analysis.inline import inline_calls
from starc.analysis.naming import SymbolFactory
from starc.analysis.plan import Fill, HostBlock, Plan
from starc.analysis.transfers import ArrayTable
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["lower_function"]


def lower_function(program: ir.Program, function: ir.Function) -> Plan:
    """Outline kernels, plan transfers, reductions, fixedPoint and BFS for ``function``.

    Pure: ``program`` and ``function`` are not modified (IR nodes are frozen; new nodes are
    built). Raises ``BackendError`` (with the construct's location) for what the device
    backends cannot express yet.
    """
    symbols = SymbolFactory(program)
    function = inline_calls(program, function, symbols)
    table = ArrayTable(function, symbols)
    host = HostLowering(function, table)
    zeros = host.result_zero_fills()
    body = host.block(function.body)
    # Every per-element lock starts released (device memory starts undefined; an unzeroed
    # lock is never acquired and its kernel spins forever). Locks are created while kernels
    # are lowered, so they are known only now.
    # Likewise the run-time error word starts at 0, "no check failed" (checks.py).
    released = ir.Const(0, type=Scalar.INT, loc=function.loc)
    initial = tuple(Fill(array, released, loc=function.loc) for array in table.arrays()
                    if array.role == "lock")
    error = None
    if table.check_sites:
        site, value = table.error_arrays()
        error = ErrorWord(site, value, tuple(table.check_sites))
        initial += (Fill(site, released, loc=function.loc),)
    body = HostBlock(initial + tuple(zeros) + body.stmts, loc=body.loc)
    return Plan(function, program, table.arrays(), tuple(host.kernels), body,
                tuple(host.host_scalars), error)
