"""Call inlining: a function's calls of other functions become their bodies, for the device
backends (LANGUAGE.md §3: a function may call another; the reference executes calls itself).

Meaning kept (the reference's): graph and property arguments are passed by reference (the
callee's parameter *is* the caller's property), scalar and ``node`` arguments by value (a fresh
local initialised with the argument). Every local of the callee gets a fresh symbol and a name
unique in the caller, so a function inlined twice declares nothing twice. A call may stand
anywhere the host evaluates an expression once: a call statement, the value of an assignment,
a declaration's initialiser, a ``return`` value, an ``if`` condition (it is evaluated into a
temporary just before the statement). Sema rejects recursion, so inlining terminates.

A ``return`` before the callee's end becomes ``result = e; returned = True;`` with the rest
guarded by ``if (!returned)``. What stays rejected, each with its location: a call inside a
forall or a BFS body (the callee's foralls would nest inside a kernel), in a loop condition or
filter (evaluated repeatedly), and a ``return`` inside a loop of the callee.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.diagnostics import NO_LOC, tracks_construct
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["inline_calls"]


def _has_call(node) -> bool:
    return any(isinstance(n, ir.CallExpr) for n in ir.walk(node))


def substitute(value, mapping: Dict[int, object]):
    """``value`` rebuilt with every ``Symbol`` whose uid is in ``mapping`` replaced: by the
    mapped symbol, or, where a ``VarRef`` names it and the mapping holds an expression, by
    that expression."""
    if isinstance(value, ir.Symbol):
        new = mapping.get(value.uid, value)
        return new if isinstance(new, ir.Symbol) else value
    if isinstance(value, ir.VarRef):
        new = mapping.get(value.sym.uid)
        if isinstance(new, ir.Expr):
            return new
    if isinstance(value, tuple):
        items = tuple(substitute(v, mapping) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if f.name in ("loc", "type"):
                continue
            old = getattr(value, f.name)
            new = substitute(old, mapping)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


class _Inliner:
    def __init__(self, program: ir.Program, caller: ir.Function,
                 symbols: SymbolFactory) -> None:
        self.program = program
        self.symbols = symbols
        self.names = NameAllocator(s.name for s in symbols_in(caller))

    # --- the caller's host statements ------------------------------------------------------------
    def block(self, block: ir.Block) -> ir.Block:
        out: List[ir.Stmt] = []
        for stmt in block.stmts:
            out.extend(self.stmt(stmt))
        return dataclasses.replace(block, stmts=tuple(out))

    @tracks_construct
    def stmt(self, s: ir.Stmt) -> List[ir.Stmt]:
        if not _has_call(s):
            return [s]
        if isinstance(s, ir.Block):
            return [self.block(s)]
        if isinstance(s, ir.ExprStmt) and isinstance(s.expr, ir.CallExpr):
            pre, _ = self.call(s.expr, want_value=False)
            return pre
        if isinstance(s, (ir.ExprStmt, ir.Assign, ir.Declare, ir.Return, ir.Reduce)):
            pre, rebuilt = self.hoist(s, exclude=("target",))
            return pre + [rebuilt]
        if isinstance(s, ir.If):
            pre, cond = self.hoist_expr(s.cond)
            orelse = self.block(s.orelse) if s.orelse is not None else None
            return pre + [dataclasses.replace(s, cond=cond, then=self.block(s.then),
                                              orelse=orelse)]
        if isinstance(s, (ir.While, ir.DoWhile)):
            self._reject_in(s.cond, "a loop condition")
            return [dataclasses.replace(s, body=self.block(s.body))]
        if isinstance(s, ir.FixedPoint):
            self._reject_in(s.cond, "a fixedPoint condition")
            return [dataclasses.replace(s, body=self.block(s.body))]
        if isinstance(s, ir.Batch):
            self._reject_in(s.size, "a Batch size")
            return [dataclasses.replace(s, body=self.block(s.body))]
        if isinstance(s, ir.Loop) and not s.parallel and isinstance(s.domain, ir.SetMembers):
            self._reject_in(s.filter, "a loop filter")
            return [dataclasses.replace(s, body=self.block(s.body))]
        where = "a forall" if isinstance(s, ir.Loop) else \
            "an iterateInBFS" if isinstance(s, ir.IterateBFS) else "this statement"
        call = next(n for n in ir.walk(s) if isinstance(n, ir.CallExpr))
        raise BackendError(f"calling '{call.function}' inside {where} is not supported by the "
                           f"device backends: call it outside the loop, or write its body "
                           f"here", call.loc)

    def _reject_in(self, expr: Optional[ir.Expr], where: str) -> None:
        if expr is not None and _has_call(expr):
            call = next(n for n in ir.walk(expr) if isinstance(n, ir.CallExpr))
            raise BackendError(f"calling '{call.function}' in {where} is not supported by the "
                               f"device backends: assign its result to a variable before the "
                               f"loop and at the end of its body", call.loc)

    def hoist(self, s: ir.Stmt, exclude: Tuple[str, ...]) -> Tuple[List[ir.Stmt], ir.Stmt]:
        pre: List[ir.Stmt] = []
        changes = {}
        for f in dataclasses.fields(s):
            if f.name in ("loc", "type") + exclude:
                continue
            value = getattr(s, f.name)
            if isinstance(value, ir.Expr) and _has_call(value):
                calls, changes[f.name] = self.hoist_expr(value)
                pre += calls
        return pre, dataclasses.replace(s, **changes)

    def hoist_expr(self, expr: ir.Expr) -> Tuple[List[ir.Stmt], ir.Expr]:
        """Statements computing every call of ``expr`` into a temporary, and ``expr`` reading
        the temporaries (calls evaluated left to right, innermost first)."""
        pre: List[ir.Stmt] = []

        def fix(node: ir.Node):
            if isinstance(node, ir.CallExpr):
                stmts, value = self.call(node, want_value=True)
                pre.extend(stmts)
                return value
            return None

        return pre, ir.transform(expr, fix)

    # --- one call ---------------------------------------------------------------------------------
    def call(self, call: ir.CallExpr, want_value: bool) -> Tuple[List[ir.Stmt], Optional[ir.Expr]]:
        callee = self.program.function(call.function)
        loc = call.loc
        mapping: Dict[int, object] = {}
        pre: List[ir.Stmt] = []
        for param, arg in zip(callee.params, call.args):
            if isinstance(param.type, Scalar):
                local = self.fresh(f"{callee.name}_{param.name}", param.type, loc=param.loc)
                pre.append(ir.Declare(local, arg, loc=loc))
                mapping[param.uid] = local
            elif isinstance(arg, ir.VarRef):     # Graph, propNode, propEdge, SetN: by reference
                mapping[param.uid] = arg.sym
            elif isinstance(arg, ir.CurrentBatch):   # updates<g>: the batch it names
                mapping[param.uid] = arg
            else:
                raise BackendError(f"argument '{param.name}' of '{callee.name}' must name a "
                                   f"{param.type}", arg.loc)
        params = {p.uid for p in callee.params}
        for sym in symbols_in(callee.body):
            if sym.uid not in params and sym.uid not in mapping:
                mapping[sym.uid] = self.fresh(f"{callee.name}_{sym.name}", sym.type, sym.kind,
                                              sym.loc)
        # Inline the callee's own calls first (sema rejects recursion).
        body = _Inliner(self.program, callee, self.symbols).block(callee.body)
        body = substitute(body, mapping)
        stmts = list(body.stmts)
        result = None
        if want_value:
            result = self.fresh(f"{callee.name}_result", call.type, loc=loc)
        if stmts and isinstance(stmts[-1], ir.Return) and not any(
                isinstance(n, ir.Return) for s in stmts[:-1] for n in ir.walk(s)):
            ret = stmts.pop()       # the common case: one return, at the end
            if result is not None:
                stmts.append(ir.Declare(result, ret.value, loc=ret.loc))
        elif any(isinstance(n, ir.Return) for s in stmts for n in ir.walk(s)):
            returned = self.fresh(f"{callee.name}_returned", Scalar.BOOL, loc=loc)
            false = ir.Const(False, type=Scalar.BOOL, loc=loc)
            head = [ir.Declare(returned, false, loc=loc)]
            if result is not None:   # zero first: compilers cannot see every path assigns it
                zero = ir.Const(False if result.type == Scalar.BOOL else 0, type=result.type,
                                loc=loc)
                head.insert(0, ir.Declare(result, zero, loc=loc))
            stmts = head + _Returns(callee.name, result, returned).block(stmts)
        elif result is not None:
            raise BackendError(f"'{callee.name}' returns no value here", loc)
        value = ir.VarRef(result, type=result.type, loc=loc) if result is not None else None
        # Spliced into the caller's block, not nested: the result is read after the body, and
        # every name is unique in the caller already.
        return pre + stmts, value

    def fresh(self, name: str, type_, kind: ir.SymbolKind = ir.SymbolKind.LOCAL,
              loc=None) -> ir.Symbol:
        """A new symbol whose name is unique in the caller."""
        return self.symbols.make(self.names.unique(name), type_, kind, loc or NO_LOC)


class _Returns:
    """A callee's ``return`` statements as ``result = e; returned = True;`` with the statements
    after each one guarded by ``if (!returned)`` (a return inside a host loop stays
    unsupported: leaving the loop would need a break that the loop's own breaks could
    confuse)."""

    def __init__(self, callee: str, result: Optional[ir.Symbol], returned: ir.Symbol) -> None:
        self.callee, self.result, self.returned = callee, result, returned

    def block(self, stmts) -> List[ir.Stmt]:
        out: List[ir.Stmt] = []
        for index, stmt in enumerate(stmts):
            lowered, returns = self.stmt(stmt)
            out.append(lowered)
            if returns:
                rest = self.block(stmts[index + 1:])
                if rest:
                    loc = rest[0].loc
                    flag = ir.VarRef(self.returned, type=Scalar.BOOL, loc=loc)
                    go_on = ir.Unary("!", flag, type=Scalar.BOOL, loc=loc)
                    out.append(ir.If(go_on, ir.Block(tuple(rest), loc=loc), loc=loc))
                break
        return out

    @tracks_construct
    def stmt(self, s: ir.Stmt) -> Tuple[ir.Stmt, bool]:
        if not any(isinstance(n, ir.Return) for n in ir.walk(s)):
            return s, False
        loc = s.loc
        if isinstance(s, ir.Return):
            done = [ir.Assign(ir.VarRef(self.returned, type=Scalar.BOOL, loc=loc),
                              ir.Const(True, type=Scalar.BOOL, loc=loc), loc=loc)]
            if self.result is not None and s.value is not None:
                done.insert(0, ir.Assign(ir.VarRef(self.result, type=self.result.type, loc=loc),
                                         s.value, loc=loc))
            return ir.Block(tuple(done), loc=loc), True
        if isinstance(s, ir.Block):
            return dataclasses.replace(s, stmts=tuple(self.block(s.stmts))), True
        if isinstance(s, ir.If):
            then = ir.Block(tuple(self.block(s.then.stmts)), loc=s.then.loc)
            orelse = None if s.orelse is None else \
                ir.Block(tuple(self.block(s.orelse.stmts)), loc=s.orelse.loc)
            return dataclasses.replace(s, then=then, orelse=orelse), True
        early = next(n for n in ir.walk(s) if isinstance(n, ir.Return))
        raise BackendError(f"inlining '{self.callee}' for the device backends: a 'return' "
                           f"inside a loop is not supported; set a variable and 'break' "
                           f"instead", early.loc)


def inline_calls(program: ir.Program, function: ir.Function,
                 symbols: SymbolFactory) -> ir.Function:
    """``function`` with every call of another function replaced by the callee's body."""
    if not _has_call(function.body):
        return function
    return dataclasses.replace(function, body=_Inliner(program, function, symbols)
                               .block(function.body))
