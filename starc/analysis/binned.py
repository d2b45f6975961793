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

__all__ = ["FOLD_OPERATORS", "INDEPENDENT", "pull_loop", "local_fold", "fold_locally",
           "fold_of", "per_vertex_refusal", "loop_refusal", "push_refusal", "declared_in",
           "shared_between", "warp_from", "GROUP_FROM_WITH_WARPS", "order_array"]

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


def loop_refusal(kernel: P.Kernel, loop: ir.Loop, vertex: Optional[ir.Symbol] = None) -> str:
    """Why the neighbour ``loop`` of ``kernel``'s body may not be spread over work items (""
    where it may); ``vertex`` as for ``push_refusal``."""
    domain = loop.domain
    vertex = kernel.index if vertex is None else vertex
    if not isinstance(domain.of, ir.VarRef) or domain.of.sym != vertex:
        return "the loop is not over the forall's own vertex"
    if isinstance(domain, ir.Neighbors) and domain.role != "out" or \
            isinstance(domain, ir.InNeighbors) and domain.descending:
        return "the loop's order matters (a BFS parents or children loop)"
    return ""


def push_refusal(kernel: P.Kernel, loop: ir.Loop, vertex: Optional[ir.Symbol] = None) -> str:
    """Why the iterations of ``loop`` are not independent of each other (\"\" where they are);
    ``vertex``: the vertex whose loop it is (the forall's own where None; a worklist entry's)."""
    vertex = kernel.index if vertex is None else vertex
    own = ir.VarRef(vertex, type=vertex.type)
    why = loop_refusal(kernel, loop, vertex)
    if why:
        return why
    declared = declared_in(loop)
    for node in ir.walk(loop.body):
        if isinstance(node, (ir.Break, ir.Continue)):
            return "the loop may stop early"
        if isinstance(node, INDEPENDENT):
            continue
        if isinstance(node, (ir.Assign, ir.Reduce, ir.MinMaxAssign)):
            target = node.target
            if isinstance(target, ir.VarRef) and target.sym.uid not in declared:
                return (f"the loop accumulates into '{target.sym.name}' across its "
                        "iterations (a pull, which needs a group reduction)")
            if isinstance(target, ir.PropRead) and target.index == own:
                return (f"the loop writes the vertex's own '{target.prop.name}' (a pull, "
                        "which needs a group reduction)")
    return ""


def declared_in(loop: ir.Loop):
    declared = {n.sym.uid for n in ir.walk(loop.body) if isinstance(n, ir.Declare)}
    return declared | {n.var.uid for n in ir.walk(loop.body) if isinstance(n, ir.Loop)}


def shared_between(loops) -> str:
    """Why the loops, one after the other per vertex, may not run in any order (\"\" where
    they may): one stores a computed value that another reads. Atomics and stores of a
    constant every writer agrees on may land in any order, as other vertices' items already
    interleave with them in the vertex form."""
    for loop in loops:
        stored = {n.target.prop.uid: n.target.prop.name for n in ir.walk(loop)
                  if isinstance(n, ir.Assign) and isinstance(n.target, ir.PropRead)
                  and not isinstance(n.value, ir.Const)}
        for other in loops:
            read = {n.prop.uid for n in ir.walk(other) if isinstance(n, ir.PropRead)}
            shared = [name for uid, name in stored.items() if other is not loop and uid in read]
            if shared:
                return (f"the loop at line {other.loc.line} reads '{shared[0]}', which the "
                        f"loop at line {loop.loc.line} stores (their order per vertex matters)")
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
    accumulator, op, why = fold_of(loop, declared)
    if accumulator is None:
        return None, why
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
    stmts = fold_locally(kernel, kernel.body.stmts, at, _conjuncts(kernel.guard))
    if stmts is None:
        return kernel
    return dataclasses.replace(kernel, body=dataclasses.replace(kernel.body, stmts=stmts))


