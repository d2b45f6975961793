"""The degree-binned schedule's eligibility: which pull loops a work-group may share.

A forall whose body declares an accumulator, folds it over one neighbour loop and then uses
it (PageRank's ``sum`` over in-neighbours) cannot run one work item per edge: the edges of a
vertex meet in one value. A group of work items can still share a heavy vertex's loop: each
lane folds every lane-th edge into its own copy of the accumulator, started at the
operator's identity, and a group reduction combines the copies before one lane finishes
the vertex. That reorders the fold, so the operator must be commutative and associative
(floats: the same tolerance as any parallel sum), and nothing else in the loop may depend on
the order of its iterations. ``pull_loop`` says whether a kernel has that shape and, where
not, why.

A fold into the vertex's own property (BC's ``v.delta = v.delta + ...`` over its children)
takes that shape once ``local_fold`` folds into a local first and adds it to the property
after the loop: the same sum, as long as no iteration reads the property at the vertex
itself. Reads at the neighbour are allowed where the filters prove the neighbour is another
vertex (BC: the vertex is on level d, the neighbours it folds on level d + 1).
"""

from __future__ import annotations

from typing import Optional, Tuple

import dataclasses

from starc.analysis import plan as P
from starc.analysis.naming import symbols_in
from starc.analysis.wrapping import WrappingArith
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["FOLD_OPERATORS", "INDEPENDENT", "pull_loop", "local_fold", "per_vertex_refusal",
           "loop_refusal", "warp_from", "GROUP_FROM_WITH_WARPS", "order_array"]

#: operators a group may fold in any order, with their identity (``Binary`` spellings; the
#: logical ones would need bool arrays in local memory, which not every kernel dialect has)
FOLD_OPERATORS = {"+": 0, "*": 1}

#: statements an iteration may perform on shared data: each is atomic, or a store every
#: writer agrees on, so the iterations of one vertex need not run in order (the ``edges``
#: schedule's push loops, a binned group's lanes)
INDEPENDENT = (P.AtomicReduce, P.AtomicMinMax, P.FlagSet, P.ScalarStore, P.QueueAppend,
                P.QueueCount)


def warp_from(width: int) -> int:
    """The degree from which a vertex goes to its sub-group of ``width`` lanes: ``width``.
    The items take the vertices in a binned order (``CooperativeLoop.order``), the light ones
    sorted by degree, so a warp of light lanes does about equal work, each lane one vertex;
    a vertex of a warp's degree or more fills its warp's lanes. On R-MAT 18's in-degrees the
    model (``teaching/simt.py``, binned-warp) gives 92% of lanes busy; in id order, without
    the sort, from a quarter warp 59% (from a whole warp 39%)."""
    return width


#: a vertex goes to its whole work-group from this many times the group's size where a warp
#: tier takes the lighter ones (the group rounds the degree up to its size: from one group's
#: size the model gives 81% on R-MAT 18, from four 92%)
GROUP_FROM_WITH_WARPS = 4


def order_array(domain: ir.Expr) -> str:
    """The graph array of the binned order by the degree a neighbour loop over ``domain``
    walks (``plan.GRAPH_ARRAYS``)."""
    return "out_binned_order" if isinstance(domain, ir.Neighbors) else "in_binned_order"


def per_vertex_refusal(kernel: P.Kernel) -> str:
    """Why ``kernel`` is no forall over the vertices whose loop a schedule may spread (""
    where it is one)."""
    if kernel.extent != "nodes":
        return ("it runs over a worklist" if kernel.extent == "frontier"
                else f"it runs over {kernel.extent}, not vertices")
    if kernel.hoisted_for:
        return "it computes a hoisted term per vertex"
    return ""


def loop_refusal(kernel: P.Kernel, loop: ir.Loop) -> str:
    """Why the neighbour ``loop`` of ``kernel``'s body may not be spread over work items (""
    where it may)."""
    domain = loop.domain
    if not isinstance(domain.of, ir.VarRef) or domain.of.sym != kernel.index:
        return "the loop is not over the forall's own vertex"
    if isinstance(domain, ir.Neighbors) and domain.role != "out" or \
            isinstance(domain, ir.InNeighbors) and domain.descending:
        return "the loop's order matters (a BFS parents or children loop)"
    return ""


