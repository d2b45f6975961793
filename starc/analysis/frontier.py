"""Data-driven fixedPoint: a worklist of the vertices whose convergence flag is set, when safe.

``fixedPoint until (fin : !p) { forall (v in g.nodes().filter(p == True)) {...} }`` launches
over every vertex each round and tests the filter (topology-driven). When the analysis proves
that the queue of vertices whose ``p`` is set can be kept exactly (``topology_reason`` is
empty), the ``frontier`` pass gives the loop a ``Worklist``: a round launches over the queue
(sparse: kernels append each vertex whose next flag they set, once per round) or, when the
queue is large, over all vertices as before (dense: kernels only set and count the flags, and
a compaction kernel builds the queue when the next round is sparse), GAPBS/Gunrock style. ``choose_form``
keeps the data-driven or the topology-driven form of each loop for one backend. A
Bellman-Ford round also defers the entries past a priority window (``priority_window``), and
small sparse rounds may run in one work-group without the host between them
(``worklist_rounds``).
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.fixedpoint import constant_value
from starc.analysis.frontier_constants import (DENSE_DIVISOR, FRONTIER_COUNT, FRONTIER_ROUND,
                                               length_slot)
from starc.analysis.frontier_seed import (all_flagged, fill_once, one_flagged, seed_launch,
                                          update_seed)
from starc.analysis.host_tree import host_exprs, kernels_launched_by, map_blocks, walk_host
from starc.analysis.naming import NameAllocator, SymbolFactory, symbols_in
from starc.analysis.pass_builder import PassBuilder
from starc.analysis.priority_window import window_refusal, windowed_round
from starc.analysis.transfers import used_arrays
from starc.analysis.worklist_rounds import frontier_rounds
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar

__all__ = ["DENSE_DIVISOR", "FRONTIER_COUNT", "FRONTIER_ROUND", "length_slot", "worklists",
           "topology_reason", "choose_form", "drop_forms"]

def _int(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.BOOL, loc=loc)


def _is_flag_test(expr: Optional[ir.Expr], prop: ir.Symbol, index: ir.Symbol) -> bool:
    """Whether ``expr`` is true only where ``prop[index]`` is: ``p[v]``, ``p[v] == True`` or
    a conjunction with one of them."""
    while isinstance(expr, ir.Cast):
        expr = expr.expr
    if isinstance(expr, ir.PropRead):
        return (expr.prop.uid == prop.uid and isinstance(expr.index, ir.VarRef)
                and expr.index.sym.uid == index.uid)
    if isinstance(expr, ir.Binary) and expr.op == "==":
        return any(_is_flag_test(a, prop, index) and constant_value(b) is True
                   for a, b in ((expr.left, expr.right), (expr.right, expr.left)))
    if isinstance(expr, ir.Binary) and expr.op == "&&":
        return _is_flag_test(expr.left, prop, index) or _is_flag_test(expr.right, prop, index)
    return False


def _kernel_reason(kernel: P.Kernel, loop: P.FixedPointLoop) -> str:
    prop, nxt = loop.current.sym, loop.next.sym
    name = prop.name
    if kernel.extent != "nodes" or not _is_flag_test(kernel.guard, prop, kernel.index):
        return (f"the body launches a kernel not filtered on '{name} == True' (line "
                f"{kernel.loc.line}): it needs every vertex each round")
    targets = 0
    for node in ir.walk(kernel.body):
        writes: List[Tuple[ir.Expr, Optional[ir.Expr]]] = []
        if isinstance(node, ir.Assign):
            writes.append((node.target, node.value))
        elif isinstance(node, P.AtomicMinMax):
            writes += [(node.target, None)] + list(node.others)
        elif isinstance(node, P.AtomicReduce):
            writes.append((node.target, None))
        for target, value in writes:
            if not isinstance(target, ir.PropRead):
                continue
            if target.prop.uid == prop.uid:
                return f"a kernel writes '{name}' of the current round"
            if target.prop.uid != nxt.uid:
                continue
            targets += 1
            if value is None or constant_value(value) is not True:
                return f"'{name}' is written other than set to True"
            if not isinstance(target.index, ir.VarRef):
                return f"'{name}' is set at a computed vertex"
    reads = sum(1 for n in ir.walk(kernel.body)
                if isinstance(n, ir.PropRead) and n.prop.uid == nxt.uid)
    if reads != targets:
        return f"a kernel reads '{name}' of the next round"
    return ""


def topology_reason(loop: P.FixedPointLoop) -> str:
    """Why ``loop`` must stay topology-driven, or "" when a worklist is exact."""
    name = loop.current.sym.name if loop.current.sym is not None else loop.current.name
    if loop.forced:
        return f"the body assigns '{loop.flag_var.name}', forcing rounds"
    if loop.current.elem is not Scalar.BOOL:
        return f"'{name}' is not a bool property"
    if not loop.body.stmts:
        return "the body launches no kernel"
    for stmt in loop.body.stmts:
        if not isinstance(stmt, P.Launch) or stmt.scalar_args:
            return (f"the body has host work besides kernel launches (line {stmt.loc.line}),"
                    f" which may read or write '{name}'")
        reason = _kernel_reason(stmt.kernel, loop)
        if reason:
            return reason
    return ""


class _Builder(PassBuilder):
    """Makes the worklist arrays and kernels of one fixedPoint."""

    def __init__(self, plan: P.Plan, loop: P.FixedPointLoop, symbols: SymbolFactory,
                 names: NameAllocator) -> None:
        super().__init__(plan.arrays, symbols, names, loop.loc)
        self.loop = loop
        self.graph = next(p for p in plan.function.params if isinstance(p.type, GraphType))
        base = loop.current.name
        self.queue = self.local_array(f"{base}_frontier")
        self.next_queue = self.local_array(f"{base}_frontier_nxt")
        self.stamp = self.local_array(f"{base}_queued")
        size = names.unique(f"{base}_frontier_size")
        # (a sym: the rounds of one work-group read it: ``worklist_rounds``)
        self.size = P.DeviceArray(size, Scalar.INT, "two", "flag", sym=symbols.make(
            size, PropType("node", Scalar.INT), ir.SymbolKind.LOCAL, self.loc))
        self.arrays += (self.size,)
        self.round = _scalar(FRONTIER_ROUND, self.loc)
        self.function = plan.function
        self.window_why = ""

    def slot(self, following: bool = False) -> ir.Expr:
        """The slot of ``size`` a round appends to (``length_slot``)."""
        return length_slot(self.round, following)

    def read(self, array: P.DeviceArray, index: ir.Expr) -> ir.PropRead:
        return ir.PropRead(array.sym, index, type=Scalar.INT, loc=self.loc)

    def push(self, vertex: ir.Expr, loc, first: bool = False) -> P.AtomicMinMax:
        """Claim ``vertex`` for this round (stamp it with the round number; only the work item
        whose atomic max raises the stamp wins) and append it to the next queue (``first``:
        the current one, as a seed making the first queue). ``loc`` is the flag set's (the
        source maps send these lines to the DSL statement that set it)."""
        queue = self.queue if first else self.next_queue
        return P.AtomicMinMax("Max", self.read(self.stamp, vertex), self.round,
                              then=(P.QueueAppend(queue, self.size, vertex,
                                                  self.slot(), loc=loc),),
                              read_first=True, loc=loc)

    def flip(self, target: ir.PropRead, loc) -> ir.If:
        """``if (!next[w]) { next[w] = True; count 1 }``: a dense round's flag set, counted
        when the flag was clear. Two work items may both read it clear (an over-count, which
        only steers the dense/sparse choice); a flag that is set was clear for its first
        setter, so the count is 0 exactly when the round set no flag. ``loc`` as in ``push``."""
        clear = ir.Unary("!", target, type=Scalar.BOOL, loc=loc)
        body = ir.Block((ir.Assign(target, _bool(True, loc), loc=loc),
                         P.QueueCount(self.size, self.slot(), loc=loc)), loc=loc)
        return ir.If(clear, body, loc=loc)

    def rewritten(self, body: ir.Block, dense: bool) -> ir.Block:
        """``body`` without the device flag (the queue's length, or the dense round's flip
        count, tells whether another round is needed): a sparse variant appends every vertex
        whose next flag it sets, once per round; a dense one sets and counts (``flip``)."""
        nxt, flag = self.loop.next.sym.uid, self.loop.flag

        def sets(target) -> bool:
            return isinstance(target, ir.PropRead) and target.prop.uid == nxt

        def rewrite(node):
            if isinstance(node, P.AtomicMinMax):
                then = tuple(s for s in node.then
                             if not (isinstance(s, P.FlagSet) and s.flag == flag))
                if not dense:
                    then += tuple(self.push(t.index, node.loc) for t, _ in node.others if sets(t))
                    return dataclasses.replace(node, then=then)
                # The flag's store moves from ``others`` into ``then`` to read it first.
                flips = tuple(self.flip(t, node.loc) for t, _ in node.others if sets(t))
                others = tuple((t, v) for t, v in node.others if not sets(t))
                return dataclasses.replace(node, others=others, then=flips + then)
            if isinstance(node, ir.Block):
                stmts: List[ir.Stmt] = []
                for s in node.stmts:
                    if isinstance(s, P.FlagSet) and s.flag == flag:
                        continue
                    if isinstance(s, ir.Assign) and sets(s.target):
                        stmts += ([self.flip(s.target, s.loc)] if dense
                                  else [s, self.push(s.target.index, s.loc)])
                        continue
                    stmts.append(s)
                return dataclasses.replace(node, stmts=tuple(stmts))
            return None
        return ir.transform(body, rewrite)

    def item(self, name: str) -> ir.Symbol:
        return self.symbols.make(name, Scalar.INT, ir.SymbolKind.LOOP, self.loc)

    def clears_own_flags(self) -> bool:
        """Whether the sparse kernel may clear its entries' current flags itself, instead of
        the ``clear`` launch after it: the round launches one kernel, whose body reads the
        flag nowhere but in its filter (of its own vertex, before the clear), so no other
        work item sees the cleared flag."""
        if len(self.loop.body.stmts) != 1:
            return False
        return not ir.reads_prop(self.loop.body.stmts[0].kernel.body, self.loop.current.sym)

    def variants(self, kernel: P.Kernel, clears: bool) -> Tuple[P.Kernel, P.Kernel]:
        dense = self.kernel(f"{kernel.name}_dense", kernel.index, "nodes", kernel.guard,
                            self.rewritten(kernel.body, dense=True), kernel,
                            round_flags=(self.loop.current.sym, self.loop.next.sym))
        body = self.rewritten(kernel.body, dense=False)
        item = self.item(f"{kernel.index.name}_item")
        # The work item's vertex comes from the forall (its source-map span is the forall's).
        vertex = ir.VarRef(kernel.index, type=kernel.index.type, loc=kernel.loc)
        at = ir.Declare(kernel.index, self.read(self.queue, ir.VarRef(item, type=Scalar.INT,
                                                                       loc=kernel.loc)),
                        loc=kernel.loc)
        # Every queued vertex has its flag set; the rest of the filter still applies.
        tested = ir.If(kernel.guard, body, loc=kernel.loc)
        # The first item zeroes the next round's slot of the length, which held the count of
        # the round before (the host read it before this launch; the round has an item)
        first = ir.Binary("==", ir.VarRef(item, type=Scalar.INT, loc=kernel.loc),
                          _int(0, kernel.loc), type=Scalar.BOOL, loc=kernel.loc)
        reset = ir.If(first, ir.Block((P.QueueReset(self.size, self.slot(following=True),
                                                    loc=kernel.loc),), loc=kernel.loc),
                      loc=kernel.loc)
        window = self.window(kernel, clears)
        if window is not None:
            tested, reset = windowed_round(tested, reset, vertex, window, self.round,
                                           self.loop.next.sym, self.push)
        stmts = (at, tested)
        if clears:      # (``clears_own_flags``) the entry's flag, whether the filter held or not
            flag = ir.PropRead(self.loop.current.sym, vertex, type=Scalar.BOOL, loc=kernel.loc)
            stmts += (ir.Assign(flag, _bool(False, kernel.loc), loc=kernel.loc),)
        sparse_body = ir.Block(stmts + (reset,), loc=body.loc)
        sparse = self.kernel(f"{kernel.name}_sparse", item, "frontier", None, sparse_body,
                             kernel, window=window)
        return dense, sparse

    def window(self, kernel: P.Kernel, clears: bool) -> Optional[P.PriorityWindow]:
        """The priority window of the loop's sparse round (``priority_window``), where its
        one kernel qualifies and clears its own entries' flags (a deferred entry sets its
        next flag, which a ``clear`` launch would reset); else None, the reason kept."""
        if not clears:
            self.window_why = "the round's flags are cleared by a launch of their own"
            return None
        found, self.window_why = window_refusal(kernel, self.loop, self.function)
        if found is None:
            return None
        key, weight = found
        slots = self.local_array(f"{self.loop.current.name}_window", "window")
        return P.PriorityWindow(slots, key, weight)

    def worklist(self) -> P.Worklist:
        loop, loc = self.loop, self.loc
        vertex = self.symbols.make("v", Scalar.INT, ir.SymbolKind.LOOP, loc)
        v = ir.VarRef(vertex, type=Scalar.INT, loc=loc)
        flag_set = ir.PropRead(loop.current.sym, v, type=Scalar.BOOL, loc=loc)
        build = self.kernel(f"{loop.current.name}_frontier_build", vertex, "nodes", flag_set,
                            ir.Block((P.QueueAppend(self.queue, self.size, v, self.slot(),
                                                    loc=loc),), loc=loc))
        clears = self.clears_own_flags()
        clear = None
        if not clears:
            item = self.item("item")
            at = self.read(self.next_queue, ir.VarRef(item, type=Scalar.INT, loc=loc))
            clear = self.kernel(f"{loop.current.name}_frontier_clear", item, "frontier", None,
                                ir.Block((ir.Assign(ir.PropRead(loop.next.sym, at,
                                                                type=Scalar.BOOL, loc=loc),
                                                    _bool(False, loc), loc=loc),), loc=loc))
        launches = tuple(self.variants(s.kernel, clears) for s in loop.body.stmts)
        count = self.symbols.make(FRONTIER_COUNT, Scalar.INT, ir.SymbolKind.LOCAL, loc)
        rounds = self.symbols.make(FRONTIER_ROUND, Scalar.INT, ir.SymbolKind.LOCAL, loc)
        window = next((sparse.window for _, sparse in launches if sparse.window), None)
        delta = None if window is None else \
            self.symbols.make("window_delta", Scalar.INT, ir.SymbolKind.LOCAL, loc)
        # small sparse rounds in one work-group (a round of one kernel clearing its own flags)
        grouped = frontier_rounds(self, launches[0][1]) if clears and len(launches) == 1 \
            else None
        steps = None if grouped is None else \
            self.symbols.make("frontier_steps", Scalar.INT, ir.SymbolKind.LOCAL, loc)
        return P.Worklist(self.queue, self.next_queue, self.size, self.stamp, count, rounds,
                          build, clear, launches, self.graph, window=window, delta=delta,
                          window_why=self.window_why, rounds=grouped, steps=steps)


def _scalar(name: str, loc) -> P.KernelScalar:
    return P.KernelScalar(name, type=Scalar.INT, loc=loc)


def _graphless(plan: P.Plan) -> str:
    if any(isinstance(p.type, GraphType) for p in plan.function.params):
        return ""
    return "the function has no Graph parameter"


def worklists(plan: P.Plan, symbols: SymbolFactory) -> P.Plan:
    """The ``frontier`` pass: each ``FixedPointLoop`` gets a ``Worklist`` where
    ``topology_reason`` finds nothing against it, else the reason in ``topology_why``."""
    names = NameAllocator([a.name for a in plan.arrays] + [k.name for k in plan.kernels]
                          + [s.name for s in symbols_in(plan.function)])
    state = {"plan": plan, "kernels": ()}

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.FixedPointLoop):
                reason = topology_reason(stmt) or _graphless(plan)
                if reason:
                    stmt = dataclasses.replace(stmt, topology_why=reason)
                else:
                    builder = _Builder(state["plan"], stmt, symbols, names)
                    worklist = builder.worklist()
                    flagged = all_flagged(stmts, stmt)
                    one = None if flagged else one_flagged(stmts, stmt)
                    seed = None if flagged or one is not None else seed_launch(
                        stmts, stmt, worklist.queue, worklist.size, builder.slot(),
                        builder.arrays, names)
                    if flagged:     # every vertex: the first round is dense, no build
                        worklist = dataclasses.replace(worklist, all_flagged=True)
                    elif one is not None:   # one vertex, which the host writes: no build
                        worklist = dataclasses.replace(worklist, first_vertex=one)
                    elif seed is not None:    # the launch moves into the loop's two forms
                        at, launch, seeded, builder.arrays, filled = seed
                        fill = stmts[filled]
                        del stmts[at]
                        worklist = dataclasses.replace(worklist, seed=(launch, seeded))
                        if fill_once(plan.host, stmt, fill, launch):    # so does the fill
                            del stmts[filled]
                            worklist = dataclasses.replace(worklist, fill=fill)
                        builder.kernels.append(seeded.kernel)
                    else:       # or the batch's update kernel appends the first queue
                        seed = update_seed(stmts, stmt, worklist,
                                           lambda v, loc: builder.push(v, loc, first=True),
                                           builder.arrays, names)
                        if seed is not None:
                            at, stmts[at], kernel, builder.arrays, why = seed
                            worklist = dataclasses.replace(worklist, update_seed=why)
                            builder.kernels.append(kernel)
                    stmt = dataclasses.replace(stmt, worklist=worklist)
                    state["plan"] = dataclasses.replace(state["plan"], arrays=builder.arrays)
                    state["kernels"] += tuple(builder.kernels)
            stmts.append(stmt)
        return P.HostBlock(tuple(stmts), loc=block.loc)
    host = rewrite(plan.host)
    return dataclasses.replace(state["plan"], host=host,
                               kernels=plan.kernels + state["kernels"])


def _referenced(blocks) -> set:
    """The host symbols the statements of ``blocks`` read or assign (declarations apart)."""
    found = set()
    for block in blocks:
        for s in walk_host(block):
            found.update(n.sym for n in host_exprs(s) if isinstance(n, ir.VarRef))
            if isinstance(s, (P.HostAssign, P.HostReduce)):
                found.add(s.sym)
    return found


def choose_form(plan: P.Plan, worklist: bool, topology_at=frozenset(),
                ranks: bool = False) -> P.Plan:
    """``plan`` with each ``DataDrivenLoop`` replaced by its worklist form (``worklist``, except
    for the loops at the locations ``topology_at``), its form with a queue per rank where it
    has one (``ranks``: a distributed target) or its topology-driven form, listing only the
    arrays and kernels that form uses."""
    dropped: List[P.HostBlock] = []

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            stmt = map_blocks(stmt, rewrite)
            if isinstance(stmt, P.DataDrivenLoop):
                forms = [stmt.worklist, stmt.topology] + (
                    [stmt.ranks] if stmt.ranks is not None else [])
                kept = (stmt.ranks if ranks and stmt.ranks is not None
                        else stmt.worklist if worklist and stmt.loc not in topology_at
                        else stmt.topology)
                stmts += kept.stmts
                dropped.extend(form for form in forms if form is not kept)
            else:
                stmts.append(stmt)
        return dataclasses.replace(block, stmts=tuple(stmts))
    host = rewrite(plan.host)
    if not dropped:
        return plan
    plan, gone = drop_forms(plan, host, dropped)
    return dataclasses.replace(plan, kernels=tuple(k for k in plan.kernels
                                                   if k.name not in gone))


def drop_forms(plan: P.Plan, host: P.HostBlock, dropped) -> Tuple[P.Plan, set]:
    """``plan`` with ``host``, the tree without the forms ``dropped`` (host blocks), listing
    only the arrays it uses, and the names of the kernels only those forms launched."""
    # the round counts hoisted to the top for the dropped worklists (control.expand_loops):
    # declared there, used only in the form that is gone
    gone = _referenced(dropped) - _referenced([host])
    host = dataclasses.replace(host, stmts=tuple(
        s for s in host.stmts if not (isinstance(s, P.HostDeclare) and s.sym in gone)))
    kept = {k.name for s in walk_host(host) for k in kernels_launched_by(s)}
    gone = {k.name for block in dropped for s in walk_host(block)
            for k in kernels_launched_by(s)} - kept
    return dataclasses.replace(plan, host=host, arrays=used_arrays(
        plan.arrays, host, tuple(plan.function.params))), gone
