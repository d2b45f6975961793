"""Minimum-label propagation over both directions of every edge, run as a union-find.

A fixedPoint that is exactly label propagation for weakly connected components (dsl/cc.sp)::

    (every flag set just before the loop)
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) { <w.comp, w.modified> = <Min(w.comp, v.comp), True>; }
            forall (u in g.nodes_to(v)) { <u.comp, u.modified> = <Min(u.comp, v.comp), True>; }
        }
    }

ends, in whatever order its rounds run, with ``comp[v]`` the least ``comp`` any vertex of v's
weakly connected component started with, every flag clear and ``finished`` true: the fixed
point is unique. Propagation pays a round over the active edges per hop the least label
travels (a 512 x 512 grid: 2-8 dense rounds over all 1 M edges, twice, on PoCL, where a round
sees the updates made before it in the same sweep; a GPU's items see few of those, so up to a
round per hop of the grid's 1,022). A union-find reaches the same in one pass over the edges
(ECL-CC, Jaiganesh and Burtscher 2018; bench/baselines/cc.cpp): every edge links the trees of
its two ends, hooking the larger root under the smaller with a compare-and-swap (a root is its
tree's least id; finds halve the paths they walk), then each vertex's root takes the least
label of its tree (an atomic min) and each vertex takes its root's.

The ``components`` pass records that form beside the loop (``Plan.components``); the
specialize stage (``choose_components``) splices it in place of the loop where the target
has device compare-and-swap on ints, or drops it, and says why either way.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier import drop_forms
from starc.analysis.frontier_seed import all_flagged
from starc.analysis.host_tree import map_blocks, walk_host
from starc.analysis.naming import NameAllocator, SymbolFactory
from starc.analysis.pass_builder import PassBuilder
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["components", "choose_components", "UNION_FIND_WHY"]

#: why the union-find runs where the target keeps it
UNION_FIND_WHY = ("the loop is minimum-label propagation over both directions of every edge, "
                  "with every flag set before it: it ends with each vertex's label the least "
                  "its weakly connected component started with, which one pass of a "
                  "union-find over the edges gives (each edge hooks the larger of its two "
                  "roots under the smaller with a compare-and-swap, finds halving their paths; "
                  "then a root takes its tree's least label, a vertex its root's), where "
                  "propagation runs a round per hop the least label travels")


def _own(expr: ir.Expr, vertex: ir.Symbol) -> bool:
    return isinstance(expr, ir.VarRef) and expr.sym.uid == vertex.uid


def _propagation(loop: P.FixedPointLoop) -> Tuple[Optional[P.Kernel], Optional[ir.Symbol]]:
    """The loop's one kernel and its label property where the loop is minimum-label
    propagation over both directions of every edge (the module docstring), else Nones."""
    launches = loop.body.stmts
    if loop.forced or len(launches) != 1 or not isinstance(launches[0], P.Launch):
        return None, None
    kernel = launches[0].kernel
    if kernel.extent != "nodes" or kernel.reductions or kernel.stores or kernel.checks or \
            kernel.guard is None:
        return None, None
    v = kernel.index
    guard = kernel.guard
    if isinstance(guard, ir.Binary) and guard.op == "==" and \
            isinstance(guard.right, ir.Const) and guard.right.value in (True, 1):
        guard = guard.left
    if not (isinstance(guard, ir.PropRead) and guard.prop.uid == loop.current.sym.uid and
            _own(guard.index, v)):
        return None, None
    loops = kernel.body.stmts
    if len(loops) != 2 or not all(isinstance(s, ir.Loop) and s.filter is None for s in loops):
        return None, None
    if {type(s.domain) for s in loops} != {ir.Neighbors, ir.InNeighbors} or \
            not all(_own(s.domain.of, v) for s in loops):
        return None, None
    label = None
    for each in loops:
        body = each.body.stmts
        update = body[0] if len(body) == 1 else None
        if not (isinstance(update, P.AtomicMinMax) and update.func == "Min" and
                not update.locked and update.others):
            return None, None
        target, candidate = update.target, update.candidate
        if not (isinstance(target, ir.PropRead) and isinstance(candidate, ir.PropRead) and
                target.prop.uid == candidate.prop.uid and _own(target.index, each.var) and
                _own(candidate.index, v) and target.type in (Scalar.INT, Scalar.NODE)):
            return None, None
        if label is not None and label.uid != target.prop.uid:
            return None, None
        label = target.prop
        # the winner flags its vertex for the next round (and sets the loop's device flag)
        for other, value in update.others:
            if not (isinstance(other, ir.PropRead) and other.prop.uid == loop.next.sym.uid and
                    _own(other.index, each.var) and isinstance(value, ir.Const) and
                    value.value in (True, 1)):
                return None, None
        if not all(isinstance(then, P.FlagSet) and then.flag == loop.flag
                   for then in update.then):
            return None, None
    return kernel, label


def _union_find(loop: P.FixedPointLoop, kernel: P.Kernel, label: ir.Symbol,
                builder: PassBuilder, symbols: SymbolFactory) -> P.HostBlock:
    """The host statements (and, in ``builder``, the kernels) that leave what ``loop``
    leaves: labels, every flag clear, the loop's variable true."""
    # (the kernels' statements at the forall's line, as the rounds' were; the host's at the
    # loop's)
    loc, host_loc = kernel.loc, loop.loc
    v = kernel.index
    vertex = ir.VarRef(v, type=v.type, loc=loc)
    parent = builder.local_array(f"{label.name}_parent")
    least = builder.local_array(f"{label.name}_least")

    def at(array: P.DeviceArray, index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(array.sym, index, type=Scalar.INT, loc=loc)

    def root() -> P.UnionFindRoot:
        return P.UnionFindRoot(parent, vertex, type=Scalar.INT, loc=loc)

    def labels(index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(label, index, type=label.type.elem, loc=loc)

    def launch(name: str, *stmts: ir.Stmt) -> P.Launch:
        made = builder.kernel(f"{kernel.name}_{name}", v, "nodes", None,
                              ir.Block(stmts, loc=loc), like=kernel)
        return P.Launch(made, loc=host_loc)

    forward = next(s for s in kernel.body.stmts if isinstance(s.domain, ir.Neighbors))
    link = dataclasses.replace(forward, body=ir.Block((P.UnionFindLink(
        parent, vertex, ir.VarRef(forward.var, type=forward.var.type, loc=loc), loc=loc),),
        loc=loc))
    found = symbols.make(f"{label.name}_root", Scalar.INT, ir.SymbolKind.LOCAL, loc)
    found_ref = ir.VarRef(found, type=Scalar.INT, loc=loc)
    stmts = (
        launch("roots", ir.Assign(at(parent, vertex), vertex, loc=loc)),
        launch("link", link),
        P.Fill(least, ir.Inf(type=Scalar.INT, loc=host_loc), loc=host_loc),
        # (each vertex's root after every link: a find; the path it walked, compressed)
        launch("least", ir.Declare(found, root(), loc=loc),
               ir.Assign(at(parent, vertex), found_ref, loc=loc),
               P.AtomicMinMax("Min", at(least, found_ref), labels(vertex), read_first=True,
                              loc=loc)),
        launch("label", ir.Assign(labels(vertex), at(least, root()), loc=loc)),
        P.Fill(loop.current, ir.Const(False, type=Scalar.BOOL, loc=host_loc), loc=host_loc),
        P.HostAssign(loop.flag_var, ir.Const(True, type=Scalar.BOOL, loc=host_loc),
                     loc=host_loc),
    )
    return P.HostBlock(stmts, loc=host_loc)


def components(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """``plan`` with a union-find form (``P.UnionFindForm``) beside each fixedPoint that is
    minimum-label propagation over every edge with every flag set before it."""
    forms: List[P.UnionFindForm] = []
    arrays = plan.arrays
    names = NameAllocator({a.name for a in plan.arrays} | {k.name for k in plan.kernels})

    def visit(block: P.HostBlock) -> P.HostBlock:
        nonlocal arrays
        for at, stmt in enumerate(block.stmts):
            map_blocks(stmt, visit)
            if not isinstance(stmt, P.FixedPointLoop) or \
                    not all_flagged(list(block.stmts[:at]), stmt):
                continue
            kernel, label = _propagation(stmt)
            if kernel is None:
                continue
            builder = PassBuilder(arrays, symbols, names, stmt.loc)
            host = _union_find(stmt, kernel, label, builder, symbols)
            new = builder.arrays[len(arrays):]
            arrays = builder.arrays
            forms.append(P.UnionFindForm(stmt.loc, host, tuple(builder.kernels), new))
        return block
    visit(plan.host)
    if not forms:
        return plan
    return dataclasses.replace(plan, components=tuple(forms))


def choose_components(plan: P.Plan, capable: bool,
                      why_not: str) -> Tuple[P.Plan, Tuple[Tuple[object, str], ...], set]:
    """``plan`` with each union-find form spliced in place of its loop, where ``capable``
    (the target's kernels compare-and-swap ints), with its kernels and arrays; the loops'
    decisions (location, "" where spliced, else ``why_not``); the names of the kernels only
    the replaced loops launched, which the caller drops once it has specialized them."""
    forms = plan.components
    plan = dataclasses.replace(plan, components=())
    if not forms or not capable:
        return plan, tuple((form.loc, why_not) for form in forms), set()
    by_loc = {form.loc: form for form in forms}
    replaced: List[P.HostBlock] = []

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            form = by_loc.get(stmt.loc) if isinstance(
                stmt, (P.FixedPointLoop, P.DataDrivenLoop)) else None
            if form is None:
                stmts.append(stmt)
                continue
            replaced.append(P.HostBlock((stmt,), loc=stmt.loc))
            # the loop's variable set true after it, where the loop still sets it (the
            # elide pass drops what nothing reads)
            assigned = {s.sym for s in walk_host(stmt) if isinstance(s, P.HostAssign)}
            stmts += [s for s in form.host.stmts
                      if not isinstance(s, P.HostAssign) or s.sym in assigned]
        return dataclasses.replace(block, stmts=tuple(stmts))
    host = rewrite(plan.host)
    plan = dataclasses.replace(
        plan, kernels=plan.kernels + tuple(k for form in forms for k in form.kernels),
        arrays=plan.arrays + tuple(a for form in forms for a in form.arrays))
    plan, gone = drop_forms(plan, host, replaced)
    return plan, tuple((form.loc, "") for form in forms), gone
