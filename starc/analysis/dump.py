"""``starc --emit plan``: a readable text form of a ``Plan`` (arrays, kernels, host tree)."""

from __future__ import annotations

from typing import List, Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.batches import SPAN_MOVES_WHY
from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.analysis.locality import Locality, kernel_locality
from starc.analysis.specialize import conditional_atomics
from starc.analysis.wrapping import WrappingArith
from starc.frontend.precedence import POSTFIX, UNARY
from starc.ir import nodes as ir
from starc.ir.printer import DSLPrinter
from starc.ir.scope import stack_room

__all__ = ["plan_dump", "PlanPrinter"]


class PlanPrinter(DSLPrinter):
    """The DSL printer with the plan's notation: two-space indent, blocks flattened, property
    elements as ``p[i]``, casts shown, every compound operand parenthesised, a loop's edge
    variable named; plus the lowered kernel statements and the host tree."""

    unit = "  "

    # --- expressions ---------------------------------------------------------------------------

    def expr(self, e: Optional[ir.Expr], needed: int = 0) -> str:
        # Read by people checking the lowering, never re-parsed: explicit grouping beats
        # the fewest parentheses (and covers the operators lowering adds).
        if e is None:
            return "<none>"
        text, _ = self.level(e)
        return f"({text})" if needed and isinstance(e, (ir.Binary, ir.Unary)) else text

    def unknown_expr(self, e: ir.Expr) -> Tuple[str, int]:
        return f"<{type(e).__name__}>", POSTFIX

    def _expr_PropRead(self, e: ir.PropRead) -> Tuple[str, int]:
        return f"{e.prop.name}[{self.expr(e.index)}]", POSTFIX

    def _expr_Cast(self, e: ir.Cast) -> Tuple[str, int]:
        return f"({e.type}) {self.expr(e.expr, UNARY)}", UNARY

    def _expr_KernelScalar(self, e: P.KernelScalar) -> Tuple[str, int]:
        return e.name, POSTFIX

    def _expr_WindowDelta(self, e: P.WindowDelta) -> Tuple[str, int]:
        return (f"window_delta({e.scale} x mean |{e.weight.name}| / mean degree of "
                f"{e.graph.name})", POSTFIX)

    def _expr_UnionFindRoot(self, e: P.UnionFindRoot) -> Tuple[str, int]:
        return f"root({e.parent.name}, {self.expr(e.vertex)})", POSTFIX

    def _expr_OnLockstepDevice(self, e: P.OnLockstepDevice) -> Tuple[str, int]:
        return "on_lockstep_device()", POSTFIX

    def _expr_GroupLanes(self, e: P.GroupLanes) -> Tuple[str, int]:
        return "group_size", POSTFIX

    def _expr_DeviceRead(self, e: P.DeviceRead) -> Tuple[str, int]:
        return f"read {e.array.name}[{self.expr(e.index)}]", POSTFIX

    def _expr_HostCheckedIndex(self, e: P.HostCheckedIndex) -> Tuple[str, int]:
        return f"check({self.expr(e.index)} < {e.extent})", POSTFIX

    def _expr_CheckedIndex(self, e: CheckedIndex) -> Tuple[str, int]:
        return f"check#{e.site + 1}({self.expr(e.index)} < {e.extent})", POSTFIX

    def _expr_CheckedDivide(self, e: CheckedDivide) -> Tuple[str, int]:
        return (f"check#{e.site + 1}({self.expr(e.left, UNARY)} {e.op} "
                f"{self.expr(e.right, UNARY)})", POSTFIX)

    def _expr_RankTable(self, e) -> Tuple[str, int]:
        return f"{e.table}[{self.expr(e.index)}]", POSTFIX

    def _expr_LiveSlot(self, e: P.LiveSlot) -> Tuple[str, int]:
        return f"live_slot({self.expr(e.edge)})", POSTFIX

    def _expr_CursorQuery(self, e: P.CursorQuery) -> Tuple[str, int]:
        return f"cursor {self.expr(e.query)}", POSTFIX

    def _expr_WrappingArith(self, e: WrappingArith) -> Tuple[str, int]:
        if e.right is None:
            return f"wrap(-{self.expr(e.left, UNARY)})", POSTFIX
        return f"wrap({self.expr(e.left, UNARY)} {e.op} {self.expr(e.right, UNARY)})", POSTFIX

    # --- kernel statements -----------------------------------------------------------------

    def unknown_stmt(self, s, indent: int) -> List[str]:
        return self.line(f"<{type(s).__name__}>", indent)

    def _stmt_Block(self, s: ir.Block, indent: int) -> List[str]:
        return self.stmts(s.stmts, indent)

    def domain(self, s: ir.Loop) -> str:
        d = s.domain
        if isinstance(d, ir.Neighbors):
            role = "" if d.role == "out" else f" role={d.role}"
            return f"{d.graph.name}.neighbors({self.expr(d.of)}) edge {d.edge.name}{role}"
        if isinstance(d, ir.InNeighbors):
            order = " descending" if d.descending else ""
            return f"{d.graph.name}.nodes_to({self.expr(d.of)}) edge {d.edge.name}{order}"
        return super().domain(s)

    def filter_suffix(self, cond: ir.Expr) -> str:
        return f" filter({self.expr(cond)})"

    def _stmt_AtomicReduce(self, s: P.AtomicReduce, indent: int) -> List[str]:
        return self.line(f"atomic{_form(s.form)} {self.expr(s.target)} {s.op}= "
                         f"{self.expr(s.value)};", indent)

    def _stmt_AtomicMinMax(self, s: P.AtomicMinMax, indent: int) -> List[str]:
        lock = f" locked by {s.lock.name}" if s.locked and s.lock else ""
        first = " read first" if s.read_first else ""
        head = (f"atomic{_form(s.form)} {s.func}({self.expr(s.target)}, "
                f"{self.expr(s.candidate)}){first}{lock}")
        if not s.others and not s.then:
            return self.line(head + ";", indent)
        pad = self.unit * indent
        stores = [f"{pad}{self.unit}{self.expr(t)} = {self.expr(v)};" for t, v in s.others]
        return [f"{pad}{head} {{", *stores, *self.stmts(s.then, indent + 1), f"{pad}}}"]

    def _stmt_UnionFindLink(self, s: P.UnionFindLink, indent: int) -> List[str]:
        return self.line(f"link({s.parent.name}, {self.expr(s.a)}, {self.expr(s.b)});", indent)

    def _stmt_UnionFindSample(self, s: P.UnionFindSample, indent: int) -> List[str]:
        which = ("its first out-neighbour" if s.count == 1 else
                 f"each of its first {s.count} out-neighbours")
        return self.line(f"link({s.parent.name}, {self.expr(s.vertex)}, {which});", indent)

    def _stmt_FlagSet(self, s: P.FlagSet, indent: int) -> List[str]:
        cond = f" if {self.expr(s.value)}" if s.value is not None else ""
        clear = " if clear" if s.if_clear else ""
        return self.line(f"set flag {s.flag.name}{cond}{clear};", indent)

    def _stmt_ScalarStore(self, s: P.ScalarStore, indent: int) -> List[str]:
        return self.line(f"store {s.array.name} = {self.expr(s.value)};", indent)

    def _stmt_QueueAppend(self, s: P.QueueAppend, indent: int) -> List[str]:
        form = {"group": " [one atomic per group]",
                "local": " [staged in local memory, one atomic per work-group]",
                "gang": " [staged in gang-private memory, one atomic per gang]"}.get(s.form, "")
        return self.line(f"append{form} {self.expr(s.value)} to {s.queue.name} (length "
                         f"{s.size.name}[{self.expr(s.slot)}]);", indent)

    def _stmt_QueueCount(self, s: P.QueueCount, indent: int) -> List[str]:
        form = (" [counted in local (or gang-private) memory, one atomic per work-group (or "
                "gang)]" if s.staged else
                " [one atomic per group]" if s.per_group else "")
        return self.line(f"count{form} 1 in {s.size.name}[{self.expr(s.slot)}];", indent)

    def _stmt_QueueReset(self, s: P.QueueReset, indent: int) -> List[str]:
        return self.line(f"{s.size.name}[{self.expr(s.slot)}] = 0;", indent)

    def _stmt_GroupBarrier(self, s: P.GroupBarrier, indent: int) -> List[str]:
        return self.line("group barrier;", indent)

    # --- host statements -------------------------------------------------------------------

    # The structured host statements have the fields of their IR twins: printed alike.
    _stmt_HostBlock = _stmt_Block
    _stmt_HostDeclare = DSLPrinter._stmt_Declare
    _stmt_HostIf = DSLPrinter._stmt_If
    _stmt_HostWhile = DSLPrinter._stmt_While
    _stmt_HostDoWhile = DSLPrinter._stmt_DoWhile
    _stmt_HostReturn = DSLPrinter._stmt_Return
    _stmt_HostBreak = DSLPrinter._stmt_Break
    _stmt_HostContinue = DSLPrinter._stmt_Continue

    def _stmt_HostAssign(self, s: P.HostAssign, indent: int) -> List[str]:
        return self.line(f"{s.sym.name} = {self.expr(s.value)};", indent)

    def _stmt_HostReduce(self, s: P.HostReduce, indent: int) -> List[str]:
        return self.line(f"{s.sym.name} {s.op}= {self.expr(s.value)};", indent)

    def _stmt_HostForSet(self, s: P.HostForSet, indent: int) -> List[str]:
        return self.braced(f"for ({s.var.name} in {s.set.name})", s.body.stmts, indent)

    def _stmt_HostForRange(self, s: P.HostForRange, indent: int) -> List[str]:
        v, test = s.var.name, (">=" if s.step < 0 else "<=")
        return self.braced(f"for ({v} = {self.expr(s.first)}; {v} {test} {self.expr(s.last)}; "
                           f"{v} += {s.step})", s.body.stmts, indent)

    def _stmt_CheckErrors(self, s: P.CheckErrors, indent: int) -> List[str]:
        return self.line("check errors;", indent)

    def _stmt_Launch(self, s: P.Launch, indent: int) -> List[str]:
        args = "".join(f" {n}={self.expr(e)}" for n, e in s.scalar_args)
        return self.line(f"launch {s.kernel.name}{args};", indent)

    def _stmt_Fill(self, s: P.Fill, indent: int) -> List[str]:
        return self.line(f"fill {s.array.name} = {self.expr(s.value)};", indent)

    def _stmt_CopyArray(self, s: P.CopyArray, indent: int) -> List[str]:
        return self.line(f"copy {s.dst.name} <- {s.src.name};", indent)

    def _stmt_SwapArrays(self, s: P.SwapArrays, indent: int) -> List[str]:
        note = "  (instead of copy: all of it is rewritten before any read)" \
            if s.instead_of_copy else ""
        return self.line(f"swap {s.a.name} <-> {s.b.name};{note}", indent)

    def _stmt_WriteElement(self, s: P.WriteElement, indent: int) -> List[str]:
        return self.line(f"write {s.array.name}[{self.expr(s.index)}] = "
                         f"{self.expr(s.value)};", indent)

    def _stmt_ToDevice(self, s: P.ToDevice, indent: int) -> List[str]:
        return self.line(f"to device {s.array.name} <- {s.sym.name};", indent)

    def _stmt_FromDevice(self, s: P.FromDevice, indent: int) -> List[str]:
        return self.line(f"from device {s.sym.name} <- {s.array.name};", indent)

    def _stmt_ReadSlots(self, s: P.ReadSlots, indent: int) -> List[str]:
        names = ", ".join(sym.name for sym in s.syms)
        return self.line(f"from device {names} <- {s.array.name}[0..{len(s.syms)});  (one copy)",
                         indent)

    def _stmt_FromDeviceMany(self, s: P.FromDeviceMany, indent: int) -> List[str]:
        pairs = ", ".join(f"{sym.name} <- {a.name}" for a, sym in zip(s.arrays, s.syms))
        return self.line(f"from device {pairs};  (one copy of {s.pack.name})", indent)

    def _stmt_LeastLabels(self, s: P.LeastLabels, indent: int) -> List[str]:
        return self.line(f"least labels {s.labels.name};  (each component's least, by the "
                         "runtime: each rank's edges in a union-find, its trees joined through "
                         "the ghosts)", indent)

    def _stmt_OrderByDegree(self, s: P.OrderByDegree, indent: int) -> List[str]:
        if s.keeps_ids:
            return self.line(f"order by degree {s.offsets.name}, {s.targets.name}: not done "
                             f"({s.keeps_ids});", indent)
        return self.line(f"order by degree {s.offsets.name}, {s.targets.name};  (renumber "
                         "the vertices by degree when the graph is symmetric, simple and "
                         "skewed: no result depends on ids)", indent)

    def _stmt_BatchLoop(self, s: P.BatchLoop, indent: int) -> List[str]:
        lines = self.braced(f"batches of {self.expr(s.size)} lines of {s.stream.name} "
                            f"({s.first.name} .. {s.last.name})", s.body.stmts, indent)
        for fill, why in s.dropped_fills:     # after the opening line
            lines[1:1] = self.line(f"  (no fill {fill.array.name} each batch: {why})",
                                   indent)
        return lines

    def _stmt_ApplyUpdates(self, s: P.ApplyUpdates, indent: int) -> List[str]:
        lines = self._apply_updates(s, indent)
        only = [a.name for a in s.graph if a.lockstep_only]
        if only:    # (one line: the statement's text ends with its ';')
            lines[-1] = (lines[-1][:-1] + f"; {', '.join(only)} on a lockstep device only "
                         "(only the kernels' variants for it read them);")
        return lines

    def _apply_updates(self, s: P.ApplyUpdates, indent: int) -> List[str]:
        graph = ", ".join(a.name for a in s.graph)
        props = ", ".join(a.name for a in s.edge_props) or "none"
        read = ", ".join(a.name for a in s.read_back) or "none"
        if s.slack_rows and s.span_moves:
            slots = ", ".join(a.name for a in s.graph + s.edge_props if a.extent == "edges")
            return self.line(f"apply the batch's {s.kind}s to the host graph's rows with slack "
                             f"in place; move the spans it moved on the device, from their "
                             f"records, in {slots}; upload the slots it added (packed, "
                             "scattered; every written slot where a move chains; whole after "
                             "a re-layout) and the starts and ends of the rows it touched;",
                             indent)
        if s.slack_rows:
            return self.line(f"apply the batch's {s.kind}s to the host graph's rows with slack "
                             f"in place; upload the slots it wrote of {graph} (packed, "
                             "scattered; whole after a re-layout); edge properties carried: "
                             f"{props} (read back at the slots moved: {read});", indent)
        if s.distributed:
            fused = " (one relayout or in-place pass: fused)" if s.fused else ""
            return self.line(f"apply the batch's {' then '.join(k + 's' for k in s.kinds)} to "
                             f"each rank's rows{fused}; local arrays carried: "
                             f"{', '.join(a.name for a in s.local_arrays) or 'none'}; edge "
                             f"properties carried: {props} (by slot: {read});", indent)
        kinds = " then ".join(k + "s" for k in s.kinds)
        fused = " (fused: refreshed once)" if s.fused else ""
        return self.line(f"apply the batch's {kinds} to the host graph in place{fused}; upload "
                         f"{graph} again (whole arrays); edge properties carried: {props} "
                         f"(read back first: {read}); reverse edge ids "
                         f"{'renumbered' if s.reverse_ids else 'not kept'};", indent)

    def _stmt_UpdateLoop(self, s: P.UpdateLoop, indent: int) -> List[str]:
        fields = ", ".join(f"{a.name} <- .{f}" for f, a in s.fields) or "no fields"
        return self.braced(f"updates of the batch ({s.kind}): upload {fields}; "
                           f"{s.count.name} = their number; if any", s.body.stmts, indent)

    def _stmt_FixedPointLoop(self, s: P.FixedPointLoop, indent: int) -> List[str]:
        forced = " forced" if s.forced else ""
        form = (f", worklist {s.worklist.queue.name}" if s.worklist is not None
                else f", topology-driven: {s.topology_why}" if s.topology_why else "")
        return self.braced(f"fixedPoint {s.flag_var.name}: current {s.current.name}, next "
                           f"{s.next.name}, flag {s.flag.name}{forced}{form}", s.body.stmts,
                           indent)

    def _stmt_DataDrivenLoop(self, s: P.DataDrivenLoop, indent: int) -> List[str]:
        pad = self.unit * indent
        what = ("small top-down steps over a queue of the frontier" if s.traversal
                else "worklist")
        return ([f"{pad}data-driven ({what}; backends without worklists: topology-driven"
                 " below) {"] + self.stmts(s.worklist.stmts, indent + 1)
                + [f"{pad}}} topology-driven {{"] + self.stmts(s.topology.stmts, indent + 1)
                + [f"{pad}}}"])

    def _stmt_BFSLoop(self, s: P.BFSLoop, indent: int) -> List[str]:
        reverse = f", reverse {s.reverse.name}" if s.reverse is not None else ""
        fused = (f" running B1 at discovery (host flag {s.fused_name}; the frontier's pending "
                 f"B1 {s.pending.name}, top-down without B1 {s.expand.name})"
                 ) if s.pending is not None else ""
        values = f", then {s.values.name} (values from the depth)" if s.values is not None \
            else ""
        return self.line(f"bfs from {self.expr(s.root)}: level {s.level.name}, depth "
                         f"{s.depth_name}, top-down {s.forward.name}, bottom-up "
                         f"{s.bottom_up.name}{fused} (counts {s.awake.name}, {s.scout.name}; "
                         f"alpha {s.alpha}, beta {s.beta}){values}{reverse};", indent)


