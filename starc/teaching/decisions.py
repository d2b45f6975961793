"""Every DSL construct that needed a decision, and what each backend chose for it and why.

A backend-neutral walk of the plan (``starc.analysis.plan``) finds the constructs: each
outlined forall, each update of shared data (scalar reductions, Min/Max multi-assignments,
accumulations and stores on properties), each fixedPoint and iterateInBFS, and the host <->
device transfers. What a backend chose is read from its specialized plan (``analysis.
specialize``: each atomic's form, each reduction's strategy, each fixedPoint's form, MPI's
superstep facts, whether it renumbers the graph); how it spells a choice, from its atomic
table (``Backend.atomics``, its package's ``kernels.ATOMICS``) and the launch shape of its
``Backend`` class.
Nothing here decides again or reads generated text. ``counts.backend_counts`` sums the same
facts.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
from typing import Dict, List, Optional, Sequence, Tuple

from starc.analysis import plan as P
from starc.analysis.batches import SPAN_MOVES_WHY
from starc.analysis.distribution import UPDATE_LOOP_WHY
from starc.analysis.owner_rows import OWNER_ROWS_WHY
from starc.analysis.owner_updates import OWNER_UPDATES_WHY
from starc.analysis.frontier import DENSE_DIVISOR, choose_form
from starc.analysis.host_tree import host_exprs, kernels_launched_by, launched_kernels, walk_host
from starc.backends import get_backend
from starc.backends.base import Backend, BackendOptions
from starc.backends.common.sourcemap import span_of
from starc.diagnostics import CompileError, Diagnostic, DiagnosticSink
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["Choice", "Decision", "Target", "decisions", "targets",
           "atomic_choice", "NO_ATOMIC_OWN"]

#: the choice for a plain store at the work item's own element
NO_ATOMIC_OWN = "no atomic: each work item writes only its own {item}"


@record
class Choice(Record):
    """What one backend does for one construct, and why, in words for students."""

    what: str
    why: str

    def to_json(self) -> Dict[str, str]:
        return {"what": self.what, "why": self.why}


@record
class Decision(Record):
    """One DSL construct (``line``..``end_line`` of the source, ``dsl`` its first line) and
    each requested backend's choice."""

    line: int
    end_line: int
    construct: str
    dsl: str
    choices: Dict[str, Choice]

    def to_json(self) -> Dict[str, object]:
        return {"line": self.line, "end_line": self.end_line, "construct": self.construct,
                "dsl": self.dsl,
                "choices": {name: c.to_json() for name, c in self.choices.items()}}


@dataclasses.dataclass
class Target:
    """One backend as ``decisions`` sees it: the backend object, its specialized plan and the
    program it generated (None when it cannot, and ``errors`` say why)."""

    name: str
    backend: Backend
    generated: object = None
    errors: List[Diagnostic] = dataclasses.field(default_factory=list)
    plan: Optional[P.Plan] = None
    block: Optional[int] = None

    @property
    def distribution(self):
        """MPI's superstep facts (``analysis.distribution``), None elsewhere."""
        return self.plan.target.distribution if self.plan is not None else None

    @property
    def keeps_ids(self) -> str:
        """Why an ordered triangle count keeps the file's ids here ("" if it renumbers)."""
        order = next((s for s in walk_host(self.plan.host) if isinstance(s, P.OrderByDegree)),
                     None)
        return order.keeps_ids if order is not None else ""

    def loop_form(self, loc) -> Optional[P.LoopForm]:
        """How the fixedPoint at ``loc`` runs here, when it has a worklist."""
        return self.plan.target.loop_form(loc)

    def atomics(self, kernel: str) -> List[ir.Stmt]:
        """The atomic statements of ``kernel`` as specialized here, in walk order."""
        return [n for n in ir.walk(self.plan.target.kernel(kernel).body)
                if isinstance(n, (P.AtomicReduce, P.AtomicMinMax))]

    def reduction(self, kernel: str, red: P.ScalarReduction) -> P.ScalarReduction:
        """``red`` of ``kernel`` as specialized here (its strategy set)."""
        return next(r for r in self.plan.target.kernel(kernel).reductions
                    if r.sym == red.sym)

    @property
    def refusal(self) -> Optional[str]:
        """Why the backend cannot generate the program, in one line, or None."""
        if not self.errors:
            return None
        first = self.errors[0]
        loc = first.loc
        where = (f" (at {pathlib.Path(loc.file).name}:{loc.line}:{loc.col})"
                 if loc.line > 0 else "")
        return f"{first.message}{where}"


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


