"""Every DSL construct that needed a decision, and what each backend chose for it and why.

A backend-neutral walk of the plan (``starc.analysis.plan``) finds the constructs: each
outlined forall, each update of shared data (scalar reductions, Min/Max multi-assignments,
accumulations and stores on properties), each fixedPoint and iterateInBFS, and the host <->
device transfers. What a backend chose is read from its specialized plan (``analysis.
specialize``: each atomic's form, each reduction's strategy, each fixedPoint's form, MPI's
superstep facts, whether it renumbers the graph); how it spells a choice, from its atomic
table (``Backend.atomics``, its package's ``kernels.ATOMICS``) and the launch shape of its
``Backend`` class.
This module walks the plan and tells the foralls; ``update_choices`` words the updates of
shared data inside them, ``host_choices`` the host's constructs. Nothing here decides again
or reads generated text. ``counts.backend_counts`` sums the same facts.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from starc.analysis import plan as P
from starc.analysis.distribution import UPDATE_LOOP_WHY
from starc.analysis.owner_rows import OWNER_ROWS_WHY
from starc.analysis.owner_updates import OWNER_UPDATES_WHY
from starc.analysis.frontier import choose_form
from starc.analysis.host_tree import kernels_launched_by, launched_kernels, walk_host
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.backends.common.sourcemap import span_of
from starc.diagnostics import CompileError, DiagnosticSink
from starc.ir import nodes as ir
from starc.teaching.choices import (ACROSS_RANKS, ITEM, NO_ATOMIC_OWN, Choice, Decision, Target,
                                    atomic_choice)
from starc.teaching.host_choices import HostChoices
from starc.teaching.update_choices import UpdateChoices

__all__ = ["Choice", "Decision", "Target", "decisions", "targets",
           "atomic_choice", "NO_ATOMIC_OWN"]


def targets(plan: P.Plan, backends: Sequence[str], options: Optional[BackendOptions] = None,
            show_traceback: bool = False) -> Dict[str, Target]:
    """Each backend of ``backends`` with its specialized plan and what it generates for
    ``plan``, through the driver's specialize and generate stages: a backend that cannot
    (MPI's E0501, an internal error) is kept with its located diagnostics, so a report says
    so for that backend alone."""
    from starc.driver import InternalError, run_stage
    options = options or BackendOptions()
    found = {}
    for name in backends:
        backend = get_backend(name)
        target = Target(name, backend, block=options.block_size or backend.default_block_size)
        sink = DiagnosticSink()
        try:
            specialized = run_stage("specialize", sink, show_traceback,
                                    lambda: backend.specialize(plan, options),
                                    plan.function)
            target.generated = run_stage("generate", sink, show_traceback,
                                         lambda: backend.print_program(specialized, options),
                                         plan.function)
            target.plan = specialized
        except (CompileError, InternalError):
            target.errors = sink.sorted()
        found[name] = target
    return found


def decisions(comp, backends: Sequence[str], options: Optional[BackendOptions] = None,
              found: Optional[Dict[str, Target]] = None) -> List["Decision"]:
    """The decisions of ``comp`` (a ``driver.Compilation`` with a plan), in source order, with
    the choices of each backend of ``backends`` (``found``: their ``targets``, if made)."""
    plan = comp.plan
    found = found or targets(plan, backends, options)
    lines = comp.source.splitlines()
    walk = _Walk(plan, comp, found, lines)
    walk.run()
    return sorted(walk.decisions, key=lambda d: (d.line, walk.order[id(d)]))


# --- the walk -----------------------------------------------------------------------------------

class _Walk(UpdateChoices, HostChoices):
    """Collects decisions; ``order`` keeps the walk's order among decisions of one line."""

    def __init__(self, plan: P.Plan, comp, found: Dict[str, Target], lines: List[str]):
        self.plan, self.comp, self.found, self.lines = plan, comp, found, lines
        self.decisions: List[Decision] = []
        self.order: Dict[int, int] = {}
        #: the kernels of fixedPoints that have a worklist -> the fixedPoint's location
        self.worklist_kernels: Dict[str, object] = {}     # filled by run()

    # (each choice function gets the target and returns a Choice)
    def add(self, node, construct: str, choose, span_node=None) -> None:
        span = span_of(span_node if span_node is not None else node)
        if span is None:
            return
        choices = {}
        for name, target in self.found.items():
            if target.refusal is not None:
                choices[name] = Choice(f"cannot run this program: {target.refusal}",
                                       "the other backends run it")
            else:
                choices[name] = choose(target)
        dsl = self.lines[span.line - 1].strip() if 0 < span.line <= len(self.lines) else ""
        decision = Decision(span.line, span.end_line, construct, dsl, choices)
        self.order[id(decision)] = len(self.decisions)
        self.decisions.append(decision)

    def run(self) -> None:
        self.transfers_once()
        structured = _structured(self.comp)
        bfs_roles = {}
        # The kernels of fixedPoints that have a worklist: their flag sets count or queue.
        self.worklist_kernels.update({k.name: loop.loc for loop in walk_host(structured.host)
                                      if isinstance(loop, P.FixedPointLoop) and loop.worklist
                                      for stmt in walk_host(loop.body)
                                      for k in kernels_launched_by(stmt)})
        for stmt in walk_host(structured.host):
            if isinstance(stmt, P.BFSLoop):
                bfs_roles[stmt.forward.name] = "iterateInBFS body"
                bfs_roles[stmt.bottom_up.name] = "iterateInBFS bottom-up step"
                if stmt.pending is not None:
                    bfs_roles[stmt.pending.name] = "iterateInBFS body, before a bottom-up step"
                    bfs_roles[stmt.expand.name] = "iterateInBFS top-down step, body already run"
                if stmt.values is not None:
                    bfs_roles[stmt.values.name] = "iterateInBFS values from the depth"
                if stmt.reverse is not None:
                    bfs_roles[stmt.reverse.name] = "iterateInReverse body"
        # The foralls as written (a worklist's variants of them and its own kernels are told
        # in the fixedPoint's phrase).
        for kernel in launched_kernels(choose_form(self.plan, worklist=False)):
            if not kernel.renumbered_of:     # a count's swapped rows: told with the count
                self.kernel(kernel, bfs_roles.get(kernel.name))
        for stmt in walk_host(structured.host):
            if isinstance(stmt, P.FixedPointLoop):
                self.fixedpoint(stmt)
            elif isinstance(stmt, P.BFSLoop):
                self.bfs(stmt)
        for value in self.plan.parent_values:
            self.parent_value(value)
        for stmt in walk_host(self.plan.host):
            if isinstance(stmt, P.CopyArray) or (isinstance(stmt, P.SwapArrays)
                                                 and stmt.instead_of_copy):
                self.property_copy(stmt)
            elif isinstance(stmt, P.ApplyUpdates):
                self.update_phase(stmt)
        self.transfers_between()

    # --- kernels and the updates inside them ---------------------------------------------------
    def kernel(self, kernel: P.Kernel, role: Optional[str]) -> None:
        item, items, plural = ITEM[kernel.extent]
        if kernel.hoisted_for:
            self.hoisted(kernel)
            return
        if kernel.extent == "single":
            self.add(kernel, "sequential loop", lambda t: Choice(
                f"{kernel.name}: one work item runs the whole loop, in order",
                "a sequential for over the graph keeps its order; its updates need no atomics "
                "(one work item)"))
            return

        ordered = any(isinstance(s, P.OrderByDegree) for s in walk_host(self.plan.host))

        def launch(t: Target) -> Choice:
            # the kernel as this target runs it: None where it runs the worklist's variants
            # instead (their schedules are told with the fixedPoint)
            scheduled = next((k for k in t.plan.kernels if k.name == kernel.name), None)
            fields = dict(kernel=kernel.name, items=items, item=item, plural=plural,
                          block=t.block or "N")
            if scheduled is not None and scheduled.schedule == "edges":
                fields.update(items="m", item="edge of its neighbour loop", plural="edges")
            step = t.distribution.steps.get(kernel.name) if t.distribution else None
            if step is not None and step.global_:     # a loop over a batch's updates
                return _update_loop(kernel.name, item, step)
            what = t.backend.launch_shape.format(**fields)
            why = t.backend.launch_why.format(**fields)
            variant = next((k for k in t.plan.kernels if scheduled is not None
                            and k.name == scheduled.lockstep_variant), None)
            if variant is not None:
                what += (f"; on a GPU device: schedule {variant.schedule}, as "
                         f"{variant.name}: {_schedule_words(variant)}; on other devices: "
                         f"schedule {scheduled.schedule}: {_schedule_words(scheduled)}")
                why += (f"; on a GPU device: {variant.schedule_why}; on other devices: "
                        f"{scheduled.schedule_why} ({t.backend.variant_choice})")
            elif scheduled is not None and scheduled.schedule_why and \
                    scheduled.schedule_why != "no neighbour loop":
                what += f"; schedule {scheduled.schedule}: " + _schedule_words(scheduled)
                why += "; " + scheduled.schedule_why
            if t.distribution is not None:
                what += _superstep_words(t.distribution.steps.get(kernel.name),
                                         t.distribution)
            if ordered:
                what += ("; " + t.keeps_ids if t.keeps_ids else
                         "; vertices renumbered by degree first when the graph is symmetric, "
                         "simple and skewed (an ordered triangle count: no result depends on "
                         "ids)")
            if ordered and not t.keeps_ids and scheduled is not None and scheduled.row_swap_why:
                swapped = scheduled.renumbered_variant
                what += (f"; on the renumbered graph {swapped} runs instead, its innermost "
                         "loop walking the other (shorter) row" if swapped else
                         "; on the renumbered graph the innermost loop as written")
                why += "; " + scheduled.row_swap_why
            return Choice(what, why)
        self.add(kernel, role or "forall", launch)
        atomic = 0      # the index of an atomic among the kernel's (``Target.atomics``)
        for node in ir.walk(kernel.body):
            if isinstance(node, P.AtomicMinMax):
                self.minmax(kernel, node, atomic)
                atomic += 1
            elif isinstance(node, P.AtomicReduce):
                self.reduce(kernel, node, atomic)
                atomic += 1
            elif isinstance(node, ir.Assign) and isinstance(node.target, ir.PropRead):
                self.store(kernel, node)
            elif isinstance(node, P.ScalarStore):
                self.scalar_store(node)

    def hoisted(self, kernel: P.Kernel) -> None:
        (store,) = kernel.body.stmts
        array = self._array(store.target)

        def choose(t: Target) -> Choice:
            where = (f"; ghosts' values travel from their owners after {kernel.name}"
                     if t.distribution is not None else "")
            return Choice(
                f"hoisted out of the neighbour loop: {kernel.name} computes the term once per "
                f"vertex into {array} right before {kernel.hoisted_for}, and the loop reads "
                f"{array}[...]{where}",
                "the term depends only on the neighbour and on data the forall does not "
                "write, so every edge into that neighbour would compute the same value; it is "
                "computed only for vertices the loop can reach, with the same arithmetic")
        self.add(store, "hoisted term", choose)


def _superstep_words(step, distribution) -> str:
    if step is None or step.global_:
        return ""
    parts = []
    if step.updates:
        parts.append("combined updates to other ranks' vertices")
    if step.bounds:
        parts.append("no refresh of " + ", ".join(step.bounds) + ": ghosts keep the candidates "
                     "sent, never past the owner's value, which its combine settles")
    if step.refresh:
        parts.append("ghost refresh of " + ", ".join(
            f"{name} (every mirror, values only, in the ghost order agreed once)"
            if name in step.every else name for name in step.refresh))
    if step.scalars:
        parts.append("one-value results " + ACROSS_RANKS)
    return f" ({'; '.join(parts)})" if parts else " (nothing to exchange)"



def _structured(comp) -> P.Plan:
    """The plan before ``expand``: fixedPoint and BFS are still ``FixedPointLoop`` and
    ``BFSLoop`` there (with the ``frontier`` and ``bfs_queue`` passes' decisions), plain host
    loops after."""
    from starc.analysis import lower_function
    return lower_function(comp.ir, comp.function, stop_after="bfs_queue")



def _shared_words(split: P.CooperativeLoop) -> str:
    """How a binned kernel's group shares a heavy vertex's body, for ``_schedule_words``."""
    if not split.steps:
        return (f"its edges and combine their '{split.accumulator.name}' in a group "
                "reduction")
    words = {"fold": "a fold's edges, combined in a group reduction",
             "push": "a push loop's edges",
             "search": "a search's edges a group at a time, the first lane that finds one (in "
                       "the loop's order) running its branch and stopping the group",
             "leader": "nothing of the other statements, which the first lane runs",
             "branch": "the first lane's test of the vertex's if/else"}
    kinds = []
    pending = list(split.steps)
    while pending:
        step = pending.pop(0)
        pending += list(step.then + step.orelse)
        if step.kind in words and words[step.kind] not in kinds:
            kinds.append(words[step.kind])
    return "each of its steps: " + "; ".join(kinds)


def _update_loop(name: str, item: str, step) -> Choice:
    """How a distributed run places a loop over a batch's updates (``distribution``)."""
    what, why = f"function {name}: every rank runs every {item} alike (an OpenMP loop)", \
        UPDATE_LOOP_WHY
    if step.owner_computes:
        what += (", its statements at one endpoint (of "
                 f"{', '.join(step.owner_computes)}) on the endpoint's owner only")
        why += "; " + OWNER_UPDATES_WHY
    if step.ghost_edges:
        what += ", a loop over an update endpoint's row on the row's owner only"
        why += "; " + OWNER_ROWS_WHY
    refreshed = [f"the other ranks' copies of {', '.join(step.refresh)}"] if step.refresh \
        else []
    if step.ghost_edges:
        refreshed.append(f"the ghost rows' copies of {', '.join(step.ghost_edges)}")
    if refreshed:
        what += f"; then {' and '.join(refreshed)} refreshed from their owners"
    elif not step.owner_computes:
        what += ", with no exchange"
    if step.replicas_why:
        what += "; its node properties stay full-length replicas"
        why += f"; they stay replicas because at {step.replicas_why}"
    return Choice(what, why)


def _schedule_words(kernel: P.Kernel) -> str:
    """What ``kernel``'s schedule (``analysis.schedules``) does, for ``explain``."""
    if kernel.schedule == "edges" and kernel.frontier_edges is not None:
        return ("each work-group takes as many worklist entries, sums their degrees in local "
                "memory and walks the group's edges a group at a time, each item finding its "
                "entry by a binary search over the sums")
    if kernel.schedule == "edges":
        slots = (" (rows with slack: the items are the slots in use, and one whose slot holds "
                 "no edge, free or dead, does nothing)"
                 if kernel.guard is not None and any(isinstance(node, P.LiveSlot)
                                                     for node in ir.walk(kernel.guard)) else "")
        return ("each item finds its vertex as the edge's endpoint and tests the forall's "
                f"filter there{slots}")
    if kernel.schedule == "binned" and kernel.cooperative is not None:
        split = kernel.cooperative
        size = "the group's size" if split.group_from == 1 else \
            f"{split.group_from} times the group's size"
        warp = f", one of degree {split.warp_from} or more its warp" if split.warp_from else ""
        return (f"one item per vertex, in whole work-groups on every device, the items taking "
                f"the vertices in {split.order} (the light ones sorted by degree in runs of "
                f"{P.BINNED_RUN}, so that a warp's lanes do equal work; built once with the "
                f"graph); a vertex of degree at least {size} is run by the whole group{warp}, "
                f"whose lanes share {_shared_words(split)} ({' / '.join(split.tiers)} bins)")
    if kernel.vector_loops:
        folds = [sym.name for shared in kernel.vector_loops for _, sym in shared.reductions]
        combine = (f", each lane's '{', '.join(folds)}' combined by a reduction clause"
                   if folds else "")
        return ("one gang per vertex, whose vector lanes share its neighbour loop's "
                f"iterations (`loop vector`){combine}")
    return "one item per vertex, its edges in a loop"