# --- whole plan ----------------------------------------------------------------------------------

def _array_line(a: P.DeviceArray) -> str:
    flags = " ".join(f for f, on in (("copy_in", a.copy_in), ("copy_out", a.copy_out)) if on)
    return f"  {a.name:<16} {str(a.elem):<7} {a.extent:<8} {a.role:<7} {flags}".rstrip()


def _locality(found: Locality) -> List[str]:
    """What the kernel reaches beyond its own vertex (``locality``), when anything."""
    lines = []
    if found.remote_writes:
        lines.append("  remote writes: " + ", ".join(
            f"{w.array} ({w.op}{'' if w.at == 'neighbour' else ', anywhere'})"
            for w in found.remote_writes))
    if found.neighbour_reads:
        lines.append("  neighbour reads: " + ", ".join(
            name + (" (anywhere)" if name in found.anywhere_reads else "")
            for name in found.neighbour_reads))
    if found.remote_rows:
        lines.append("  remote rows: " + ", ".join(found.remote_rows))
    if found.ghost_edge_reads:
        lines.append("  ghost-row edge reads: " + ", ".join(found.ghost_edge_reads))
    return lines


def _kernel(k: P.Kernel, printer: PlanPrinter, plan: Optional[P.Plan] = None) -> List[str]:
    index = "" if k.extent == "single" else f" {k.index.name}"
    lines = [f"kernel {k.name} over {k.extent}{index}  // line {k.loc.line}"]
    if k.hoisted_for:
        lines.append(f"  hoisted: per-vertex terms of the neighbour loops of {k.hoisted_for}")
    if k.uniform_items:
        lines.append("  uniform items: no loop, search, call or lock (long runs on a CPU)")
    if k.renumbered_variant:
        lines.append(f"  on a graph renumbered by degree: {k.renumbered_variant} instead "
                     f"({k.row_swap_why})")
    elif k.renumbered_of:
        lines.append(f"  in place of {k.renumbered_of} on a graph renumbered by degree")
    elif k.row_swap_why:
        lines.append(f"  on a graph renumbered by degree: as written ({k.row_swap_why})")
    if k.skips_pushed_why:
        skips = "skipped" if k.skips_pushed else "all run"
        lines.append(f"  flagged vertices whose values were pushed: {skips} "
                     f"({k.skips_pushed_why})")
    params = []
    for p in k.params:
        if p.array is not None:
            params.append(p.name + (" (written)" if p.written else ""))
        else:
            params.append(f"{p.elem} {p.name}")
    params.extend(f"{s.type} {s.name}" for s in k.scalars)
    lines.append(f"  params: {', '.join(params) if params else '-'}")
    for r in k.reductions:
        kind = "exclusive" if r.exclusive else "shared"
        how = ""
        if r.strategy:
            how = f", {r.strategy}" + (f" then one {r.combine} atomic" if r.combine else "") \
                + (", wrapping" if r.wrap else "")
        lines.append(f"  reduction: {r.sym.name} {r.op} via {r.array.name} ({kind}{how})")
    for s in k.stores:
        lines.append(f"  store: {s.sym.name if s.sym else '?'} via {s.name}")
    if k.checks:
        lines.append("  checks: " + ", ".join(f"#{c + 1}" for c in k.checks))
    for scan in k.row_scans:
        parts = [f"{'start' if b.side == 'start' else 'stop'} "
                 f"{'>' if b.side == 'start' else '<'}{'=' if b.inclusive else ''} "
                 f"{printer.expr(b.value)}" for b in scan.bounds]
        if scan.bounds and scan.hoist:
            parts.append(f"searched {scan.hoist} loop(s) further out")
        hoists = scan.cursor_hoists or (0,) * len(scan.cursors)
        parts += [f"cursor in {row.name}'s row" + (f" (started {k} loop(s) further out)"
                                                    if k else "")
                  for (row, _), k in zip(scan.cursors, hoists)]
        if scan.exhausted is not None:
            parts.append(f"merges with {scan.exhausted.name}'s row, stops past it")
        lines.append(f"  row scan of {scan.var.name}: " + ", ".join(parts))
    for shared in k.vector_loops:
        folds = "".join(f", reduction {op} {sym.name}" for op, sym in shared.reductions)
        lines.append(f"  vector loop: {shared.var.name} (line {shared.var.loc.line}){folds}")
    lines += _schedule(k, plan)
    if plan is not None:
        lines += _locality(kernel_locality(k, plan))
    if k.guard is not None:
        lines.append(f"  guard: {printer.expr(k.guard)}")
    lines.append("  body:")
    lines.extend(printer.stmt(k.body, 2))
    return lines