def pull_loop(kernel: P.Kernel) -> Tuple[Optional[P.CooperativeLoop], str]:
    """``(cooperative, "")`` when a work-group may share ``kernel``'s neighbour loop of a
    heavy vertex, else ``(None, why not)``."""
    why = per_vertex_refusal(kernel)
    if why:
        return None, why
    at = _loop_at(kernel)
    if at is None:
        return None, "its body has no single neighbour loop at the top"
    kernel = local_fold(kernel)
    at = _loop_at(kernel)
    stmts = kernel.body.stmts
    prefix, loop = stmts[:at], stmts[at]
    domain = loop.domain
    why = loop_refusal(kernel, loop)
    if why:
        return None, why
    if any(isinstance(n, (ir.Break, ir.Continue)) for n in ir.walk(kernel.body)):
        return None, "the body may stop early"
    if not all(isinstance(s, ir.Declare) for s in prefix):
        return None, "statements other than declarations come before the loop"
    declared = {s.sym.uid: s for s in prefix}
    accumulator, op, why = _fold(loop, declared)
    if accumulator is None:
        return None, why
    init = declared[accumulator.uid].init
    if not isinstance(init, ir.Const) or init.value != FOLD_OPERATORS[op]:
        return None, (f"'{accumulator.name}' does not start at the identity of '{op}' (each "
                      "lane's copy starts there)")
    graph = domain.graph
    query = "count_outNbrs" if isinstance(domain, ir.Neighbors) else "count_inNbrs"
    own = ir.VarRef(kernel.index, type=kernel.index.type)
    degree = ir.GraphQuery(query, graph, (own,), type=Scalar.INT, loc=loop.loc)
    wraps = any(isinstance(n, WrappingArith) for n in ir.walk(loop))
    return P.CooperativeLoop(at, accumulator, op, degree, wraps=wraps,
                             order=order_array(domain)), ""


def _loop_at(kernel: P.Kernel) -> Optional[int]:
    """The index of the body's one top-level neighbour loop (None: none, or several)."""
    loops = [i for i, s in enumerate(kernel.body.stmts) if isinstance(s, ir.Loop)
             and isinstance(s.domain, (ir.Neighbors, ir.InNeighbors))]
    return loops[0] if len(loops) == 1 else None


def local_fold(kernel: P.Kernel) -> P.Kernel:
    """``kernel`` with its neighbour loop's fold into the vertex's own property (every update
    of it a fold step, the property read at the vertex nowhere else in the loop, and at a
    neighbour only where that is another vertex) made a fold into a new local, added to the
    property after the loop; else ``kernel`` itself."""
    at = _loop_at(kernel)
    if at is None:
        return kernel
    loop = kernel.body.stmts[at]
    own = ir.VarRef(kernel.index, type=kernel.index.type)
    targets = [n.target for n in ir.walk(loop) if isinstance(n, (ir.Assign, ir.Reduce))
               and isinstance(n.target, ir.PropRead) and n.target.index == own]
    if not targets or any(t.prop != targets[0].prop for t in targets) or \
            loop_refusal(kernel, loop):
        return kernel
    prop = targets[0].prop
    steps = {}
    for node in ir.walk(loop):
        if isinstance(node, (ir.Assign, ir.Reduce)) and node.target in targets:
            step = _fold_step(node, targets[0])
            if step is None:
                return kernel
            steps[id(node)] = step
    ops = {op for op, _ in steps.values()}
    reads = [n for n in ir.walk(loop) if isinstance(n, ir.PropRead) and n.prop == prop]
    at_vertex = sum(1 for n in reads if n.index == own)
    elsewhere = [n for n in reads if n.index != own]
    if len(ops) != 1 or at_vertex != len(steps) + sum(r for _, r in steps.values()) or \
            any(n.index != ir.VarRef(loop.var, type=loop.var.type) for n in elsewhere) or \
            elsewhere and not _other_vertex(kernel, loop):
        return kernel
    op = ops.pop()
    elem = prop.type.elem
    uid = max((s.uid for s in symbols_in(kernel)), default=0) + 1
    local = ir.Symbol(f"{prop.name}_fold", elem, ir.SymbolKind.LOCAL, uid, loop.loc)
    ref = ir.VarRef(local, type=elem, loc=loop.loc)
    wraps = any(isinstance(n, WrappingArith) for n in ir.walk(loop))

    def to_local(node):
        if isinstance(node, (ir.Assign, ir.Reduce)) and node.target == targets[0]:
            return dataclasses.replace(node, target=ref)
        if isinstance(node, ir.PropRead) and node == targets[0]:
            return ref
        return None

    new_loop = ir.transform(loop, to_local)
    total = (WrappingArith(op, targets[0], ref, type=elem, loc=loop.loc) if wraps
             else ir.Binary(op, targets[0], ref, type=elem, loc=loop.loc))
    stmts = kernel.body.stmts
    body = stmts[:at] + (ir.Declare(local, ir.Const(FOLD_OPERATORS[op], type=elem,
                                                     loc=loop.loc), loc=loop.loc),
                         new_loop, ir.Assign(targets[0], total, loc=loop.loc)) + stmts[at + 1:]
    return dataclasses.replace(kernel, body=dataclasses.replace(kernel.body, stmts=body))


def _conjuncts(expr: Optional[ir.Expr]):
    if isinstance(expr, ir.Binary) and expr.op == "&&":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [] if expr is None else [expr]