def fold_locally(kernel: P.Kernel, stmts, at: int, facts) -> Optional[Tuple[ir.Stmt, ...]]:
    """``stmts`` (a block of ``kernel``'s body) with the neighbour loop ``stmts[at]`` folding
    into a new local instead of the vertex's own property (see ``local_fold``; ``facts``: the
    conditions known of the vertex there, the guard's and its branch's); None where it may
    not."""
    loop = stmts[at]
    own = ir.VarRef(kernel.index, type=kernel.index.type)
    targets = [n.target for n in ir.walk(loop) if isinstance(n, (ir.Assign, ir.Reduce))
               and isinstance(n.target, ir.PropRead) and n.target.index == own]
    if not targets or any(t.prop != targets[0].prop for t in targets) or \
            loop_refusal(kernel, loop):
        return None
    prop = targets[0].prop
    steps = {}
    for node in ir.walk(loop):
        if isinstance(node, (ir.Assign, ir.Reduce)) and node.target in targets:
            step = _fold_step(node, targets[0])
            if step is None:
                return None
            steps[id(node)] = step
    ops = {op for op, _ in steps.values()}
    reads = [n for n in ir.walk(loop) if isinstance(n, ir.PropRead) and n.prop == prop]
    at_vertex = sum(1 for n in reads if n.index == own)
    elsewhere = [n for n in reads if n.index != own]
    if len(ops) != 1 or at_vertex != len(steps) + sum(r for _, r in steps.values()) or \
            any(n.index != ir.VarRef(loop.var, type=loop.var.type) for n in elsewhere) or \
            elsewhere and not _other_vertex(kernel, loop, facts):
        return None
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
    return tuple(stmts[:at]) + (ir.Declare(local, ir.Const(FOLD_OPERATORS[op], type=elem,
                                                            loc=loop.loc), loc=loop.loc),
                                new_loop, ir.Assign(targets[0], total, loc=loop.loc)) + \
        tuple(stmts[at + 1:])


def _conjuncts(expr: Optional[ir.Expr]):
    if isinstance(expr, ir.Binary) and expr.op == "&&":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [] if expr is None else [expr]


def _levels(facts, at: ir.Symbol):
    """``(array, level)`` of each condition ``array[at] == level`` of ``facts``."""
    return [(c.left.prop, c.right) for c in facts
            if isinstance(c, ir.Binary) and c.op == "==" and isinstance(c.left, ir.PropRead)
            and isinstance(c.left.index, ir.VarRef) and c.left.index.sym == at]


def _other_vertex(kernel: P.Kernel, loop: ir.Loop, facts) -> bool:
    """Whether ``facts`` (conditions of the vertex: the guard's, its branch's) and the loop's
    filter prove the neighbour is not the vertex: the vertex's ``A[v] == x`` and the
    neighbour's ``A[w] == x + c`` or ``x - c`` (c not 0), where the kernel writes ``A`` only
    with plain stores, none of them provably ``x + c`` (so no vertex's ``A`` becomes the
    neighbour's level while the loop runs: BFS's level array, set to depth + 1)."""
    for array, level in _levels(facts, kernel.index):
        for other, their in _levels(_conjuncts(loop.filter), loop.var):
            if other != array or not _differ(level, their) or \
                    not _never_stored(kernel, array, their):
                continue
            return True
    return False


def _offset(expr: ir.Expr):
    """``(base, c)`` of ``base + c`` / ``base - c`` (c a constant), else ``(expr, 0)``."""
    if isinstance(expr, ir.Binary) and expr.op in ("+", "-") and \
            isinstance(expr.right, ir.Const) and isinstance(expr.right.value, int):
        return expr.left, expr.right.value if expr.op == "+" else -expr.right.value
    return expr, 0


def _differ(left: ir.Expr, right: ir.Expr) -> bool:
    """Whether ``left`` and ``right`` provably differ: one base, different constants."""
    (base, low), (other, high) = _offset(left), _offset(right)
    return base == other and low != high


def _never_stored(kernel: P.Kernel, array: ir.Symbol, value: ir.Expr) -> bool:
    """Whether every write of ``array`` in ``kernel`` is a plain store of a value that
    provably differs from ``value``."""
    for node in ir.walk(kernel.body):
        target = getattr(node, "target", None)
        if isinstance(target, ir.PropRead) and target.prop == array:
            if not isinstance(node, ir.Assign) or not _differ(node.value, value):
                return False
    return True


def fold_of(loop: ir.Loop, declared) -> Tuple[Optional[ir.Symbol], str, str]:
    """The one accumulator (declared before the loop, at its operator's identity: each lane's
    copy starts there) that ``loop`` folds, and its operator; else ``(None, "", why not)``."""
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
    init = declared[accumulator.uid].init
    if not isinstance(init, ir.Const) or init.value != FOLD_OPERATORS[op]:
        return None, "", (f"'{accumulator.name}' does not start at the identity of '{op}' "
                          "(each lane's copy starts there)")
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