def _schedule(k: P.Kernel, plan: Optional[P.Plan] = None) -> List[str]:
    """The kernel's schedule and why (once specialized), and a binned body's steps; both
    schedules of a kernel with a variant for lockstep devices."""
    if not k.schedule_why:
        return []
    variant = next((v for v in plan.kernels if v.name == k.lockstep_variant), None) \
        if plan is not None and k.lockstep_variant else None
    if k.variant_of:
        lines = [f"  schedule on a GPU (lockstep) device, in place of {k.variant_of}: "
                 f"{k.schedule} ({k.schedule_why})"]
    elif k.lockstep_variant:
        on_gpu = f"{variant.schedule} ({variant.schedule_why})" if variant is not None \
            else "another schedule"
        lines = [f"  schedule on a GPU (lockstep) device: {on_gpu}, as {k.lockstep_variant}",
                 f"  schedule on other devices: {k.schedule} ({k.schedule_why})"]
    else:
        lines = [f"  schedule: {k.schedule} ({k.schedule_why})"]
    split = k.cooperative
    if split is not None and split.steps:
        lines.append(f"  binned steps: {_steps(split.steps)}")
    return lines


def _steps(steps) -> str:
    """``fold sigma_fold, leader, push``; a branch as ``if (..) else (..)``."""
    words = []
    for step in steps:
        if step.kind == "branch":
            words.append(f"if ({_steps(step.then)}) else ({_steps(step.orelse)})")
        elif step.kind == "fold":
            words.append(f"fold {step.accumulator.name} {step.op}")
        else:
            words.append(step.kind)
    return ", ".join(words)