def _levels(expr: Optional[ir.Expr], at: ir.Symbol):
    """``(array, level)`` of each conjunct ``array[at] == level`` of ``expr``."""
    return [(c.left.prop, c.right) for c in _conjuncts(expr)
            if isinstance(c, ir.Binary) and c.op == "==" and isinstance(c.left, ir.PropRead)
            and isinstance(c.left.index, ir.VarRef) and c.left.index.sym == at]


def _other_vertex(kernel: P.Kernel, loop: ir.Loop) -> bool:
    """Whether the guard and the loop's filter prove the neighbour is not the vertex: the
    vertex's ``A[v] == x`` and the neighbour's ``A[w] == x + c`` (c not 0), ``A`` not
    written by the kernel."""
    written = {p.array.sym.uid for p in kernel.params
               if p.written and p.array is not None and p.array.sym is not None}
    for array, level in _levels(kernel.guard, kernel.index):
        for other, their in _levels(loop.filter, loop.var):
            if other != array or array.uid in written:
                continue
            for low, high in ((level, their), (their, level)):
                if isinstance(high, ir.Binary) and high.op == "+" and high.left == low and \
                        isinstance(high.right, ir.Const) and high.right.value != 0:
                    return True
    return False


def _fold(loop: ir.Loop, declared) -> Tuple[Optional[ir.Symbol], str, str]:
    """The one accumulator (declared before the loop) that ``loop`` folds, and its operator;
    else ``(None, "", why not)``."""
    inner = {n.sym.uid for n in ir.walk(loop.body) if isinstance(n, ir.Declare)}
    inner |= {n.var.uid for n in ir.walk(loop.body) if isinstance(n, ir.Loop)}
    folds = []
    for node in ir.walk(loop.body):
        if isinstance(node, ir.Loop):
            return None, "", "the loop has a loop inside"
        if isinstance(node, ir.GraphQuery) and node.op in ("is_an_edge", "get_edge"):
            return None, "", "the loop searches edges (a cursor walks them in order)"
        if isinstance(node, INDEPENDENT):
            continue
        if isinstance(node, ir.MinMaxAssign):
            return None, "", "the loop's Min/Max updates carry secondary targets"
        if isinstance(node, (ir.Assign, ir.Reduce)):
            target = node.target
            if isinstance(target, ir.VarRef) and target.sym.uid in inner:
                continue
            if isinstance(target, ir.VarRef) and target.sym.uid in declared:
                step = _fold_step(node, target.sym)
                if step is None:
                    return None, "", (f"'{target.sym.name}' is not folded with a commutative "
                                      f"operator ({', '.join(FOLD_OPERATORS)})")
                folds.append((target.sym,) + step)
                continue
            if isinstance(target, ir.PropRead) and not (
                    isinstance(target.index, ir.VarRef) and target.index.sym == loop.var):
                return None, "", (f"the loop writes '{target.prop.name}' in place (a pull "
                                  "into shared data, whose order a group would change)")
            if isinstance(target, ir.VarRef):
                return None, "", f"the loop assigns '{target.sym.name}', declared outside it"
            return None, "", (f"the loop writes '{target.prop.name}' at its neighbours (a "
                              "push: --schedule edges)")
    if not folds:
        return None, "", "the loop folds no accumulator"
    accumulator, op = folds[0][:2]
    if any(sym != accumulator or other != op for sym, other, _ in folds):
        return None, "", "the loop folds more than one accumulator or operator"
    # every read of it: the targets and the folds' own operands, nothing else
    reads = [n for n in ir.walk(loop) if isinstance(n, ir.VarRef) and n.sym == accumulator]
    if len(reads) != len(folds) + sum(own_read for _, _, own_read in folds):
        return None, "", f"the loop reads '{accumulator.name}' besides folding it"
    return accumulator, op, ""


def _fold_step(node, target):
    """``(op, reads_itself)`` when ``node`` is ``sym = sym op e`` / ``sym = e op sym`` /
    ``sym op= e`` with a fold operator and ``e`` not reading ``sym``; else None. (An integer
    ``+`` or ``*`` may be a ``WrappingArith``: the group's combine then wraps too.)"""
    if isinstance(node, ir.Reduce):
        op, value, own_read = node.op, node.value, False
    elif isinstance(node.value, (ir.Binary, WrappingArith)) and node.value.right is not None:
        left, right = node.value.left, node.value.right
        own = [side for side in (left, right) if _is(side, target)]
        if not own:
            return None
        op, value, own_read = node.value.op, right if own[0] is left else left, True
    else:
        return None
    if op not in FOLD_OPERATORS or any(_is(n, target) for n in ir.walk(value)):
        return None
    return op, own_read


def _is(expr: ir.Node, target) -> bool:
    """``expr`` is the fold's target: a local's symbol or the vertex's element."""
    if isinstance(target, ir.Symbol):
        return isinstance(expr, ir.VarRef) and expr.sym == target
    return expr == target
