"""Row swap: on the graph renumbered by degree, the triangle count walks the shorter row.

An ordered triangle count (``degree_order.is_triangle_count``) has three vertices x, y, z:
the kernel's vertex x, y in x's row, z in the row of r (x or y); it asks whether z and the
third one, q, are neighbours. The innermost loop then counts {z in N(r) : filter(z), q-z an
edge}. On a symmetric graph without repeated edges that set is {z in N(q) : filter(z), r-z
an edge}: the same count walking q's row and searching r's (``g.is_an_edge(r, z)``, with a
cursor in r's row: ``edge_cursors``). Where the two comparisons put q below r, and the graph
has been renumbered by ascending degree, q's row is the shorter (a lower id has no higher
degree): dsl/tc.sp's walk of v's row above v for each lower neighbour u becomes a walk of
u's row above v (R-MAT 18: 621 M inner iterations -> 205 M).

The file's graph may be a multigraph, where the counts differ; only the run-time
``OrderByDegree`` establishes symmetric and simple, when it renumbers. So the pass adds the
swapped form as a second kernel (``Kernel.renumbered_of``) and the host launches it instead
exactly when the graph was renumbered (``Kernel.renumbered_variant``); a target that keeps
the file's ids drops it (``specialize``). ``Kernel.row_swap_why`` says why, taken or not.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.degree_order import is_triangle_count, only_loop, strict_pair
from starc.analysis.host_tree import map_blocks, walk_host
from starc.analysis.naming import SymbolFactory
from starc.ir import nodes as ir

__all__ = ["swap_rows", "drop_swaps", "SWAPPED_SUFFIX"]

#: the name of a count's swapped kernel: the kernel's name and this (made unique)
SWAPPED_SUFFIX = "_swapped"


def swap_rows(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """``plan`` with a swapped-row kernel for each ordered triangle count whose innermost loop
    walks the row of the higher of the two vertices it could walk, where an ``OrderByDegree``
    may renumber the graph; every such count told why (``Kernel.row_swap_why``)."""
    if not any(isinstance(s, P.OrderByDegree) for s in walk_host(plan.host)):
        return plan
    names = {k.name for k in plan.kernels}
    kernels, variants = [], []
    for kernel in plan.kernels:
        if not is_triangle_count(kernel):
            kernels.append(kernel)
            continue
        swapped, why = _swapped(kernel)
        if swapped is None:
            kernels.append(dataclasses.replace(kernel, row_swap_why=why))
            continue
        name = kernel.name + SWAPPED_SUFFIX
        while name in names:
            name += "_"
        names.add(name)
        variants.append(dataclasses.replace(swapped, name=name, renumbered_of=kernel.name,
                                            row_swap_why=why))
        kernels.append(dataclasses.replace(kernel, renumbered_variant=name, row_swap_why=why))
    return _relaunched(plan, tuple(kernels) + tuple(variants))


def drop_swaps(plan: P.Plan) -> P.Plan:
    """``plan`` without swapped-row kernels: for a target that keeps the file's ids, where
    the graph is never known to be simple."""
    if not any(k.renumbered_of for k in plan.kernels):
        return plan
    kept = tuple(dataclasses.replace(k, renumbered_variant="") for k in plan.kernels
                 if not k.renumbered_of)
    return _relaunched(plan, kept)


def _swapped(kernel: P.Kernel) -> Tuple[Optional[P.Kernel], str]:
    """The count with its innermost loop walking q's row and searching r's (see the module),
    and why; None (and why not) where q is not below r."""
    outer = only_loop(kernel.body)
    inner = only_loop(outer.body)
    test = inner.body.stmts[0]
    z, walked = inner.var, inner.domain.of
    searched = next(a for a in test.cond.args if a.sym != z)
    rank = _ranks(kernel.index, outer, inner)
    r, q = walked.sym.name, searched.sym.name
    if rank[searched.sym.uid] > rank[walked.sym.uid]:
        return None, (f"the innermost loop already walks the row of the lower vertex {r} "
                      f"(below {q}): on the graph renumbered by degree, the shorter row")
    query = dataclasses.replace(test.cond, args=(walked, ir.VarRef(z, type=z.type,
                                                                   loc=test.cond.loc)))
    body = dataclasses.replace(inner.body, stmts=(dataclasses.replace(test, cond=query),))
    loop = dataclasses.replace(inner, domain=dataclasses.replace(inner.domain, of=searched),
                               body=body)
    outer = dataclasses.replace(outer, body=dataclasses.replace(outer.body, stmts=(loop,)))
    swapped = dataclasses.replace(kernel, body=dataclasses.replace(kernel.body,
                                                                   stmts=(outer,)))
    why = (f"{q} is below {r}, so on the graph renumbered by degree {q}'s row is the shorter "
           f"(a lower id has no higher degree): where the run renumbers it, the innermost "
           f"loop walks {q}'s row and searches {r}'s for {z.name}, the same count on a "
           "symmetric graph without repeated edges (what renumbering checks); on the file's "
           "ids (perhaps a multigraph) the loop as written")
    return swapped, why


def _ranks(x: ir.Symbol, outer: ir.Loop, inner: ir.Loop) -> Dict[int, int]:
    """Each of the three vertices' place (0: lowest) in the order the two chained strict
    comparisons of the filters set (``is_triangle_count`` checked they chain)."""
    names = frozenset((x.uid, outer.var.uid, inner.var.uid))
    pairs = [strict_pair(outer.filter, names), strict_pair(inner.filter, names)]
    below = {uid: sum(1 for small, large in pairs if large == uid) for uid in names}
    above = {uid: sum(1 for small, large in pairs if small == uid) for uid in names}
    # the chain's lowest is below something and above nothing; its highest the other way
    return {uid: 0 if below[uid] == 0 else (2 if above[uid] == 0 else 1) for uid in names}


def _relaunched(plan: P.Plan, kernels: Tuple[P.Kernel, ...]) -> P.Plan:
    """``plan`` with ``kernels`` in place of its own, in the host's launches too."""
    by_name = {k.name: k for k in kernels}

    def relaunch(block: P.HostBlock) -> P.HostBlock:
        stmts = tuple(map_blocks(dataclasses.replace(s, kernel=by_name[s.kernel.name])
                                 if isinstance(s, P.Launch) and s.kernel.name in by_name
                                 else s, relaunch) for s in block.stmts)
        return dataclasses.replace(block, stmts=stmts)
    return dataclasses.replace(plan, kernels=kernels, host=relaunch(plan.host))