def _form(form: str) -> str:
    return f" [{form}]" if form else ""


def _target(target: P.Specialization, kernels) -> List[str]:
    """What the specialize stage decided beyond the kernels and the host tree."""
    lines = [f"specialized for {target.backend}"]
    lines += ["  " + line for line in conditional_atomics(kernels, target.capabilities)]
    for loop in target.loop_forms:
        construct = "iterateInBFS" if loop.traversal else "fixedPoint"
        gpu = (f"; on a GPU device: topology ({loop.on_gpu})" if loop.on_gpu else "")
        not_union = f"; no union-find: {loop.union_find}" if loop.union_find else ""
        lines.append(f"  {construct} at line {loop.loc.line}: {loop.form} ({loop.why}){gpu}"
                     f"{not_union}")
    if target.appends:
        each = {"group": "group", "local": "work-group", "gang": "gang"}.get(target.appends,
                                                                          "work item")
        lines.append(f"  worklist appends: one atomic per {each} ({target.appends_why})")
    if target.slack_rows_why:     # (the compact CSR's reason says so itself)
        graph = "rows with slack: " if target.slack_rows else ""
        lines.append(f"  graph updates: {graph}{target.slack_rows_why}")
        if target.slack_rows and target.capabilities.span_moves:
            lines.append(f"  batch moves on the device (span moves): {SPAN_MOVES_WHY}")
        if target.slack_rows:
            order = "any order" if target.unsorted_rows else "sorted"
            lines.append(f"  rows' order: {order} ({target.unsorted_rows_why})")
    distribution = target.distribution
    if distribution is None:
        return lines
    ghost_rows = ("the searched slices of ghost rows (ghosts below its vertices, entries from "
                  "its first vertex up)" if distribution.ghost_row_slices else "ghost rows")
    rows = " and ".join(part for part, wanted in (("in-rows", distribution.reverse),
                                                  (ghost_rows, distribution.ghost_rows))
                        if wanted)
    lines.append(f"  distributed: each rank its own vertices' rows{', ' + rows if rows else ''}")
    except_replicas = ", except the replicas" if distribution.replicas else ""
    order = ("global-id order, then each batch's new ghosts appended"
             if distribution.appended_ghosts else "global-id order")
    lines.append("  local index space: each per-vertex array holds only the vertices the rank "
                 f"knows (its own, its ghosts), by local id in {order}{except_replicas}")
    if distribution.appended_ghosts_why:
        lines.append(f"  new ghosts: {distribution.appended_ghosts_why}")
    for name, why in distribution.replicas.items():
        lines.append(f"  replica (full length, by global id): {name}: {why}")
    if distribution.ghost_edges:
        lines.append("  edge properties read on ghost rows (copies kept there): "
                     + ", ".join(distribution.ghost_edges))
    if distribution.mirrored:
        lines.append("  mirrored: " + ", ".join(f"{name} ({scope})" for name, scope
                                                  in sorted(distribution.mirrored.items())))
    for step in distribution.steps.values():
        refreshed = (f"; then the ghost rows' copies of {', '.join(step.ghost_edges)} "
                     "refreshed from their owners" if step.ghost_edges else "")
        if step.global_:
            lines.append(f"  superstep {step.kernel}: every rank alike, " + (
                "a loop over an update endpoint's row on the row's owner only" + refreshed
                if refreshed else "nothing exchanged"))
            continue
        constants = dict(step.constants)
        parts = [f"{w.array} {w.op}{' after ' + w.primary if w.primary else ''} ({w.at}"
                 + (f", the constant {constants[w.array]!r}, not sent" if w.array in constants
                    else "") + ")"
                 for w in step.updates]
        what = []
        if parts:
            what.append("combined updates " + ", ".join(parts))
        what += [f"{queue} gains the own vertices whose {array} update won"
                 for array, queue, _ in step.queued]
        if step.bounds:
            what.append("ghosts keep the candidates sent, no refresh: " + ", ".join(step.bounds))
        if step.refresh:
            what.append("refresh " + ", ".join(
                f"{name} (every mirror, values only)" if name in step.every else name
                for name in step.refresh))
        if step.scalars:
            what.append("allreduce " + ", ".join(f"{a} ({how})" for a, how in step.scalars))
        lines.append(f"  superstep {step.kernel}: " + ("; ".join(what) or "nothing to exchange")
                     + refreshed)
    return lines


