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
(ECL-CC, Jaiganesh and Burtscher 2018; bench/baselines/cc.cpp): an edge links the trees of
its two ends, hooking the larger root under the smaller with a compare-and-swap (a root is its
tree's least id; finds halve the paths they walk).

Most of those links join trees already joined: on a power-law or a random graph one component
holds most vertices and edges. So the pass samples first (Afforest: Sutton, Ben-Nun and Barak
2018; GAPBS's cc): each vertex links its first ``SAMPLED`` out-neighbour; one work item names
the big tree, the root of the vertex of most out-edges among ``SAMPLES`` evenly spaced ones;
then only a vertex outside that tree links all its edges, both directions (an edge between
the big tree and another has its other end outside, which links it as an in- or out-edge).
Whichever tree is named, the labels are the same: the choice decides only how many edges are
skipped; and a vertex is tested against the named tree's root found again, since a tree of a
less id may have joined it after the choice. At Kronecker 18 on PoCL that skips most of the
pass (12 -> 4.5 ms). Where the labels start as the ids (``comp = v`` just before the loop)
the labels are the forest itself and a vertex's root is its label; else each root takes the
least label of its tree (an atomic min) and each vertex its root's. A device whose work items run in lockstep (a GPU) skips the
sample: it runs the link kernel one work item per edge, where each edge's test against the big
tree would cost more finds than it saves (on PoCL as a lockstep device, Kronecker 18: 13.5 ms
tested, 12 ms not); every out-edge links its two trees there. The form holds both, behind a
test of the device kind that the specialize stage decides where the target knows it.

The ``components`` pass records that form beside the loop (``Plan.components``); the
specialize stage (``choose_components``) splices it in place of the loop where the target
has device compare-and-swap on ints, or drops it, and says why either way.
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier import drop_forms
from starc.analysis.frontier_seed import all_flagged, last_touch
from starc.analysis.host_tree import kernels_launched_by, map_blocks, walk_host
from starc.analysis.naming import NameAllocator, SymbolFactory
from starc.analysis.pass_builder import IRShorthands, PassBuilder
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["components", "choose_components", "UNION_FIND_WHY", "RANKS_UNION_FIND_WHY",
           "SAMPLED", "SAMPLED_WORDS", "SAMPLES"]

#: the out-edges each vertex links before the big tree is chosen (Afforest's neighbour
#: rounds: Sutton, Ben-Nun and Barak 2018; GAPBS's cc). One: on a grid or a power-law graph
#: the first already joins most vertices into one tree, and a second in the same pass chains
#: the trees two threads grow apart (a 512 x 512 grid on PoCL, 2 threads: 3.7-4.0 ms with
#: two, 1.4-2.3 with one; Kronecker 18 the same). GAPBS compresses between its rounds
SAMPLED = 1
#: how the reasons name them
SAMPLED_WORDS = "first out-neighbour" if SAMPLED == 1 else f"first {SAMPLED} out-neighbours"
#: the vertices whose out-degrees the choice of the big tree compares: the root of the one of
#: most out-edges names it (one work item reads them, so few; a hub of a power-law graph, any
#: vertex of a grid, lies in its largest component)
SAMPLES = 128

#: why the union-find runs where the target keeps it
UNION_FIND_WHY = ("the loop is minimum-label propagation over both directions of every edge, "
                  "with every flag set before it: it ends with each vertex's label the least "
                  "its weakly connected component started with, which one pass of a "
                  "union-find over the edges gives (each edge hooks the larger of its two "
                  "roots under the smaller with a compare-and-swap, finds halving their paths; "
                  "where the device's work items do not run in lockstep, each vertex first "
                  f"links its {SAMPLED_WORDS}, and then only the vertices outside the tree of "
                  "a sampled hub link their edges), where propagation runs a round per hop the "
                  "least label travels")

#: why a distributed target's runtime joins the ranks' forests in the loop's place
RANKS_UNION_FIND_WHY = (
    "the loop is minimum-label propagation over both directions of every edge, with every "
    "flag set before it: it ends with each vertex's label the least its weakly connected "
    "component started with. Propagated across ranks, a label reaches another rank's vertices "
    "a superstep late and every round scans the edges again; instead each rank links its own "
    "edges in a union-find over its vertices and ghosts (sampled first: the vertices in the "
    "tree of the graph's hub, named by one all-reduce, skip their edges), the ranks agree on "
    "the hub's tree's least label in one all-reduce, and supersteps over the trees, not the "
    "edges, carry the other least labels through the ghosts: a pass over a rank's vertices "
    "each, as many as the least labels' hops between ranks")


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


class _Forest(IRShorthands):
    """IR shorthands for the union-find's kernels over ``parent`` at the forall's line."""

    def __init__(self, kernel: P.Kernel, parent: P.DeviceArray, symbols: SymbolFactory) -> None:
        self.loc, self.v, self.parent, self.symbols = kernel.loc, kernel.index, parent, symbols

    def at(self, array: P.DeviceArray, index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(array.sym, index, type=Scalar.INT, loc=self.loc)

    def root(self, vertex: ir.Expr) -> P.UnionFindRoot:
        return P.UnionFindRoot(self.parent, vertex, type=Scalar.INT, loc=self.loc)

    def local(self, name: str, init: ir.Expr) -> Tuple[ir.Symbol, ir.Declare]:
        sym = self.symbols.make(name, Scalar.INT, ir.SymbolKind.LOCAL, self.loc)
        return sym, ir.Declare(sym, init, loc=self.loc)

    def linking(self, loop: ir.Loop, *after: ir.Stmt) -> ir.Loop:
        """``loop`` (over the vertex's out- or in-neighbours) linking each neighbour's tree
        with the vertex's, then ``after``."""
        link = P.UnionFindLink(self.parent, self.var(self.v), self.var(loop.var), loc=self.loc)
        return dataclasses.replace(loop, body=self.block(link, *after))

    def sample(self, graph: ir.Symbol) -> P.UnionFindSample:
        """The vertex linked with its first ``SAMPLED`` out-neighbour(s)."""
        return P.UnionFindSample(self.parent, self.var(self.v), graph, SAMPLED, loc=self.loc)

    def choice(self, graph: ir.Symbol, big: P.DeviceArray) -> ir.Block:
        """One work item: ``big[0]`` the root of the vertex of most out-edges among
        ``SAMPLES`` evenly spaced ones (-1 on an empty graph)."""
        n = ir.GraphQuery("num_nodes", graph, type=Scalar.INT, loc=self.loc)
        fewer = self.op("<", n, self.int(SAMPLES))
        count, count_decl = self.local("sample_count", self.int(SAMPLES))
        step, step_decl = self.local("sample_step", self.op("/", n, self.int(SAMPLES),
                                                              Scalar.INT))
        item, item_decl = self.local("sample_item", self.int(0))
        best, best_decl = self.local("sample_best", self.int(0))
        most, most_decl = self.local("sample_most", self.int(-1))
        vertex, vertex_decl = self.local("sample_vertex", self.op(
            "*", self.var(item), self.var(step), Scalar.INT))
        degree, degree_decl = self.local("sample_degree", ir.GraphQuery(
            "count_outNbrs", graph, (self.var(vertex),), type=Scalar.INT, loc=self.loc))
        more = ir.If(self.op(">", self.var(degree), self.var(most)), self.block(
            self.assign(self.var(most), self.var(degree)),
            self.assign(self.var(best), self.var(vertex))), loc=self.loc)
        walk = ir.While(self.op("<", self.var(item), self.var(count)), self.block(
            vertex_decl, degree_decl, more,
            self.assign(self.var(item), self.plus(self.var(item), self.int(1)))),
            loc=self.loc)
        chosen = ir.If(self.op("<", self.var(most), self.int(0)),
                       self.block(self.assign(self.at(big, self.int(0)), self.int(-1))),
                       self.block(self.assign(self.at(big, self.int(0)),
                                              self.root(self.var(best)))), loc=self.loc)
        # (fewer vertices than samples: every one, a step of 1)
        every = ir.If(fewer, self.block(self.assign(self.var(count), n),
                                        self.assign(self.var(step), self.int(1))), loc=self.loc)
        return self.block(count_decl, step_decl, every, item_decl, best_decl, most_decl, walk,
                          chosen)


def _union_find(loop: P.FixedPointLoop, kernel: P.Kernel, label: ir.Symbol,
                forest: Optional[P.DeviceArray], builder: PassBuilder,
                symbols: SymbolFactory) -> P.HostBlock:
    """The host statements (and, in ``builder``, the kernels) that leave what ``loop``
    leaves: labels, every flag clear, the loop's variable true. Where the labels are their
    vertices' ids when the loop starts, ``forest`` is their array, the forest itself: a root
    is its tree's least id, so its label."""
    # (the kernels' statements at the forall's line, as the rounds' were; the host's at the
    # loop's)
    host_loc = loop.loc
    v = kernel.index
    ids = forest is not None
    parent = forest if ids else builder.local_array(f"{label.name}_parent")
    big = builder.local_array(f"{label.name}_big", "one")
    f = _Forest(kernel, parent, symbols)
    vertex = f.var(v)

    def labels(index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(label, index, type=label.type.elem, loc=f.loc)

    def launch(name: str, *stmts: ir.Stmt, guard: Optional[ir.Expr] = None,
               index: ir.Symbol = v, extent: str = "nodes") -> P.Launch:
        made = builder.kernel(f"{kernel.name}_{name}", index, extent, guard,
                              f.block(*stmts), like=kernel)
        return P.Launch(made, loc=host_loc)

    forward = next(s for s in kernel.body.stmts if isinstance(s.domain, ir.Neighbors))
    backward = next(s for s in kernel.body.stmts if isinstance(s.domain, ir.InNeighbors))
    graph = forward.domain.graph
    item = symbols.make(f"{label.name}_chooser", Scalar.INT, ir.SymbolKind.LOOP, f.loc)
    stmts: List[P.HostStmt] = [] if ids else [
        launch("roots", f.assign(f.at(parent, vertex), vertex))]
    sampled = P.HostBlock((
        launch("sample", f.sample(graph)),
        launch("choose", *f.choice(graph, big).stmts, index=item, extent="single"),
        # (a vertex of the big tree skips its edges: an edge of it to another tree is that
        # tree's vertex's in- or out-edge, linked from there. The big tree's root is found
        # again: a tree of a less id may have joined it since)
        launch("link", f.linking(forward), f.linking(backward), guard=f.op(
            "!=", f.root(vertex), f.root(f.at(big, f.int(0)))))), loc=host_loc)
    # (a lockstep device runs a work item per edge, where the guard, tested per edge, would
    # cost more finds than it skips: every out-edge links its two trees)
    every = P.HostBlock((launch("link_every", f.linking(forward)),), loc=host_loc)
    stmts.append(P.HostIf(P.OnLockstepDevice(type=Scalar.BOOL, loc=host_loc), every, sampled,
                          loc=host_loc))
    if ids:
        stmts.append(launch("label", f.assign(f.at(parent, vertex), f.root(vertex))))
    else:
        least = builder.local_array(f"{label.name}_least")
        found, declared_root = f.local(f"{label.name}_root", f.root(vertex))
        stmts += [
            P.Fill(least, ir.Inf(type=Scalar.INT, loc=host_loc), loc=host_loc),
            # (each vertex's root after every link: a find; the path it walked, compressed)
            launch("least", declared_root, f.assign(f.at(parent, vertex), f.var(found)),
                   P.AtomicMinMax("Min", f.at(least, f.var(found)), labels(vertex),
                                  read_first=True, loc=f.loc)),
            launch("label", ir.Assign(labels(vertex), f.at(least, f.root(vertex)),
                                      loc=f.loc))]
    stmts += _end_state(loop)
    return P.HostBlock(tuple(stmts), loc=host_loc)


def _end_state(loop: P.FixedPointLoop) -> List[P.HostStmt]:
    """What the loop leaves besides the labels: every flag clear, its variable true."""
    return [P.Fill(loop.current, ir.Const(False, type=Scalar.BOOL, loc=loop.loc), loc=loop.loc),
            P.HostAssign(loop.flag_var, ir.Const(True, type=Scalar.BOOL, loc=loop.loc),
                         loc=loop.loc)]


def _ranks_form(loop: P.FixedPointLoop, labels: P.DeviceArray) -> P.HostBlock:
    """The loop's place on a distributed target: the runtime's least labels, then the end
    state."""
    return P.HostBlock((P.LeastLabels(labels, loc=loop.loc), *_end_state(loop)), loc=loop.loc)


def _label_array(label: ir.Symbol, arrays) -> Optional[P.DeviceArray]:
    """The device array of the labels' property (a propagation's labels always have one)."""
    return next((a for a in arrays if a.sym is not None and a.sym.uid == label.uid), None)


def _ids_at_entry(before: List[P.HostStmt], label: ir.Symbol,
                  arrays) -> Optional[P.DeviceArray]:
    """The labels' device array where each vertex's label is its id when the loop starts
    (the last statement ``before`` it that touches the labels is a launch over every vertex
    that writes ``label[v] = v`` and nothing else), else None."""
    array = _label_array(label, arrays)
    if array is None or array.elem not in (Scalar.INT, Scalar.NODE):
        return None
    at = last_touch(before, array, len(before) - 1)
    launch = before[at] if at >= 0 else None
    if not isinstance(launch, P.Launch) or launch.scalar_args:
        return None
    kernel = launch.kernel
    if kernel.extent != "nodes" or kernel.guard is not None or kernel.reductions or \
            kernel.stores or kernel.checks or len(kernel.body.stmts) != 1:
        return None
    [write] = kernel.body.stmts
    ids = isinstance(write, ir.Assign) and isinstance(write.target, ir.PropRead) and \
        write.target.prop.uid == label.uid and _own(write.target.index, kernel.index) and \
        _own(write.value, kernel.index)
    return array if ids else None


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
            forest = _ids_at_entry(list(block.stmts[:at]), label, arrays)
            builder = PassBuilder(arrays, symbols, names, stmt.loc)
            host = _union_find(stmt, kernel, label, forest, builder, symbols)
            new = builder.arrays[len(arrays):]
            arrays = builder.arrays
            forms.append(P.UnionFindForm(
                stmt.loc, host, tuple(builder.kernels), new, forest is not None,
                _ranks_form(stmt, _label_array(label, arrays))))
        return block
    visit(plan.host)
    if not forms:
        return plan
    return dataclasses.replace(plan, components=tuple(forms))


def _on_device(stmts, lockstep: Optional[bool]) -> List[P.HostStmt]:
    """``stmts`` with each test of the device kind (``OnLockstepDevice``) decided where the
    target knows it (``lockstep`` True or False; None: a test at run time)."""
    out: List[P.HostStmt] = []
    for stmt in stmts:
        if lockstep is not None and isinstance(stmt, P.HostIf) and \
                isinstance(stmt.cond, P.OnLockstepDevice):
            out += (stmt.then if lockstep else stmt.orelse).stmts
        else:
            out.append(stmt)
    return out


def choose_components(plan: P.Plan, capable: bool, why_not: str,
                      lockstep: Optional[bool] = False, distributed: bool = False
                      ) -> Tuple[P.Plan, Tuple[Tuple[object, str], ...], set]:
    """``plan`` with each union-find form spliced in place of its loop, where ``capable``
    (the target's kernels compare-and-swap ints), with the kernels and arrays it launches:
    the sampled links where the device's items do not run in lockstep (``lockstep`` False),
    every edge's where they do (True), both behind a test at run time (None); on a
    ``distributed`` target, the runtime's least labels (``UnionFindForm.ranks``) instead.
    Also the loops' decisions (location, "" where spliced, else ``why_not``); the names of
    the kernels only the replaced loops launched, which the caller drops once it has
    specialized them."""
    forms = plan.components
    plan = dataclasses.replace(plan, components=())
    if not forms or not capable:
        return plan, tuple((form.loc, why_not) for form in forms), set()
    if distributed:
        forms = tuple(dataclasses.replace(form, host=form.ranks, kernels=(), arrays=())
                      for form in forms)
    forms = tuple(dataclasses.replace(form, host=dataclasses.replace(
        form.host, stmts=tuple(_on_device(form.host.stmts, lockstep)))) for form in forms)
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
    launched = {k.name for form in forms for s in walk_host(form.host)
                for k in kernels_launched_by(s)}
    kernels = tuple(k for form in forms for k in form.kernels if k.name in launched)
    taken = {p.array.name for k in kernels for p in k.params if p.array is not None}
    plan = dataclasses.replace(
        plan, kernels=plan.kernels + kernels,
        arrays=plan.arrays + tuple(a for form in forms for a in form.arrays
                                   if a.name in taken))
    plan, gone = drop_forms(plan, host, replaced)
    return plan, tuple((form.loc, "") for form in forms), gone
