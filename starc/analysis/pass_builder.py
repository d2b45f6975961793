"""PassBuilder: the device arrays and kernels a plan pass adds (a worklist's, a BFS queue's), and
IRShorthands for the statements of those kernels."""

from __future__ import annotations

from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.kernels import kernel_params
from starc.analysis.naming import NameAllocator, SymbolFactory
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["PassBuilder", "IRShorthands"]


class PassBuilder:
    """Adds arrays to ``arrays`` (the plan's, grown as kernels take new ones) and collects the
    kernels it makes in ``kernels``, each named apart by ``names``."""

    def __init__(self, arrays: Tuple[P.DeviceArray, ...], symbols: SymbolFactory,
                 names: NameAllocator, loc) -> None:
        self.arrays, self.symbols, self.names, self.loc = arrays, symbols, names, loc
        self.kernels: List[P.Kernel] = []

    def local_array(self, name: str, extent: str = "nodes") -> P.DeviceArray:
        """A new per-vertex ``int`` array of the pass's own (role ``local``)."""
        name = self.names.unique(name)
        sym = self.symbols.make(name, PropType("node", Scalar.INT), ir.SymbolKind.LOCAL,
                                self.loc)
        array = P.DeviceArray(name, Scalar.INT, extent, "local", sym=sym)
        self.arrays += (array,)
        return array

    def kernel(self, name: str, index: ir.Symbol, extent: str, guard, body: ir.Block,
               like: Optional[P.Kernel] = None, **facts) -> P.Kernel:
        """A kernel over ``body``; ``like``: the kernel it is a variant of, whose reductions,
        stores, checks, error word and location it keeps."""
        errors = tuple(p.array for p in (like.params if like else ())
                       if p.array is not None and p.array.role == "error")
        params, self.arrays = kernel_params(self.arrays, index, guard, body, errors)
        scalars = tuple({n.name: n for n in ir.walk(body)
                         if isinstance(n, P.KernelScalar)}.values())
        made = P.Kernel(self.names.unique(name), index, extent, guard, body, params,
                        like.reductions if like else (), loc=like.loc if like else self.loc,
                        scalars=scalars, stores=like.stores if like else (),
                        checks=like.checks if like else (), **facts)
        self.kernels.append(made)
        return made


class IRShorthands:
    """IR nodes at one location ``loc``, for a pass that writes a kernel's statements."""

    loc = None

    def int(self, value: int) -> ir.Const:
        return ir.Const(value, type=Scalar.INT, loc=self.loc)

    def var(self, sym: ir.Symbol) -> ir.VarRef:
        return ir.VarRef(sym, type=sym.type, loc=self.loc)

    def op(self, op: str, a: ir.Expr, b: ir.Expr, type_: Scalar = Scalar.BOOL) -> ir.Binary:
        return ir.Binary(op, a, b, type=type_, loc=self.loc)

    def plus(self, a: ir.Expr, b: ir.Expr) -> ir.Binary:
        return self.op("+", a, b, Scalar.INT)

    def assign(self, target: ir.Expr, value: ir.Expr) -> ir.Assign:
        return ir.Assign(target, value, loc=self.loc)

    def block(self, *stmts: ir.Stmt) -> ir.Block:
        return ir.Block(tuple(stmts), loc=self.loc)
