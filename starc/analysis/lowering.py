"""The state the parts of the lowering share, and the interface of the host lowerer.

``host.HostLowering`` lowers host statements and calls ``fixedpoint``/``bfs`` for those
constructs, which call back into it; ``kernels`` lowers kernel bodies through ``reductions``.
The types they pass each other live here, below all of them, so the modules import each
other in one direction only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ContextManager, Dict, List, Optional, Protocol, Set, Tuple

from starc.analysis.plan import DeviceArray, HostBlock, Kernel, ParentValue
from starc.analysis.transfers import ArrayTable
from starc.ir import nodes as ir
from starc.records import Record, record

__all__ = ["FixedPointScope", "KernelLowering", "HostLowerer"]


@record
class FixedPointScope(Record):
    """An active ``fixedPoint`` on ``prop``: where its writes go and which flag they set."""

    prop: ir.Symbol
    next_sym: ir.Symbol
    next: DeviceArray
    flag: DeviceArray

    def redirect(self, target: ir.PropRead) -> ir.PropRead:
        """``target`` (an element of ``prop``) as the same element of the next buffer."""
        return ir.PropRead(self.next_sym, target.index, type=target.type, loc=target.loc)


@dataclass
class KernelLowering:
    """The state of lowering one kernel body: what it needs to know (arrays, index, locals,
    fixedPoint scopes) and what it found (scalar reductions, stores)."""

    table: ArrayTable
    index: Optional[ir.Symbol]                  # None: a single-item kernel
    locals: Set[int]                            # uids of symbols declared in the kernel
    scopes: Dict[int, FixedPointScope]
    reductions: Dict[int, Tuple[ir.Symbol, List[str]]] = field(default_factory=dict)
    stores: Dict[int, ir.Symbol] = field(default_factory=dict)

    def is_local(self, sym: ir.Symbol) -> bool:
        return sym.uid in self.locals

    def owns(self, target: ir.Expr) -> bool:
        """Whether only this work item can touch ``target`` (no atomic needed)."""
        if self.index is None:
            return True
        if isinstance(target, ir.VarRef):
            return self.is_local(target.sym)
        return isinstance(target.index, ir.VarRef) and target.index.sym == self.index

    def scope_of(self, prop: ir.Symbol) -> Optional[FixedPointScope]:
        return self.scopes.get(prop.uid)

    def note_reduction(self, sym: ir.Symbol, op: str) -> DeviceArray:
        self.reductions.setdefault(sym.uid, (sym, []))[1].append(op)
        return self.table.scalar(sym)

    def store(self, sym: ir.Symbol) -> DeviceArray:
        self.stores.setdefault(sym.uid, sym)
        return self.table.scalar(sym)


class HostLowerer(Protocol):
    """What ``fixedpoint`` and ``bfs`` use of the host lowering (``host.HostLowering``)."""

    table: ArrayTable
    parent_values: List[ParentValue]

    def block(self, block: ir.Block) -> HostBlock: ...

    def statements_before(self, stmt: ir.Stmt) -> Tuple[ir.Stmt, ...]: ...

    def expr(self, expr: Optional[ir.Expr]) -> Optional[ir.Expr]: ...

    def fixedpoint_scope(self, scope: FixedPointScope) -> ContextManager[None]: ...

    def outline_kernel(self, kind: str, loc, *, index: ir.Symbol, extent: str,
                       guard: Optional[ir.Expr], body: ir.Block) -> Kernel: ...
