"""A worklist's first queue appended by the kernel that sets its flags (``Worklist.seed``,
``Worklist.update_seed``).

A data-driven fixedPoint starts by compacting its current flags into the queue: ``build``,
a kernel over every vertex. Where the flags were just filled False and then one kernel over
the nodes set some, each at its own work item's vertex and at most once (dyn_sssp's
``forall (v in g.nodes().filter(gone)) { v.newly = True; }``, its pull that marks the
vertices it reached), that kernel knows the queue already: a variant of it appends the
vertex where it sets the flag, and the build's scan over all n vertices goes (a launch and
an n-long scan fewer per run of the loop; on PoCL 100-400 us at Kronecker 18). The variant
runs only in the worklist form; the topology form (MPI) launches the kernel as written.

A Dynamic batch's update kernel (``OnAdd (u in ...) : { ... s.modified = True; }``) flags
vertices at computed indices, several updates the same one, with the graph update between it
and the loop: ``update_seed`` gives it a variant that appends each vertex it flags once (the
worklist's stamp, with a round of its own) where the batch filled the flag False before it.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.analysis.kernels import kernel_params
from starc.analysis.loop_fills import leaves, touches
from starc.analysis.worklist_setup import first_run
from starc.ir import nodes as ir

__all__ = ["seed_launch", "fill_once", "update_seed", "all_flagged", "one_flagged", "last_touch",
           "ALL_FLAGGED", "ONE_FLAGGED"]

_LOOPS = (ir.Loop, ir.While, ir.DoWhile)


def _inert(stmt: P.HostStmt) -> bool:
    """Whether running a launch after ``stmt`` instead of before it changes nothing: ``stmt``
    declares a new host scalar (no kernel launched before it reads it) from no device array."""
    return isinstance(stmt, P.HostDeclare) and (
        stmt.init is None or not any(isinstance(n, P.DeviceRead) for n in ir.walk(stmt.init)))


#: what a loop's form says of its first queue where every flag was set just before it
ALL_FLAGGED = ("holds every vertex: the flags were all set just before the loop, so its first "
               "round runs over all of them with no scan of the flags to build it")


#: what a loop's form says of its first queue where the host set one flag just before it
ONE_FLAGGED = ("is the one vertex whose flag the host set just before the loop (after filling "
               "them all False): the host writes it, with no scan of the flags to build it")


def _leaves_flag(stmt: P.HostStmt, flag: P.DeviceArray) -> bool:
    """Whether ``stmt`` leaves ``flag`` alone: a declaration, a fill or write of another array,
    a launch of a kernel that does not take it."""
    if _inert(stmt):
        return True
    if isinstance(stmt, (P.Fill, P.WriteElement, P.ToDevice)):
        return stmt.array.name != flag.name
    if isinstance(stmt, P.Launch):
        return all(p.array is None or p.array.name != flag.name for p in stmt.kernel.params)
    return False


def _flag_fill(stmt: Optional[P.HostStmt], flag: P.DeviceArray, value: bool) -> bool:
    return isinstance(stmt, P.Fill) and stmt.array.name == flag.name and \
        isinstance(stmt.value, ir.Const) and stmt.value.value in (value, int(value))


def last_touch(before: List[P.HostStmt], flag: P.DeviceArray, at: int) -> int:
    """The position of the last statement of ``before[:at + 1]`` that touches the array
    ``flag`` (-1 where none does)."""
    while at >= 0 and _leaves_flag(before[at], flag):
        at -= 1
    return at


def all_flagged(before: List[P.HostStmt], loop: P.FixedPointLoop) -> bool:
    """Whether the statements ``before`` the loop end in ``Fill(flag, True)`` and statements
    that leave the flag alone (``_leaves_flag``): the first queue is then every vertex, and
    the first round dense, with no build (``control.expand_worklist``)."""
    at = last_touch(before, loop.current, len(before) - 1)
    return at >= 0 and _flag_fill(before[at], loop.current, True)


def one_flagged(before: List[P.HostStmt], loop: P.FixedPointLoop) -> Optional[ir.Expr]:
    """The vertex of the one flag set before the loop: where the statements ``before`` it
    end in ``Fill(flag, False)``, ``WriteElement(flag, vertex, True)`` and, around the write,
    statements that leave the flag alone. The first queue is then that vertex, which the host
    writes (``control.expand_worklist``); else None."""
    flag = loop.current
    at = last_touch(before, flag, len(before) - 1)
    write = before[at] if at >= 0 else None
    if not (isinstance(write, P.WriteElement) and write.array.name == flag.name and
            isinstance(write.value, ir.Const) and write.value.value in (True, 1)):
        return None
    if any(isinstance(n, P.DeviceRead) for n in ir.walk(write.index)):
        return None     # (read again at the loop: a launch in between may change it)
    at = last_touch(before, flag, at - 1)
    return write.index if at >= 0 and _flag_fill(before[at], flag, False) else None


def _own_flag_set(kernel: P.Kernel, flag: ir.Symbol) -> Optional[ir.Assign]:
    """The one statement ``flag[index] = True`` of ``kernel``'s body, outside every loop, where
    the kernel touches ``flag`` nowhere else (guard included); else None."""
    if kernel.extent != "nodes" or (kernel.guard is not None and
                                     ir.reads_prop(kernel.guard, flag)):
        return None
    sets: List[ir.Assign] = []

    def visit(node: ir.Node, in_loop: bool) -> None:
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.PropRead) and \
                node.target.prop.uid == flag.uid:
            own = node.target.index == ir.VarRef(kernel.index, type=kernel.index.type)
            true = isinstance(node.value, ir.Const) and node.value.value is True
            sets.append(node if own and true and not in_loop else None)
            return
        for child in ir.children(node):
            visit(child, in_loop or isinstance(node, _LOOPS))
    visit(kernel.body, False)
    reads = sum(1 for n in ir.walk(kernel.body)
                if isinstance(n, ir.PropRead) and n.prop.uid == flag.uid)
    if len(sets) != 1 or sets[0] is None or reads != 1:
        return None
    return sets[0]


def seed_launch(before: List[P.HostStmt], loop: P.FixedPointLoop, queue: P.DeviceArray,
                size: P.DeviceArray, slot: ir.Expr, arrays, names):
    """``(position in before, the launch as written, its seeding variant, arrays, the flag's
    fill's position in before)`` where the
    statements ``before`` the loop end in ``Fill(flag, False)``, fills of other arrays, a
    launch that sets the loop's flags (``_own_flag_set``) and ``_inert`` statements; else
    None. The variant appends
    each vertex whose flag it sets to ``queue`` (counting in ``size[slot]``), so the queue
    holds exactly the set flags, as ``build`` would make it."""
    flag = loop.current
    at = len(before) - 1
    while at >= 0 and _inert(before[at]):
        at -= 1
    if at < 1 or not isinstance(before[at], P.Launch) or before[at].scalar_args:
        return None
    launch, filled = before[at], at - 1
    # (an attachNodeProperty fills its other properties beside the flag)
    while filled >= 0 and (_inert(before[filled]) or isinstance(before[filled], P.Fill) and
                           before[filled].array.name != flag.name):
        filled -= 1
    fill = before[filled] if filled >= 0 else None
    if not (isinstance(fill, P.Fill) and fill.array.name == flag.name and
            isinstance(fill.value, ir.Const) and fill.value.value in (False, 0)):
        return None
    kernel = launch.kernel
    target = _own_flag_set(kernel, flag.sym)
    if target is None:
        return None
    append = P.QueueAppend(queue, size, target.target.index, slot, loc=target.loc)

    def rewrite(node):
        if isinstance(node, ir.Block) and target in node.stmts:
            stmts = [x for s in node.stmts for x in ((s, append) if s == target else (s,))]
            return dataclasses.replace(node, stmts=tuple(stmts))
        return None
    seeded, arrays = _variant(kernel, ir.transform(kernel.body, rewrite), arrays, names)
    return at, launch, dataclasses.replace(launch, kernel=seeded), arrays, filled


def _variant(kernel: P.Kernel, body: ir.Block, arrays, names):
    """``(kernel with body, arrays)``: the seeding variant ``<name>_seed``, its parameters and
    by-value scalars (the round its appends claim) those of the new body."""
    errors = tuple(p.array for p in kernel.params
                   if p.array is not None and p.array.role == "error")
    params, arrays = kernel_params(arrays, kernel.index, kernel.guard, body, errors)
    named = {x.name for x in kernel.scalars}
    scalars = kernel.scalars + tuple({n.name: n for n in ir.walk(body)
                                      if isinstance(n, P.KernelScalar) and
                                      n.name not in named}.values())
    return dataclasses.replace(kernel, name=names.unique(f"{kernel.name}_seed"), body=body,
                               params=params, scalars=scalars), arrays


def fill_once(host: P.HostBlock, loop: P.FixedPointLoop, fill: P.Fill,
              seed: P.Launch) -> bool:
    """Whether the flag's ``fill`` before the seeded ``loop`` may run only on the loop's first
    run (``Worklist.fill``): a fixedPoint exits with its flags all False (``until (fin :
    !flag)``; the worklist form leaves both buffers so), so where nothing in the program but
    False fills, the ``seed`` launch and the loop's own launches writes the flag, a later
    run finds it False already. (dyn_sssp's Decremental: two n-long fills fewer per batch.)"""
    name = loop.current.name
    ours = {seed.kernel.name} | {s.kernel.name for s in loop.body.stmts}
    loops = 0
    for stmt in walk_host(host):
        if isinstance(stmt, P.Launch):
            if stmt.kernel.name not in ours and any(
                    p.array is not None and p.array.name == name and p.written
                    for p in stmt.kernel.params):
                return False
            continue
        if isinstance(stmt, P.Fill) and stmt.array.name == name:
            if not (isinstance(stmt.value, ir.Const) and stmt.value.value in (False, 0)):
                return False    # (other False fills leave the flags False too)
            continue
        if isinstance(stmt, P.FixedPointLoop) and stmt.current.name == name:
            loops += 1
            continue
        for field in dataclasses.fields(stmt):
            value = getattr(stmt, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, P.DeviceArray) and item.name == name:
                    return False
    return loops == 1


def _sets_only(kernel: P.Kernel, flag: ir.Symbol) -> Optional[List[ir.Assign]]:
    """The statements ``flag[i] = True`` of ``kernel``'s body where it reads or writes
    ``flag`` nowhere else (guard included) and sets it at least once; else None."""
    if kernel.guard is not None and ir.reads_prop(kernel.guard, flag):
        return None
    sets = [n for n in ir.walk(kernel.body) if isinstance(n, ir.Assign) and
            isinstance(n.target, ir.PropRead) and n.target.prop.uid == flag.uid]
    if not sets or not all(isinstance(n.value, ir.Const) and n.value.value is True
                           for n in sets):
        return None
    uses = sum(1 for n in ir.walk(kernel.body)
               if isinstance(n, ir.PropRead) and n.prop.uid == flag.uid)
    return sets if uses == len(sets) else None


def update_seed(before: List[P.HostStmt], loop: P.FixedPointLoop, w: P.Worklist,
                push: Callable[[ir.Expr, object], ir.Stmt], arrays, names):
    """``(position in before, the UpdateLoop, its seeding kernel, arrays, why)`` where the
    statements ``before`` the loop end in an ``UpdateLoop`` whose one launch sets the loop's
    flags only to True (``_sets_only``), then graph updates and ``_inert`` statements, and the
    last statement before it that touches the flag leaves it all False (a fill, or a
    fixedPoint on it: ``loop_fills.leaves``); else None.

    Then the flags set at the loop's start are exactly the vertices that kernel flagged, so a
    variant that appends each of them once (``push(index, loc)``: an atomic max of the
    worklist's stamp with the round, the winner appends to ``w.queue``) makes the first queue.
    The returned UpdateLoop launches, in the worklist form (a ``DataDrivenLoop`` with
    ``seed``), the worklist's first-run set-up (``worklist_setup.first_run``: its stamps and length
    are the loop's own, so it goes before the seed; past the limit a round sooner, so the
    loop's own set-up never empties the seeded queue), ``round += 1`` (every stamp of an earlier
    run is below the new round: a run's last round appends nothing; the first queue goes to
    the new round's slot, which the last run left 0) and the variant; the topology form the
    launch as written. Where the batch has no updates of the kind, the loop's own prologue
    finds the length 0, right for flags all False."""
    flag = loop.current
    at = len(before) - 1
    while at >= 0 and (_inert(before[at]) or isinstance(before[at], P.ApplyUpdates) and
                       not touches(before[at], flag.name)):
        at -= 1
    if at < 1 or not isinstance(before[at], P.UpdateLoop):
        return None
    update = before[at]
    if len(update.body.stmts) != 1 or not isinstance(update.body.stmts[0], P.Launch):
        return None
    launch = update.body.stmts[0]
    kernel = launch.kernel
    sets = _sets_only(kernel, flag.sym)
    last = next((s for s in reversed(before[:at]) if touches(s, flag.name)), None)
    if sets is None or last is None or leaves(last, flag.name) not in (False, 0):
        return None
    placed = []

    def rewrite(node):
        if isinstance(node, ir.Block) and any(s in sets for s in node.stmts):
            stmts = []
            for s in node.stmts:
                stmts.append(s)
                if s in sets:
                    stmts.append(push(s.target.index, s.loc))
                    placed.append(s)
            return dataclasses.replace(node, stmts=tuple(stmts))
        return None
    body = ir.transform(kernel.body, rewrite)
    if len(placed) != len(sets):
        return None
    seeded, arrays = _variant(kernel, body, arrays, names)
    loc = launch.loc
    rounds = ir.VarRef(w.round, type=w.round.type, loc=loc)
    named = {x.name for x in kernel.scalars}
    added = tuple((x.name, rounds) for x in seeded.scalars if x.name not in named)
    worklist = P.HostBlock((first_run(w, loop.next, loc, seed=True),
                            P.HostReduce(w.round, "+", ir.Const(1, type=w.round.type, loc=loc),
                                         loc=loc),
                            dataclasses.replace(launch, kernel=seeded,
                                                scalar_args=launch.scalar_args + added)),
                           loc=loc)
    both = P.DataDrivenLoop(worklist, update.body, seed=True, loc=loc)
    why = (f"appended by the batch's update kernel at line {kernel.loc.line} as it sets "
           f"'{flag.name}' ({seeded.name}, each vertex once by the worklist's stamp, in a "
           f"round of its own), not by a scan of the n flags: '{flag.name}' is "
           + (f"filled False at line {last.loc.line}" if isinstance(last, P.Fill) else
              f"left all False by the fixedPoint on it at line {last.loc.line}")
           + " and nothing but that kernel sets it before the loop")
    return (at, dataclasses.replace(update, body=P.HostBlock((both,), loc=update.body.loc)),
            seeded, arrays, why)
