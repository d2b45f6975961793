"""A worklist's dense round on a CPU skips a flagged vertex whose values are those it pushed.

A dense round (``frontier.py``) runs every vertex whose flag is set. On a device whose work
items do not run in lockstep (a CPU), an item walks a run of vertices in order, so a push
often lowers a vertex before its item reaches it: the vertex then runs in this round with the
lowered value, yet its next flag stays set and it runs again next round only to push the same
value (minimum-label cc on Kronecker 18: its second round ran 174K of the 262K vertices, and its
dense rounds scanned 15.8M edges; with the skip, 10M). So the dense kernel keeps, per vertex,
the values it last ran with (the ``_pushed`` arrays, 64-bit, filled before each run of the loop
with a value no 32-bit value equals), and a vertex whose values are those skips the round: it made every push it would
make when it ran with them (its pushes depend on its own values alone among those the round
moves), and its Min/Max targets have only moved past them since. A vertex lowered while it
runs differs from what it recorded, so it runs again.

Nothing else changes: no ordering between work items is needed (the values are read and
recorded by the vertex's own item; other items' writes meet them only across rounds), the
flags and counts keep their protocol, and the sparse rounds are as before (a vertex a sparse
round ran differs from its record, so at worst it runs once more). Where the round's updates
are all Min/Max of 32-bit integers (no lock, no other store but the next flag), on the kernel
that runs on non-lockstep devices only (one with a variant for lockstep devices: a GPU's
edges variant splits a vertex's pushes across items).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from starc.analysis import plan as P
from starc.analysis.capabilities import Capabilities
from starc.analysis.host_tree import kernels_launched_by, map_blocks, walk_host
from starc.analysis.naming import NameAllocator, SymbolFactory
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["skip_pushed", "NEVER_PUSHED"]

#: what a ``_pushed`` array holds before its vertex first runs: no 32-bit value equals it
NEVER_PUSHED = 1 << 40

_INTS = (Scalar.INT, Scalar.NODE)


def _reason(kernel: P.Kernel, has_variant: bool, capabilities: Capabilities) -> str:
    """Why ``kernel`` (a dense round) runs every flagged vertex, or ""."""
    if capabilities.lockstep or not has_variant:
        return ("the kernel may run on a lockstep (GPU) device, where a vertex's pushes may "
                "be split across items")
    if kernel.schedule != "vertex":
        return f"its work items are not one per vertex (schedule {kernel.schedule})"
    nxt = kernel.round_flags[1]
    for node in ir.walk(kernel.body):
        if isinstance(node, P.AtomicMinMax):
            if node.locked or node.others:
                return "a Min/Max update stores secondary values besides the next flag"
            if not isinstance(node.target, ir.PropRead) or node.target.type not in _INTS:
                return "a Min/Max update's target is not a 32-bit integer property"
        if isinstance(node, (P.AtomicReduce, P.QueueAppend, P.ScalarStore, P.FlagSet)):
            return "the body does more than Min/Max updates that set the next flag"
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.PropRead) \
                and node.target.prop.uid != nxt.uid:
            return f"the body assigns '{node.target.prop.name}' other than by Min/Max"
    moved = {p.uid for p in _lowered(kernel)}
    if not moved:
        return "the body makes no Min/Max update"
    # a push from v must depend on v's values alone among those the round moves: a target
    # read elsewhere (another vertex's, in a candidate) may have moved since v ran
    targets = {id(n.target) for n in ir.walk(kernel.body) if isinstance(n, P.AtomicMinMax)}
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.PropRead) and node.prop.uid in moved and id(node) not in targets \
                and not (isinstance(node.index, ir.VarRef)
                         and node.index.sym.uid == kernel.index.uid):
            return (f"a push reads '{node.prop.name}' of another vertex, which the round "
                    f"may move")
    return ""


def _lowered(kernel: P.Kernel) -> List[ir.Symbol]:
    """The properties the body's Min/Max updates move, once each, in order."""
    found: Dict[int, ir.Symbol] = {}
    for node in ir.walk(kernel.body):
        if isinstance(node, P.AtomicMinMax) and isinstance(node.target, ir.PropRead):
            found.setdefault(node.target.prop.uid, node.target.prop)
    return list(found.values())


