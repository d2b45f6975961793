"""BFS parents loops whose value is the depth: ``v.P = w.P + c`` becomes ``v.P = k + c * depth``.

Inside an iterateInBFS body, ``for (w in g.neighbors(v)) { v.P = w.P + c; }`` visits v's BFS
parents, all one level up (LANGUAGE.md section 6). When the source starts with ``src.P = k`` and
nothing else writes ``P``, induction over depth proves its value: the source keeps ``k`` (it has
no parents, the loop does not run), and every parent of a vertex at depth ``d >= 1`` is at depth
``d - 1`` with ``P = k + c * (d - 1)``, so the vertex gets ``k + c * d`` whichever parent is the
last. Integer ``+`` and ``*`` wrap alike (two's complement), so ``k + c * d`` in ``P``'s type is
exactly the ``d`` wrapped additions; floating sums round and are left alone. Unreached vertices
run no body and keep their values. No kernel then searches the in-edges for a parent to read
``P`` from (GAPBS and Gunrock write the depth directly): where nothing else in the body reads or
writes ``P``, the loop goes and one kernel after the traversal sets ``P`` of every reached
vertex from its level (``DepthStore``; the step kernels only expand and search, and nobody can
tell when ``P`` was written: the reverse sweep runs later); else the loop becomes
``v.P = k + c * depth`` in place, on the BFS's own depth (``bfs_depth``).

Conservative: the rewrite needs ``src.P = <integer constant>`` in the BFS's own block with
nothing between it and the BFS that writes ``P``, reassigns ``src`` or calls a function; the
loop a top-level statement of an unfiltered BFS's body, sequential, unfiltered, over the
parents in the BFS's graph, its body that one assignment; ``P`` an integer node property (so no
fixedPoint's, which are bool) written nowhere else in the body or the reverse sweep. Otherwise
the loop keeps its search, and the plan says why (``ParentValue``).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional, Sequence, Tuple

from starc.analysis.plan import ParentValue
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["replace_parent_searches", "DepthStore", "depth_value"]

_BITS = {Scalar.INT: 32, Scalar.LONG: 64}

#: the statements whose writes ``_writes`` knows; any other kind is a doubt
_KNOWN_STMTS = (ir.Block, ir.Declare, ir.Assign, ir.PropCopy, ir.Reduce, ir.MinMaxAssign,
                ir.Attach, ir.If, ir.While, ir.DoWhile, ir.Loop, ir.FixedPoint, ir.IterateBFS,
                ir.Return, ir.Break, ir.Continue, ir.ExprStmt)


def _wrapped(value: int, type_: Scalar) -> int:
    bits = _BITS[type_]
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _integer_constant(expr: ir.Expr) -> Optional[int]:
    """The value of an integer constant expression (a literal, negated or widened), else None."""
    if isinstance(expr, ir.Const) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ir.Cast) and expr.type in _BITS and expr.expr.type in _BITS:
        inner = _integer_constant(expr.expr)
        return None if inner is None else _wrapped(inner, expr.type)
    if isinstance(expr, ir.Unary) and expr.op == "-" and expr.type in _BITS:
        inner = _integer_constant(expr.operand)
        return None if inner is None else _wrapped(-inner, expr.type)
    return None


def _is_prop_at(expr: ir.Expr, prop: ir.Symbol, vertex: ir.Symbol) -> bool:
    return (isinstance(expr, ir.PropRead) and expr.prop == prop
            and isinstance(expr.index, ir.VarRef) and expr.index.sym == vertex)


def _targets(stmt: ir.Node) -> List[ir.Expr]:
    if isinstance(stmt, (ir.Assign, ir.Reduce)):
        return [stmt.target]
    if isinstance(stmt, ir.MinMaxAssign):
        return [stmt.target] + [target for target, _ in stmt.others]
    return []


def _writes(node: ir.Node, written: Callable[[ir.Expr], bool],
            symbol: Callable[[ir.Symbol], bool]) -> Optional[ir.Node]:
    """The first statement under ``node`` that may write what the tests pick (a target
    ``written`` accepts, a property or variable ``symbol`` accepts), or a call or a statement
    of an unknown kind (a doubt); None when there is none."""
    for inner in ir.walk(node):
        if isinstance(inner, ir.CallExpr):
            return inner
        if isinstance(inner, ir.Stmt) and not isinstance(inner, _KNOWN_STMTS):
            return inner
        if any(written(target) for target in _targets(inner)):
            return inner
        syms: Tuple[ir.Symbol, ...] = ()
        if isinstance(inner, ir.PropCopy):
            syms = (inner.dst,)
        elif isinstance(inner, ir.Attach):
            syms = tuple(sym for sym, _ in inner.inits)
        elif isinstance(inner, ir.Declare):
            syms = (inner.sym,)
        elif isinstance(inner, ir.FixedPoint) and inner.prop is not None:
            syms = (inner.prop,)
        if any(symbol(sym) for sym in syms):
            return inner
    return None


def _writes_prop(node: ir.Node, prop: ir.Symbol) -> Optional[ir.Node]:
    return _writes(node, lambda t: isinstance(t, ir.PropRead) and t.prop == prop,
                   lambda sym: sym == prop)


def _leaves_body(body: ir.Block) -> bool:
    """Whether a statement of ``body`` outside its loops may end an iteration early."""
    pending: List[ir.Node] = list(body.stmts)
    while pending:
        node = pending.pop()
        if isinstance(node, (ir.Return, ir.Break, ir.Continue)):
            return True
        if not isinstance(node, (ir.Loop, ir.FixedPoint, ir.IterateBFS, ir.While, ir.DoWhile)):
            pending.extend(child for child in ir.children(node) if isinstance(child, ir.Stmt))
    return False


@dataclasses.dataclass(frozen=True)
class _Candidate:
    loop: ir.Loop
    prop: ir.Symbol
    value: ir.Expr


def _candidates(stmt: ir.IterateBFS) -> List[_Candidate]:
    """Parents loops of this BFS (anywhere in B1) whose body is one ``v.P = ...`` reading
    ``w.P``: the loops the rewrite is about, taken or not."""
    found = []
    for node in ir.walk(stmt.body):
        if not (isinstance(node, ir.Loop) and isinstance(node.domain, ir.Neighbors)
                and node.domain.role == "bfs_parents"
                and isinstance(node.domain.of, ir.VarRef) and node.domain.of.sym == stmt.var
                and len(node.body.stmts) == 1 and isinstance(node.body.stmts[0], ir.Assign)):
            continue
        assign = node.body.stmts[0]
        target = assign.target
        if not (isinstance(target, ir.PropRead) and _is_prop_at(target, target.prop, stmt.var)):
            continue
        if any(_is_prop_at(n, target.prop, node.var) for n in ir.walk(assign.value)):
            found.append(_Candidate(node, target.prop, assign.value))
    return found


def _step(value: ir.Expr, prop: ir.Symbol, parent: ir.Symbol) -> Optional[int]:
    """``c`` of ``w.P + c``, ``c + w.P`` or ``w.P - c`` (wrapped to ``P``'s type), else None."""
    if not (isinstance(value, ir.Binary) and value.op in ("+", "-")):
        return None
    if _is_prop_at(value.left, prop, parent):
        c = _integer_constant(value.right)
        if c is not None and value.op == "-":
            c = _wrapped(-c, value.type)
        return c
    if value.op == "+" and _is_prop_at(value.right, prop, parent):
        return _integer_constant(value.left)
    return None


def _source_value(stmt: ir.IterateBFS, before: Sequence[ir.Stmt],
                  prop: ir.Symbol) -> Tuple[Optional[int], str]:
    """(k, "") when the statements ``before`` the BFS (its block's) end with ``src.P = k``
    and nothing after it that writes ``P`` or reassigns ``src``; else (None, why not)."""
    root, name = stmt.root, prop.name
    if not isinstance(root, ir.VarRef):
        return None, "the BFS's source is not a variable"
    source = root.sym
    for earlier in reversed(before):
        if isinstance(earlier, ir.Assign) and _is_prop_at(earlier.target, prop, source):
            k = _integer_constant(earlier.value)
            if k is None:
                return None, f"{source.name}.{name} is not set to a constant before the BFS"
            return k, ""
        found = _writes(earlier, lambda t: (isinstance(t, ir.PropRead) and t.prop == prop)
                        or (isinstance(t, ir.VarRef) and t.sym == source),
                        lambda sym: sym in (prop, source))
        if found is not None:
            return None, (f"line {found.loc.line} may write {name} or {source.name} between "
                          f"'{source.name}.{name} = constant' and the BFS")
    return None, f"no '{source.name}.{name} = constant' right before the BFS in its block"


def _refusal(stmt: ir.IterateBFS, found: _Candidate, candidates: Sequence[_Candidate]) -> str:
    """Why ``found`` keeps its search, or the empty string when nothing in the loop or the
    BFS stops the rewrite (the source's value is checked apart)."""
    loop, prop, name = found.loop, found.prop, found.prop.name
    elem = prop.type.elem if isinstance(prop.type, PropType) else None
    if not (isinstance(prop.type, PropType) and prop.type.kind == "node" and elem in _BITS):
        return f"{name} is not an integer node property (floating sums round)"
    if _step(found.value, prop, loop.var) is None:
        return f"the value is not w.{name} plus a constant"
    if loop.parallel or loop.filter is not None:
        return "the loop is a forall or has a filter"
    if loop.domain.graph != stmt.graph:
        return "the loop is over another graph than the BFS's"
    if stmt.filter is not None:
        return "the BFS's filter skips the body at some vertices"
    if not any(s is loop for s in stmt.body.stmts):
        return "the loop runs only under a condition or inside another loop"
    if _leaves_body(stmt.body):
        return "the body may end early"
    others = [s for s in stmt.body.stmts if s is not loop]
    if len([c for c in candidates if c.prop == prop]) > 1 or any(
            _writes_prop(s, prop) is not None for s in others):
        return f"the body writes {name} elsewhere"
    if stmt.reverse is not None and _writes_prop(stmt.reverse.body, prop) is not None:
        return f"the reverse sweep writes {name}"
    return ""


def depth_value(k: int, c: int, type_: Scalar, depth: ir.Expr, loc) -> ir.Expr:
    """``k + c * depth`` in ``type_`` (the ``+``/``*`` wrap as the program's would; the
    specialize stage marks those that may overflow)."""
    if depth.type != type_:
        depth = ir.Cast(depth, type=type_, loc=loc)
    if c == 0:
        return ir.Const(k, type=type_, loc=loc)
    term = depth if c == 1 else ir.Binary("*", ir.Const(c, type=type_, loc=loc), depth,
                                          type=type_, loc=loc)
    return term if k == 0 else ir.Binary("+", ir.Const(k, type=type_, loc=loc), term,
                                         type=type_, loc=loc)


@dataclasses.dataclass(frozen=True)
class DepthStore:
    """``prop[x] = k + c * depth(x)`` for every reached ``x``, once the traversal is over."""

    prop: ir.Symbol
    k: int
    c: int
    loc: object


def _read_elsewhere(stmt: ir.IterateBFS, loop: ir.Loop, prop: ir.Symbol) -> bool:
    """Whether a statement of B1 other than ``loop`` reads or writes ``prop``."""
    return any(isinstance(n, ir.PropRead) and n.prop == prop
               for s in stmt.body.stmts if s is not loop for n in ir.walk(s))


def replace_parent_searches(stmt: ir.IterateBFS, before: Sequence[ir.Stmt], depth: ir.Expr
                            ) -> Tuple[ir.IterateBFS, Tuple[ParentValue, ...],
                                       Tuple[DepthStore, ...]]:
    """``stmt`` with each parents loop whose value is proven (module docstring) replaced, the
    decision for every such loop, taken or not, and the stores to make after the traversal.
    Where nothing else in B1 touches ``P``, the loop goes and ``P`` is set after the
    traversal from each reached vertex's depth (a ``DepthStore``: the BFS step kernels then
    only expand and search, and no one can tell when ``P`` was written: the reverse sweep runs
    later); else it becomes ``v.P = k + c * depth`` in place. ``before``: the statements
    before ``stmt`` in its block; ``depth`` the BFS's depth expression."""
    candidates = _candidates(stmt)
    decisions, stores = [], []
    replacements = {}
    for found in candidates:
        loop, prop, name = found.loop, found.prop, found.prop.name
        why = _refusal(stmt, found, candidates)
        k = None
        if not why:
            k, why = _source_value(stmt, before, prop)
        v = stmt.var.name
        if why:
            decisions.append(ParentValue(name, False, f"{v}.{name} from a parent's, searched",
                                         why, loc=loop.loc))
            continue
        c = _step(found.value, prop, loop.var)
        proof = (f"the parents all have {name} {k} + {c} * (depth-1): "
                 f"{stmt.root.sym.name}.{name} = {k} before the BFS and only this loop "
                 f"writes {name}")
        what = f"{v}.{name} = {k} + {c} * depth, no parent search"
        if _read_elsewhere(stmt, loop, prop):
            target = loop.body.stmts[0].target
            replacements[id(loop)] = (ir.Assign(
                target, depth_value(k, c, prop.type.elem, depth, loop.loc),
                loc=loop.body.stmts[0].loc),)
        else:
            replacements[id(loop)] = ()
            stores.append(DepthStore(prop, k, c, loop.loc))
            what += ", set from each vertex's depth after the traversal"
            proof += (f", and nothing else in the body reads {name} (so no one can tell when "
                      f"it is written)")
        decisions.append(ParentValue(name, True, what, proof, loc=loop.loc))
    if replacements:
        body = ir.Block(tuple(new for s in stmt.body.stmts
                              for new in replacements.get(id(s), (s,))), loc=stmt.body.loc)
        stmt = dataclasses.replace(stmt, body=body)
    return stmt, tuple(decisions), tuple(stores)