def plan_dump(plan: P.Plan) -> str:
    """The plan as text: arrays (role, copy flags), kernels (signature, guard, body), host."""
    with stack_room():
        return _plan_text(plan, PlanPrinter())


def _plan_text(plan: P.Plan, printer: PlanPrinter) -> str:
    fn = plan.function
    params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
    lines = [f"plan {fn.name}({params})  // {plan.program.filename}"]
    if plan.target is not None:
        lines += _target(plan.target, plan.kernels)
    if plan.parent_values:
        lines += ["", "iterateInBFS parents loops:"]
        lines.extend(f"  line {p.loc.line}: {p.what} ({p.why})" for p in plan.parent_values)
    lines += ["", "arrays:"]
    lines.extend(_array_line(a) for a in plan.arrays)
    for kernel in plan.kernels:
        lines.append("")
        lines.extend(_kernel(kernel, printer, plan))
    if plan.error is not None:
        lines += ["", f"run-time checks (error word {plan.error.site.name}, "
                      f"{plan.error.value.name}):"]
        lines.extend(f"  #{i + 1} {c.kind}{' of ' + c.name if c.name else ''} at {c.loc}"
                     for i, c in enumerate(plan.error.sites))
    lines += ["", "host:"]
    lines.extend(printer.stmt(plan.host, 1))
    return "\n".join(lines) + "\n"
