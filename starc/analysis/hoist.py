"""Hoisting per-vertex terms out of neighbour loops: computed once per vertex, read per edge.

In ``for (nbr in g.nodes_to(v)) sum = sum + nbr.pageRank / g.count_outNbrs(nbr);`` the
term depends only on ``nbr`` and on data the kernel does not write, so every in-edge of
``nbr`` computes the same value. ``hoist_terms`` gives such a term a device array filled by
a new kernel over the nodes, launched right before the reading kernel (so it sees exactly the
data the reader sees), and the loop reads ``term[nbr]``: one division and one degree lookup
per vertex instead of per edge, and the loop no longer touches the neighbour's CSR row.

A term qualifies when it is built only from constants, the loop variable, properties of the
loop variable that the reading kernel does not write, and the degree queries of the loop
variable, with at least one division (a term cheaper than that, a degree alone, is not worth an
array and a kernel). The reading kernel must run over all nodes without filter, so the vertices
reached by its loops are not fewer than the new kernel's. No qualifying term can fault: an
integer division by anything but a non-zero constant is a checked division (``checks.py``)
and disqualifies the term. The new kernel still computes a term only for vertices a loop can
reach, as the original did: an in-neighbour has out-degree >= 1 (out-neighbour: in-degree
>= 1), so its guard is that degree > 0; the arithmetic per term is the same expression, in
the same type, so results are bit for bit those of the original.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import map_blocks
from starc.analysis.kernels import kernel_params
from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["hoist_terms", "hoistable"]

_ARITHMETIC = ("+", "-", "*", "/")
_DEGREES = ("count_outNbrs", "count_inNbrs")


def hoistable(expr: ir.Expr, var: ir.Symbol, written: frozenset) -> bool:
    """Whether ``expr`` depends only on ``var`` (see the module docstring) and is worth an
    array; ``written``: uids of the properties the reading kernel writes."""
    costly = uses_var = False
    for node in ir.walk(expr):
        if isinstance(node, ir.VarRef):
            if node.sym.uid != var.uid:
                return False
            uses_var = True
        elif isinstance(node, ir.PropRead):
            if (node.prop.uid in written or not isinstance(node.prop.type, PropType)
                    or node.prop.type.kind != "node"
                    or not (isinstance(node.index, ir.VarRef) and node.index.sym.uid == var.uid)):
                return False
        elif isinstance(node, ir.GraphQuery):
            if node.op not in _DEGREES:
                return False
        elif isinstance(node, ir.Binary):
            if node.op not in _ARITHMETIC:
                return False
            costly = costly or node.op == "/"
        elif not isinstance(node, (ir.Const, ir.Cast, ir.Unary, ir.MinMax)):
            return False
    return costly and uses_var


class _Terms:
    """The terms found in one kernel body, and the body that reads them from their arrays."""

    def __init__(self, kernel: P.Kernel, written: frozenset) -> None:
        self.kernel = kernel
        self.written = written
        #: (loop variable uid, term with the variable renamed to ``placeholder``) -> found term
        self.found: Dict[Tuple, Tuple[ir.Symbol, ir.Expr, ir.Domain]] = {}
        self.symbols: List[Tuple[ir.Symbol, ir.Expr, ir.Symbol, ir.Domain]] = []

    def body(self, factory: SymbolFactory, names: NameAllocator) -> ir.Block:
        def rewrite_loop(node: ir.Node):
            if not (isinstance(node, ir.Loop) and _reachable_domain(node.domain)):
                return None
            body = _top_down(node.body, lambda n: self._replace(n, node, factory, names))
            return dataclasses.replace(node, body=body)
        return ir.transform(self.kernel.body, rewrite_loop)

    def _replace(self, node: ir.Node, loop: ir.Loop, factory: SymbolFactory,
                 names: NameAllocator):
        if not isinstance(node, ir.Expr) or not hoistable(node, loop.var, self.written):
            return None
        found = self.found.get((loop.var.uid, node))
        if found is not None:
            return ir.PropRead(found[0], ir.VarRef(loop.var, type=Scalar.NODE, loc=node.loc),
                               type=node.type, loc=node.loc)
        props = [n.prop.name for n in ir.walk(node) if isinstance(n, ir.PropRead)]
        name = names.unique(f"{props[0] if props else loop.var.name}_term")
        sym = factory.make(name, PropType("node", node.type), ir.SymbolKind.LOCAL, node.loc)
        self.found[(loop.var.uid, node)] = (sym, node, loop.domain)
        self.symbols.append((sym, node, loop.var, loop.domain))
        return ir.PropRead(sym, ir.VarRef(loop.var, type=Scalar.NODE, loc=node.loc),
                           type=node.type, loc=node.loc)


def _reachable_domain(domain: ir.Domain) -> bool:
    return (isinstance(domain, ir.InNeighbors)
            or (isinstance(domain, ir.Neighbors) and domain.role == "out"))


def _top_down(node, fn):
    """``node`` rebuilt with ``fn(n)`` in place of the first ``n`` on each path from the top
    for which it is not None: the largest qualifying term is hoisted whole."""
    if isinstance(node, tuple):
        items = tuple(_top_down(item, fn) for item in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if not isinstance(node, ir.Node):
        return node
    found = fn(node)
    if found is not None:
        return found
    changes = {}
    for f in dataclasses.fields(node):
        if f.name not in ("loc", "type"):
            value = getattr(node, f.name)
            new = _top_down(value, fn)
            if new is not value:
                changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def _term_kernel(sym: ir.Symbol, term: ir.Expr, var: ir.Symbol,
                 domain: ir.Domain, factory: SymbolFactory, index_name: str) -> Tuple:
    loc = term.loc
    index = factory.make(index_name, Scalar.NODE, ir.SymbolKind.LOOP, loc)

    def rename(node: ir.Node):
        if isinstance(node, ir.VarRef) and node.sym.uid == var.uid:
            return dataclasses.replace(node, sym=index)
        return None
    at = ir.VarRef(index, type=Scalar.NODE, loc=loc)
    store = ir.Assign(ir.PropRead(sym, at, type=term.type, loc=loc), ir.transform(term, rename),
                      loc=loc)
    # Only vertices the loop can reach: an in-neighbour has an out-edge, an out-neighbour an
    # in-edge (the term is then never computed where the original never computed it).
    degree = "count_outNbrs" if isinstance(domain, ir.InNeighbors) else "count_inNbrs"
    guard = ir.Binary(">", ir.GraphQuery(degree, domain.graph, (at,), type=Scalar.INT, loc=loc),
                      ir.Const(0, type=Scalar.INT, loc=loc), type=Scalar.BOOL, loc=loc)
    return index, guard, ir.Block((store,), loc=loc)


def hoist_terms(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """``plan`` with the qualifying neighbour-loop terms of every unfiltered kernel over
    nodes computed by a kernel of their own before each launch of the reader."""
    names = NameAllocator([a.name for a in plan.arrays] + [k.name for k in plan.kernels]
                          + [s.name for s in symbols_in(plan.function)])
    arrays = plan.arrays
    replaced: Dict[str, Tuple[P.Kernel, ...]] = {}
    for kernel in plan.kernels:
        if kernel.extent != "nodes" or kernel.guard is not None or kernel.scalars:
            continue
        written = frozenset(p.array.sym.uid for p in kernel.params
                            if p.written and p.array is not None and p.array.sym is not None)
        terms = _Terms(kernel, written)
        body = terms.body(symbols, names)
        if not terms.symbols:
            continue
        made = []
        for sym, term, var, domain in terms.symbols:
            array = P.DeviceArray(sym.name, term.type, "nodes", "local", sym=sym)
            arrays = arrays + (array,)
            index, guard, store = _term_kernel(sym, term, var, domain, symbols,
                                               var.name)
            params, arrays = kernel_params(arrays, index, guard, store)
            made.append(P.Kernel(names.unique(f"{kernel.name}_{sym.name}"), index, "nodes",
                                 guard, store, params, loc=term.loc, hoisted_for=kernel.name))
        errors = tuple(p.array for p in kernel.params
                       if p.array is not None and p.array.role == "error")
        params, arrays = kernel_params(arrays, kernel.index, None, body, errors)
        reader = dataclasses.replace(kernel, body=body, params=params)
        replaced[kernel.name] = tuple(made) + (reader,)
    if not replaced:
        return plan
    kernels = tuple(k for old in plan.kernels for k in replaced.get(old.name, (old,)))

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            if isinstance(stmt, P.Launch) and stmt.kernel.name in replaced:
                *made, reader = replaced[stmt.kernel.name]
                stmts += [P.Launch(k, loc=stmt.loc) for k in made]
                stmts.append(dataclasses.replace(stmt, kernel=reader))
            else:
                stmts.append(map_blocks(stmt, rewrite))
        return dataclasses.replace(block, stmts=tuple(stmts))
    return dataclasses.replace(plan, arrays=arrays, kernels=kernels, host=rewrite(plan.host))