# --- the words for one atomic update ----------------------------------------------------------

def _callee(call: str) -> str:
    """The function a table's call format names (``starc_atomic<int>(*p).compare_exchange_strong``
    or ``atomicCAS``), for the text: table entries, never generated text."""
    found = re.match(r"[^(]*\([^)]*\)\.\w+|[\w<>: ]+", call)
    return found.group(0).strip() if found else call


def atomic_choice(backend: Backend, op: str, elem: Scalar, form: str) -> Choice:
    """How ``backend`` updates one ``elem`` atomically with ``op`` (``min``, ``add``...) in
    ``form``, the specialize stage's choice (``AtomicReduce.form``): spelled from the
    backend's atomic table (``Backend.atomics``)."""
    table, title = backend.atomics, backend.title
    elem = Scalar.INT if elem in (Scalar.NODE, Scalar.EDGE) else elem
    ctype = table.c_types[elem]
    about = f" ({table.about})" if table.about else ""
    native = table.native.get((op, elem))
    if form == "update":
        update = table.updates[(op, elem)]
        spelled = f"{table.update_pragma} on {update}" if table.update_pragma else update
        return Choice(f"atomic {op} on {ctype}: {spelled}",
                      f"the old value is not needed, so {title} updates in one atomic step"
                      f"{about}")
    if form == "directive":
        return Choice(f"atomic {op} on {ctype}: {native.pragma} on {native.statement}",
                      f"{title}'s atomic construct does {op} on {ctype}{about}")
    if form == "native":
        fallback = (" (a compare-and-swap loop " + (native.fallback_words
                                                    or f"where {native.fallback_if}") + ")"
                    if native.fallback_if else "")
        return Choice(f"native atomic {op} on {ctype}: {_callee(native.call)}{fallback}",
                      f"{title} has an atomic instruction for {op} on {ctype}{about}")
    exchange = table.compare_exchange[elem]
    if exchange.call:
        how = _callee(exchange.call)
    else:
        bits = f" on the value's bits as {exchange.bits}" if exchange.converts else ""
        how = f"{exchange.exchange}{bits}"
    why = table.why_loop.get(op) or (
        f"{title} has no atomic {op} on {ctype}: a loop reads the old value, computes the new "
        "one and retries the compare-and-swap until no other work item changed it in between")
    return Choice(f"compare-and-swap loop for {op} on {ctype}, with {how}", why)


# --- the walk -----------------------------------------------------------------------------------

_ITEM = {"nodes": ("vertex", "n", "vertices"), "edges": ("edge", "m", "edges"),
         "single": ("item", "1", "items"),
         # a loop over a batch's updates (OnDelete / OnAdd: analysis.batches)
         "frontier": ("update", "k", "updates of the batch")}


