"""Degree ordering: the ordered triangle count runs on the graph renumbered by degree.

The standard triangle count (``dsl/tc.sp``) visits each triangle once, at the one ordering of
its three vertices that two strict id comparisons allow, so on a symmetric graph without
repeated edges its count is the same under any numbering of the vertices. Renumbering by
degree (as GAPBS does) bounds the wedges each vertex checks by the degrees of its
higher-numbered neighbours: on a skewed graph a hub no longer pairs its many neighbours with
each other. The rewrite puts an ``OrderByDegree`` at the start of the host tree; the run-time
function it maps to checks the graph (symmetric, no repeated edge) and decides by a degree
sample whether the graph is skewed enough to pay.

The pass accepts only programs where no result can tell the ids (``_id_free``): every kernel
is an ordered triangle count (``_is_triangle_count``) adding a constant integer to a scalar;
no vertex properties, edge weights, node or set parameters, or a node return value. Anything
else keeps the numbering of the file.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, FrozenSet, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import launched_kernels
from starc.analysis.naming import SymbolFactory
from starc.ir import nodes as ir
from starc.ir.types import GraphType, Scalar

__all__ = ["order_by_degree", "is_triangle_count", "only_loop", "strict_pair"]

#: scalar parameter and return types that cannot carry a vertex id into or out of the program
_ID_FREE_SCALARS = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.BOOL)
_STRICT = {"<": False, ">": True}      # op -> whether the left operand is the larger


def order_by_degree(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """``plan`` with an ``OrderByDegree`` first in its host tree when it is id-free."""
    if not _id_free(plan):
        return plan
    arrays = {a.name: a for a in plan.arrays if a.role == "graph"}
    order = P.OrderByDegree(arrays["offsets"], arrays["targets"], loc=plan.function.loc)
    host = dataclasses.replace(plan.host, stmts=(order,) + plan.host.stmts)
    return dataclasses.replace(plan, host=host)


def _id_free(plan: P.Plan) -> bool:
    fn = plan.function
    for p in fn.params:
        if not isinstance(p.type, GraphType) and p.type not in _ID_FREE_SCALARS:
            return False        # a node, set or property parameter: ids go in or come out
    if fn.return_type is not None and fn.return_type not in _ID_FREE_SCALARS:
        return False
    graph = {a.name for a in plan.arrays if a.role == "graph"}
    if graph != {"offsets", "targets"}:
        return False
    if any(a.role != "graph" and a.extent != "one" for a in plan.arrays):
        return False            # a vertex or edge array: it is indexed by id
    kernels = launched_kernels(plan)
    return bool(kernels) and all(is_triangle_count(k) for k in kernels)


def is_triangle_count(kernel: P.Kernel) -> bool:
    """Whether ``kernel`` is an ordered triangle count::

        forall (x in g.nodes())
          forall (y in g.neighbors(x).filter(C1))
            forall (z in g.neighbors(x or y).filter(C2))
              if (g.is_an_edge(a, b)) s += c;

    where C1 and C2 are strict comparisons of two of x, y, z that chain them (the vertex
    they share is the larger in one and the smaller in the other: a total order), {a, b}
    is the pair of the three the loops do not connect, ``s`` a scalar under reduction and
    ``c`` an integer constant. Every triangle then adds ``c`` once, whatever the numbering."""
    if kernel.extent != "nodes" or kernel.guard is not None or kernel.checks \
            or kernel.stores or kernel.hoisted_for:
        return False
    x = kernel.index
    outer = only_loop(kernel.body)
    if outer is None or not _rows_of(outer, (x,)):
        return False
    y = outer.var
    inner = only_loop(outer.body)
    if inner is None or not _rows_of(inner, (x, y)):
        return False
    z = inner.var
    names = {s.uid for s in (x, y, z)}
    if len(names) != 3:
        return False
    linked = {frozenset((x.uid, y.uid)), frozenset((inner.domain.of.sym.uid, z.uid))}
    order = [strict_pair(outer.filter, names), strict_pair(inner.filter, names)]
    if None in order or not _chain(order[0], order[1]):
        return False
    return _counts_edge(inner.body, kernel, names, linked)


def only_loop(block: ir.Block) -> Optional[ir.Loop]:
    if len(block.stmts) != 1 or not isinstance(block.stmts[0], ir.Loop):
        return None
    return block.stmts[0]


def _rows_of(loop: ir.Loop, rows: Tuple[ir.Symbol, ...]) -> bool:
    """A loop over the out-row of one of ``rows`` (plain out-neighbours, no BFS role)."""
    domain = loop.domain
    return (isinstance(domain, ir.Neighbors) and domain.role == "out"
            and isinstance(domain.of, ir.VarRef) and domain.of.sym in rows)


def strict_pair(e: Optional[ir.Expr], names: FrozenSet[int]) -> Optional[Tuple[int, int]]:
    """``(smaller, larger)`` uids for a filter that is one strict comparison of two of the
    loop variables, else None."""
    if not isinstance(e, ir.Binary) or e.op not in _STRICT:
        return None
    left, right = e.left, e.right
    if not (isinstance(left, ir.VarRef) and isinstance(right, ir.VarRef)):
        return None
    if left.sym.uid not in names or right.sym.uid not in names or left.sym == right.sym:
        return None
    pair = (left.sym.uid, right.sym.uid)
    return pair[::-1] if _STRICT[e.op] else pair


def _chain(first: Tuple[int, int], second: Tuple[int, int]) -> bool:
    """Two comparisons order three vertices totally: one's larger is the other's smaller."""
    return first[1] == second[0] or second[1] == first[0]


def _counts_edge(body: ir.Block, kernel: P.Kernel, names, linked) -> bool:
    """``if (g.is_an_edge(a, b)) s += c;`` with {a, b} the pair the loops leave unlinked."""
    if len(body.stmts) != 1 or not isinstance(body.stmts[0], ir.If):
        return False
    test = body.stmts[0]
    query = test.cond
    if test.orelse is not None or not isinstance(query, ir.GraphQuery) \
            or query.op != "is_an_edge" or len(query.args) != 2:
        return False
    if not all(isinstance(a, ir.VarRef) and a.sym.uid in names for a in query.args):
        return False
    pair = frozenset(a.sym.uid for a in query.args)
    if len(pair) != 2 or pair in linked:
        return False
    if len(test.then.stmts) != 1 or not isinstance(test.then.stmts[0], P.AtomicReduce):
        return False
    update = test.then.stmts[0]
    reductions: Dict[int, P.ScalarReduction] = {r.sym.uid: r for r in kernel.reductions}
    return (update.op == "+" and isinstance(update.target, ir.VarRef)
            and update.target.sym.uid in reductions
            and isinstance(update.value, ir.Const)
            and update.value.type in (Scalar.INT, Scalar.LONG))