class _Skipper:
    def __init__(self, plan: P.Plan) -> None:
        self.symbols = SymbolFactory(plan)
        self.names = NameAllocator([a.name for a in plan.arrays] + [k.name for k in plan.kernels])
        self.arrays: List[P.DeviceArray] = []

    def array(self, prop: ir.Symbol, loc) -> P.DeviceArray:
        name = self.names.unique(f"{prop.name}_pushed")
        sym = self.symbols.make(name, PropType("node", Scalar.LONG), loc=loc)
        made = P.DeviceArray(name, Scalar.LONG, "nodes", "local", sym=sym)
        self.arrays.append(made)
        return made

    def local(self, name: str, loc) -> ir.Symbol:
        return self.symbols.make(name, Scalar.LONG, loc=loc)

    def rewrite(self, kernel: P.Kernel) -> Tuple[P.Kernel, Tuple[P.DeviceArray, ...]]:
        loc = kernel.loc
        v = ir.VarRef(kernel.index, type=kernel.index.type, loc=loc)
        declares, records, changed, made = [], [], None, []
        for prop in _lowered(kernel):
            pushed = self.array(prop, loc)
            made.append(pushed)
            seen = self.local(f"{prop.name}_seen", loc)
            value = ir.Cast(ir.PropRead(prop, v, type=prop.type.elem, loc=loc),
                            type=Scalar.LONG, loc=loc)
            declares.append(ir.Declare(seen, value, loc=loc))
            at = ir.PropRead(pushed.sym, v, type=Scalar.LONG, loc=loc)
            seen_ref = ir.VarRef(seen, type=Scalar.LONG, loc=loc)
            records.append(ir.Assign(at, seen_ref, loc=loc))
            differs = ir.Binary("!=", seen_ref, at, type=Scalar.BOOL, loc=loc)
            changed = differs if changed is None else ir.Binary(
                "||", changed, differs, type=Scalar.BOOL, loc=loc)
        run = ir.If(changed, ir.Block(tuple(records) + kernel.body.stmts, loc=kernel.body.loc),
                    loc=loc)
        body = ir.Block(tuple(declares) + (run,), loc=kernel.body.loc)
        last = max((i for i, p in enumerate(kernel.params) if p.array is not None), default=-1)
        params = (kernel.params[:last + 1]
                  + tuple(P.KernelParam(a.name, a.elem, array=a, written=True) for a in made)
                  + kernel.params[last + 1:])
        return dataclasses.replace(kernel, body=body, params=params, skips_pushed=True,
                                   skips_pushed_why=_WHY), tuple(made)


_WHY = ("it made every push of those values then, and its Min/Max targets have only moved "
        "past them since (on a CPU a push lowers most vertices before their item reaches "
        "them, and they run in that round with the lowered value)")


def skip_pushed(plan: P.Plan, variants, capabilities: Capabilities) -> P.Plan:
    """``plan`` (specialized kernels, one form of each loop) with each worklist's dense round
    skipping the vertices that ran with their values, where ``_reason`` finds nothing against
    it (else the reason in ``skips_pushed_why``), and the ``_pushed`` arrays filled with
    ``NEVER_PUSHED`` before each run of the loop."""
    skipper = _Skipper(plan)
    kernels, fills = [], {}
    for kernel in plan.kernels:
        if len(kernel.round_flags) == 2:
            reason = _reason(kernel, kernel.name in variants, capabilities)
            if reason:
                kernel = dataclasses.replace(kernel, skips_pushed_why=reason)
            else:
                kernel, made = skipper.rewrite(kernel)
                fills[kernel.name] = made
        kernels.append(kernel)
    if not fills:
        return dataclasses.replace(plan, kernels=tuple(kernels))

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts: List[P.HostStmt] = []
        for stmt in block.stmts:
            if isinstance(stmt, P.HostDoWhile):     # the innermost loop launching it
                inner = {k.name for s in walk_host(stmt.body) if isinstance(s, P.HostDoWhile)
                         for t in walk_host(s.body) for k in kernels_launched_by(t)}
                launched = {k.name for s in walk_host(stmt) for k in kernels_launched_by(s)}
                for name in sorted((launched - inner) & set(fills)):
                    stmts += [P.Fill(a, ir.Const(NEVER_PUSHED, type=Scalar.LONG, loc=stmt.loc),
                                     loc=stmt.loc) for a in fills[name]]
            stmts.append(map_blocks(stmt, rewrite))
        return dataclasses.replace(block, stmts=tuple(stmts))
    return dataclasses.replace(plan, kernels=tuple(kernels), host=rewrite(plan.host),
                               arrays=plan.arrays + tuple(skipper.arrays))