class _Walk:
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
        item, items, plural = _ITEM[kernel.extent]
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

    def _reduction(self, kernel: P.Kernel, target: ir.Expr) -> Optional[P.ScalarReduction]:
        if isinstance(target, ir.VarRef):
            for red in kernel.reductions:
                if red.sym == target.sym:
                    return red
        return None

    def _array(self, target: ir.Expr) -> str:
        return self.plan.array_for(target.prop).name

    def _remote(self, t: Target, kernel: P.Kernel, array: str) -> str:
        """MPI: how writes of ``array`` at other ranks' vertices travel ("" if none do)."""
        if t.distribution is None:
            return ""
        step = t.distribution.steps.get(kernel.name)
        for write in step.updates if step else ():
            if write.array == array and not write.primary:
                op = "a store" if write.op == "=" else write.op.lower()
                secondaries = [w.array for w in step.updates if w.primary == array]
                follow = (f"; the secondary targets ({', '.join(secondaries)}) travel with "
                          "it and apply where it wins" if secondaries else "")
                where = "neighbours" if write.at == "neighbour" else "any vertex"
                return (f"; at other ranks' vertices ({where}): a combined message with {op}, "
                        "one entry per target vertex per superstep, all in one MPI_Alltoallv"
                        f"{follow}")
        return ""

    def minmax(self, kernel: P.Kernel, s: P.AtomicMinMax, index: int) -> None:
        red = self._reduction(kernel, s.target)
        if red is not None:
            self.scalar_reduction(kernel, s, red, s.func, index)
            return
        op = P.ATOMIC_OPS[s.func]
        array = self._array(s.target)
        seconds = [self._array(t) if isinstance(t, ir.PropRead) else t.sym.name
                   for t, _ in s.others]
        loop = self.worklist_kernels.get(kernel.name)

        def choose(t: Target) -> Choice:
            form = t.atomics(kernel.name)[index].form
            atomic = atomic_choice(t.backend, op, s.target.type, form)
            what, why = atomic.what, atomic.why
            if s.read_first:
                what += (f", only after a read of {array} shows the candidate can beat it "
                         "(else nothing more is done)")
                why += ("; most candidates cannot improve, and a read leaves the value's cache "
                        "line shared where an atomic would take it over")
            if s.locked:
                what = (f"a per-vertex lock ({s.lock.name}) held around the compare, the store "
                        f"and {', '.join(seconds)}; {what}")
                why = ("the secondary values are not constants, so they must come from the "
                       "winning update: the lock keeps the three together; " + why)
            elif seconds or s.then:
                flag = "the fixedPoint flag"
                if loop is not None and t.loop_form(loop).form == "worklist":
                    flag = ("the vertex's fixedPoint flag (the worklist's: counted in a dense "
                            "round, stamped and queued once in a sparse one)")
                extra = ", ".join(seconds + ([flag] if any(
                    isinstance(x, P.FlagSet) for x in s.then) else []))
                what += f"; where it wins: plain stores of {extra}"
                why += ("; the old value tells whether this update won, and every winner "
                        "writes the same constants, so no lock is needed")
            return Choice(what + self._remote(t, kernel, array), why)
        self.add(s, s.func, choose)

    def reduce(self, kernel: P.Kernel, s: P.AtomicReduce, index: int) -> None:
        red = self._reduction(kernel, s.target)
        if red is not None:
            self.scalar_reduction(kernel, s, red, s.op, index)
            return
        array = self._array(s.target)
        construct = f"{s.op}= on a property"

        def choose(t: Target) -> Choice:
            form = t.atomics(kernel.name)[index].form
            if form == "plain":
                return Choice("no atomic: a plain conditional store"
                              + self._remote(t, kernel, array),
                              "every work item that writes stores the same value")
            atomic = atomic_choice(t.backend, P.ATOMIC_OPS[s.op], s.target.type, form)
            return Choice(atomic.what + self._remote(t, kernel, array),
                          "several work items may update one element at once; " + atomic.why)
        self.add(s, construct, choose)

    def scalar_reduction(self, kernel: P.Kernel, s, red: P.ScalarReduction, op: str,
                         index: int) -> None:
        name = red.sym.name

        def choose(t: Target) -> Choice:
            specialized = t.reduction(kernel.name, red)
            combine = ""
            if t.distribution is not None:
                from starc.backends.mpi.host import mpi_operator
                combine = (f", then one MPI_Allreduce with {mpi_operator(op)} across ranks "
                           "after the superstep")
            if specialized.strategy == "native":
                return Choice(
                    f"{t.backend.native_reduction(kernel, specialized)}{combine}",
                    f"'{name}' is only updated with {op} in this forall, so each work item "
                    f"combines privately and {t.backend.title} combines the partial results")
            if specialized.strategy in ("group", "private"):
                atomic = atomic_choice(t.backend, P.ATOMIC_OPS[op], red.sym.type,
                                       specialized.combine)
                folded = (t.backend.group_combine(specialized)
                          if specialized.strategy == "group" else "")
                return Choice(f"a private accumulator per work item, then one {atomic.what} "
                              f"into {name}'s device copy{combine}"
                              + (f"; {folded}" if folded else ""),
                              f"'{name}' is only updated with {op} in this forall, so one "
                              f"atomic per work item suffices"
                              + (", and one per group once the group has folded its "
                                 "privates" if folded else "") + f"; {atomic.why}")
            atomic = atomic_choice(t.backend, P.ATOMIC_OPS[op], red.sym.type,
                                   t.atomics(kernel.name)[index].form)
            return Choice(f"every update is an {atomic.what}{combine}",
                          f"'{name}' is also read or updated otherwise in this forall, so "
                          f"each update must be atomic; {atomic.why}")
        self.add(s, f"{op} on a scalar" if op in ("Min", "Max") else f"{op}= on a scalar",
                 choose)

    def store(self, kernel: P.Kernel, s: ir.Assign) -> None:
        index = s.target.index
        own = isinstance(index, ir.VarRef) and index.sym == kernel.index
        array = self._array(s.target)
        item = _ITEM[kernel.extent][0]
        if own:
            self.add(s, "= on a property", lambda t: Choice(
                NO_ATOMIC_OWN.format(item=item), "no other work item writes this element"))
            return
        self.add(s, "= on a property", lambda t: Choice(
            "no atomic: a plain store" + self._remote(t, kernel, array),
            "a single store cannot be torn; when several work items store to one element, "
            "one of them wins, as in the DSL's meaning of a forall"))

    def scalar_store(self, s: P.ScalarStore) -> None:
        def choose(t: Target) -> Choice:
            mpi = (", then the value of a rank that stored is broadcast to all ranks"
                   if t.distribution is not None else "")
            return Choice(f"no atomic: a plain store into {s.array.name}{mpi}",
                          "every work item that stores writes the same value")
        self.add(s, "= on a scalar", choose)

    # --- fixedPoint and BFS -----------------------------------------------------------------
    def fixedpoint(self, s: P.FixedPointLoop) -> None:
        prop, nxt, flag = s.current.name, s.next.name, s.flag.name

        def worklist(t: Target) -> bool:
            return s.worklist is not None and t.loop_form(s.loc).form == "worklist"

        def dense_by_edges(t: Target) -> str:
            """Where this target's dense rounds run one work item per edge (``schedules``)."""
            own = {k.name for stmt in walk_host(s.body) for k in kernels_launched_by(stmt)}
            edges = [k for k in t.plan.kernels if k.schedule == "edges"
                     and k.name.removesuffix("_dense") in own]
            return ("; a dense round runs one work item per edge (" + edges[0].schedule_why + ")"
                    if edges else "")

        def rounds(t: Target) -> str:
            """The one phrase on data- or topology-driven rounds."""
            if worklist(t):
                return (f"; data-driven: a round with at most n/{DENSE_DIVISOR} active "
                        f"vertices runs one work item per entry of a worklist of the vertices "
                        f"whose {prop} is set (each appended once by the work item that sets "
                        f"it), a larger round every vertex, only setting and counting the "
                        f"flags it flips (a compaction pass builds the worklist when the count "
                        f"falls to n/{DENSE_DIVISOR})" + dense_by_edges(t))
            why = t.loop_form(s.loc).why if s.worklist is not None else s.topology_why
            return f"; topology-driven: every round tests all vertices ({why})"

        def choose(t: Target) -> Choice:
            buffers = (f"{prop} is double-buffered: kernels write {nxt}, and the two are "
                       "swapped after each round (a pointer swap, no copy)") + rounds(t)
            if t.distribution is not None:
                from starc.backends.mpi.host import mpi_operator
                return Choice(
                    f"each rank's flag {flag} is combined by MPI_Allreduce with "
                    f"{mpi_operator('flag')} after every superstep (any rank's 1), so all "
                    f"ranks agree whether to go on; {buffers} on every rank alike",
                    "ranks run the same host loop, so they must agree on its condition")
            if worklist(t):
                return Choice(
                    f"the worklist's length, read back once per round with "
                    f"{t.backend.copy_to_host or 'a plain read'}, ends the loop at 0; "
                    + buffers,
                    f"a round then touches only the vertices whose {prop} changed, as in "
                    "Gunrock and GAPBS, instead of testing every vertex")
            return Choice(
                f"one device flag {flag}: cleared by the host before each round, set to 1 by "
                f"any work item that changes {prop} while it still reads 0 (no atomic: all "
                f"write the same 1; the read keeps the others from taking its cache line), read "
                f"back once per round with {t.backend.copy_to_host or 'a plain read'}; "
                + buffers,
                f"reading one flag per round is much cheaper than copying {prop} back to "
                "test it; the next buffer keeps a round from seeing its own updates")
        self.add(s, "fixedPoint", choose, span_node=_At(s.loc))
        if s.worklist is not None:
            self.add(s, "worklist appends", lambda t: _appends(t, s.loc), span_node=_At(s.loc))

    def update_phase(self, s: P.ApplyUpdates) -> None:
        """``g.updateCSRDel/Add``: what the host does to the graph per batch."""
        which = "deletions" if s.kind == "delete" else "additions"
        graph = ", ".join(a.name for a in s.graph)
        read = [a.name for a in s.read_back]
        kept = [a.name for a in s.edge_props if a.name not in read]
        what = (f"the host applies the batch's {which} to its CSR and reverse CSR in place "
                f"(starc_updates.hpp), then uploads {graph} whole again"
                + (f"; edge properties {', '.join(read)} read back, carried to the new edge "
                   "ids and uploaded" if read else "")
                + (f"; edge properties {', '.join(kept)} carried from the host's copy (nothing "
                   "on the device writes them: no read back) and uploaded" if kept else "")
                + ("" if s.reverse_ids else "; the reverse CSR's edge ids are not kept (the "
                   "device never reads them), so its rows change by moving spans"))
        why = ("the graph is changed where its host copy lives, in O(n + m + k log k) for k "
               "updates instead of a rebuild; the device copies are refreshed whole (a first "
               "step: a merge on the device would move only the changed rows)")
        slack = (f"the host applies the batch's {which} to its rows with slack in place "
                 "(starc_slack_rows.hpp): only the rows it touches move, and the device "
                 "copies of the slot arrays are refreshed in the slot ranges it wrote (whole "
                 "after a re-layout), and the row starts and ends of the rows it touched"
                 + (f"; edge properties {', '.join(read)} read back at the slots the batch "
                    "moves (gathered on the device)" if read else "")
                 + (f"; edge properties {', '.join(kept)} carried from the host's copy (nothing "
                    "on the device writes them: no read back)" if kept else ""))

        moves = (slack + "; on the device, the spans the batch moved are moved from their "
                 "records (from, to, length) by a kernel pair per slot array, and only the "
                 "slots it added are packed and scattered (all written slots where a move "
                 "chains), with no read back for the moved slots")

        def choose(t) -> Choice:
            target = t.plan.target
            if target is not None and target.distribution is not None:
                ghosts = target.distribution.appended_ghosts_why
                return Choice(f"each rank applies the batch's {which} to the rows it owns, in "
                              "place unless the program holds ghost rows, new ghosts "
                              "inserted in its local index space (starc_mpi_update_rows.hpp), "
                              "otherwise it lays its part out again "
                              "on the same partition (starc_mpi_updates.hpp)",
                              target.slack_rows_why + (f"; {ghosts}" if ghosts else ""))
            order = ""
            if target is not None and target.slack_rows:
                order = (f"; the rows are left in any order: {target.unsorted_rows_why}"
                         if target.unsorted_rows else f"; {target.unsorted_rows_why}")
            if target is not None and target.slack_rows and target.capabilities.span_moves:
                return Choice(moves + order, f"{target.slack_rows_why}; {SPAN_MOVES_WHY}")
            if target is not None and target.slack_rows:
                return Choice(slack + order, target.slack_rows_why)
            # the plan's reason for a compact CSR, where it has one
            reason = target.slack_rows_why if target is not None else ""
            return Choice(what, why + (f"; {reason}" if reason else ""))
        def fused_or(t) -> Choice:
            # the target's own statement: the specialize stage fuses adjacent updates
            fused = next((x for x in walk_host(t.plan.host) if isinstance(x, P.ApplyUpdates)
                          and x.fused and x.first.uid == s.first.uid), None)
            choice = choose(t)
            if fused is None:
                return choice
            other = "additions" if s.kind == "delete" else "deletions"
            return Choice(f"{choice.what}; one update with the batch's {other}, applied "
                          "deletions first, the copies refreshed once", fused.fused)
        self.add(s, "graph update", fused_or)

    def property_copy(self, s) -> None:
        if isinstance(s, P.SwapArrays):
            what = (f"a pointer swap of {s.a.name} and {s.b.name} instead of a copy (no "
                    "pass over the array)")
            why = (f"every round rewrites all of {s.b.name} before anything reads it, so "
                   "no one can tell which values it holds in between")
        else:
            what = f"a device-to-device copy of every element of {s.src.name} into {s.dst.name}"
            why = (f"{s.src.name} is read again (or only partly rewritten) before it is "
                   "rewritten, so it must keep the copied values")

        def choose(t: Target) -> Choice:
            alike = " on every rank alike" if t.distribution is not None else ""
            return Choice(what + alike, why)
        self.add(s, "property copy", choose, span_node=_At(s.loc))

    def parent_value(self, value: P.ParentValue) -> None:
        """A BFS parents loop whose value may be the depth (``analysis.depth_values``)."""
        choice = Choice(value.what, value.why)
        self.add(value, "iterateInBFS parents loop", lambda t: choice,
                 span_node=_At(value.loc))

    def bfs(self, s: P.BFSLoop) -> None:
        level = s.level.name
        reverse = (f"; then {s.reverse.name} once per depth, from the deepest back to 0 (the "
                   "reverse sweep)") if s.reverse is not None else ""
        last = any(isinstance(loop.domain, ir.InNeighbors) and loop.domain.descending
                   for loop in ir.walk(s.forward.body) if isinstance(loop, ir.Loop))
        parents = ("; a parents loop whose outcome is its last parent's assignment searches "
                   "the in-edges from the last and stops at the first parent found") \
            if last else ""
        if s.pending is not None:
            parents += (f"; {s.bottom_up.name} searches backwards too and runs the body at "
                        f"each vertex it reaches, with that last parent (one search per vertex, "
                        f"not two); {s.pending.name} runs the frontier's body first when a "
                        f"top-down step reached it, and a top-down step after a bottom-up one "
                        f"launches {s.expand.name}, {s.forward.name} without the body (host "
                        f"flag {s.fused_name})")

        if s.values is not None:
            parents += (f"; after the last step {s.values.name} sets the values the parents "
                        f"loops would have given from each reached vertex's level")

        def choose(t: Target) -> Choice:
            combine = ""
            if t.distribution is not None:
                combine = ("; each level is one superstep and the counts are summed over the "
                           "ranks by MPI_Allreduce")
            return Choice(
                f"levels in {level} (-1: not reached yet); one launch per depth, with the depth "
                f"as an argument, until a step reaches no vertex; direction-optimizing: "
                f"{s.forward.name} expands the frontier top-down over out-edges, "
                f"{s.bottom_up.name} lets every unvisited vertex look bottom-up for a parent "
                f"(stopping at the first), chosen per depth from the counts {s.awake.name} and "
                f"{s.scout.name} read back after each step (GAPBS's heuristic, alpha {s.alpha}, "
                f"beta {s.beta}){parents}{reverse}{combine}",
                "level-synchronous BFS: every vertex of one level is expanded in parallel, and "
                "the levels are kept for the reverse sweep; when the frontier is large most "
                "out-edges lead to visited vertices, and a bottom-up step skips them")
        self.add(s, "iterateInBFS", choose, span_node=_At(s.loc))

    # --- transfers ----------------------------------------------------------------------------
    def transfers_once(self) -> None:
        def choose(t: Target) -> Choice:
            # the target's own arrays: its form and schedules may take others (sources)
            ins = [a.name for a in t.plan.arrays if a.copy_in]
            outs = [a.name for a in t.plan.arrays if a.copy_out]
            if not t.backend.copy_to_device:
                return Choice(
                    "no copies: each rank reads its own byte range of the graph file and keeps "
                    "the rows of its vertices; every per-vertex array holds only the vertices "
                    "the rank knows (its own, its ghosts), by local id"
                    + _replica_words(t.distribution)
                    + "; each rank's results stream to rank 0, which writes them",
                    "no rank holds the whole graph; memory is the rank's own and shrinks as "
                    "ranks are added")
            return Choice(
                f"copied to the device once, before the algorithm ({t.backend.copy_to_device})"
                f": {', '.join(ins) or 'nothing'}; copied back once at the end "
                f"({t.backend.copy_to_host}): {', '.join(outs) or 'nothing'}",
                "the graph and the inputs stay on the device for the whole algorithm; only "
                "results go back")
        self.add(self.plan.function, "transfers", choose, span_node=_At(self.plan.function.loc))

    def transfers_between(self) -> None:
        """Single values the host moves while the algorithm runs, one decision per line."""
        by_line: Dict[int, Tuple[object, List[str], List[str]]] = {}
        for stmt in walk_host(self.plan.host):
            moves: List[Tuple[str, str]] = []
            if isinstance(stmt, P.ToDevice):
                moves.append(("in", stmt.sym.name))
            elif isinstance(stmt, P.FromDevice):
                moves.append(("out", stmt.sym.name))
            elif isinstance(stmt, P.FromDeviceMany):
                moves += [("out", sym.name) for sym in stmt.syms]
            elif isinstance(stmt, P.WriteElement) and stmt.array.role not in ("flag", "level"):
                moves.append(("in", f"one element of {stmt.array.name}"))
            for node in host_exprs(stmt):
                if isinstance(node, P.DeviceRead) and node.array.role not in ("flag", "level"):
                    moves.append(("out", f"one element of {node.array.name}"))
            if not moves or stmt.loc is None or stmt.loc.line <= 0:
                continue
            node, ins, outs = by_line.setdefault(stmt.loc.line, (stmt, [], []))
            for way, what in moves:
                bucket = ins if way == "in" else outs
                if what not in bucket:
                    bucket.append(what)
        for line, (node, ins, outs) in sorted(by_line.items()):
            self.add(node, "transfers", lambda t, ins=ins, outs=outs: _moves(t, ins, outs),
                     span_node=_At(node.loc))


def _moves(t: Target, ins: List[str], outs: List[str]) -> Choice:
    parts = []
    if not t.backend.copy_to_device:
        if ins:
            parts.append(f"{', '.join(ins)}: every rank sets its own copy alike")
        if outs:
            parts.append(f"{', '.join(outs)}: read on every rank (a vertex's value is sent "
                         "by its owner)")
        return Choice("; ".join(parts), "one memory per rank: no device copies")
    if ins:
        parts.append(f"to the device: {', '.join(ins)} "
                     f"({t.backend.write_element or t.backend.copy_to_device})")
    if outs:
        parts.append(f"back to the host: {', '.join(outs)} ({t.backend.copy_to_host})")
    return Choice("; ".join(parts),
                  "the host needs these values here (or the device does); single values are "
                  "copied, never whole arrays")


def _replica_words(distribution) -> str:
    """The per-vertex arrays MPI keeps full-length on every rank, and why."""
    if distribution is None or not distribution.replicas:
        return ""
    return ("; full-length replicas on every rank, by global id: "
            + ", ".join(f"{name} ({why})" for name, why in distribution.replicas.items()))


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
        parts.append("one-value results by MPI_Allreduce")
    return f" ({'; '.join(parts)})" if parts else " (nothing to exchange)"


def _appends(t: Target, loc) -> Choice:
    """How a worklist's appends take their slots here (``Specialization.appends``)."""
    form = t.loop_form(loc)
    if form.form != "worklist":
        return Choice("no appends: every round tests all vertices", form.why)
    target = t.plan.target
    if target.appends in ("group", "local", "gang"):
        return Choice(t.backend.group_append(), target.appends_why)
    return Choice("one atomic fetch-and-add on the worklist's length per appended vertex",
                  target.appends_why)


def _structured(comp) -> P.Plan:
    """The plan before ``expand``: fixedPoint and BFS are still ``FixedPointLoop`` and
    ``BFSLoop`` there (with the ``frontier`` pass's decision), plain host loops after."""
    from starc.analysis import lower_function
    return lower_function(comp.ir, comp.function, stop_after="frontier")


@record
class _At(Record):
    """Stands for one line of a node (a loop's header, not its whole body)."""

    loc: object


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
