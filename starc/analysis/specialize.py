"""The specialize stage: the neutral plan made into one backend's plan, each decision as data.

It runs after the backend-neutral passes (``analysis.lower``) and before printing, and reads
only the target's ``Capabilities``. What it decides, and the capability each decision reads:

| decision | recorded as | reads |
|---|---|---|
| a fixedPoint that is minimum-label propagation over every edge: a union-find in its place, or its rounds, and why | the host tree holds the form kept (``union_find.choose_components``); ``LoopForm`` ``union-find`` or ``.union_find`` | ``union_find`` |
| a data-driven fixedPoint's form (worklist or every vertex every round), and why | ``Specialization.loop_forms``; the host tree holds that form only (``frontier.choose_form``) | ``worklists``, ``distributed`` |
| whether a BFS's small levels, and a worklist's small sparse rounds, run in one work-group's rounds (``bfs_rounds``, ``worklist_rounds``: on a device that is not lockstep, a run-time test where the target learns its kind then), or a launch each, and why | the host tree holds the launches kept (``bfs_rounds.choose_rounds``); ``LoopForm.rounds`` | ``group_rounds``, ``lockstep``, ``lockstep_at_run_time`` |
| the MPI distribution: exchanges, mirrors, what each superstep sends | ``Specialization.distribution`` (``analysis.distribution``) | ``distributed`` |
| an ordered triangle count renumbers the graph, or keeps the file's ids and why (then without its swapped-row variant, ``row_swap.drop_swaps``) | ``OrderByDegree.keeps_ids`` | ``renumbers_graph``, ``distributed`` (which ghost rows it reads) |
| how each scalar reduction combines: native object, group fold, one atomic per work item, every update atomic | ``ScalarReduction.strategy``, ``.combine`` | ``native_reductions``, ``native_reductions_in_groups``, ``group_reductions`` |
| how a worklist's appends take their slots (and a dense round counts its flags): one atomic per lockstep group of the work items appending together, one per work-group staging them in local memory, one per gang staging a chunk of items in gang-private memory (not in a binned kernel, whose gang is one vertex), or one per work item, and why | ``QueueAppend.form``, ``QueueCount.per_group``, ``.staged``, ``Specialization.appends``, ``.appends_why`` | ``divergent_exchange``, ``staged_appends``, ``gang_staged_appends``, ``vector_loops``, ``converged_group_functions``, ``lockstep``, ``distributed`` |
| each atomic's form: instruction, directive, result-less update, compare-and-swap loop, plain store, or the work item's private accumulator | ``AtomicReduce.form``, ``AtomicMinMax.form``, ``QueueCount.form`` | ``atomic_*``, ``byte_atomics`` |
| signed arithmetic that must wrap | ``WrappingArith`` (``analysis.wrapping``) | ``wraps_signed`` |
| a forall's work items: one per vertex, one per edge of a push loop, or a work-group per heavy vertex of a pull or of a body of several loops; a worklist round's edges split per work-group | ``Kernel.schedule``, ``Kernel.cooperative``, ``Kernel.vector_loops``, ``Kernel.frontier_edges`` (``analysis.schedules``, ``analysis.binned``, ``analysis.cooperative``, ``analysis.frontier_edges``) | ``lockstep``, ``schedules``, ``sub_group_width``, ``vector_loops``, ``cooperative_bodies``, ``frontier_edges`` |
| on a target that learns its device kind only at run time, a kernel whose auto schedule differs on a lockstep (GPU) device: a variant for that device, launched there instead | ``Kernel.lockstep_variant``, ``Kernel.variant_of`` (``lockstep_variants``) | ``lockstep_at_run_time``, ``lockstep`` |
| a Dynamic program runs (the shared lowering's batch operations) or is refused with E0501; which arrays a graph update refreshes | the refusal; ``ApplyUpdates.graph``, ``.edge_props`` (``batches.refresh_lists``, from the target's final arrays); a batch's adjacent deletions and additions as one update, except on rows with slack (``ApplyUpdates.fused``, ``batches.fuse_updates``) | ``dynamic_graphs`` |
| a Dynamic program's graph in rows with slack (a batch touches only its rows) or a compact CSR, and why | ``Specialization.slack_rows`` / ``slack_rows_why``; the kernels take ``ends`` / ``rev_ends`` (``batches.slack_rows``, ``with_row_ends``) | ``slack_rows`` |
| whether a batch may leave rows with slack in any order (no kernel reads a row as sorted), and why | ``Specialization.unsorted_rows`` / ``unsorted_rows_why`` (``row_order.unsorted_rows``) | none: the same on every backend with ``slack_rows`` |
| how a neighbour loop scans its sorted row: a searched sub-range (hoisted out of enclosing loops where it can be), forward edge cursors | ``Kernel.row_scans``, ``CursorQuery`` (``analysis.row_scans``) | none: the same on every backend |
| how a worklist's sparse round defers the entries past its priority window: the entry's work item appends it again whole (one item an entry), or, where the group splits the entries' edges, gives it no edges; why | ``Kernel.window_why``; ``FrontierEdges.windowed`` | through the schedule: ``lockstep``, ``schedules``, ``frontier_edges`` |
| a fill that the array's next use overwrites whole (a result's zero-fill before a forall that stores every element; an attach's fill before a union-find's), dropped; not on MPI, whose kernels leave a rank's ghosts | the host tree (``dead_fills.drop_dead_fills``) | ``distributed`` |
| whether every work item does the same small work (no loop, search or call), so that CPU runs of items may be long | ``Kernel.uniform_items`` (``uniform_items``) | none: the same on every backend |

Printers print what the specialized plan says and decide nothing of the above; the teaching
views (``starc explain``, ``starc compare``) read the same records.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set

from starc.analysis import plan as P
from starc.analysis import schedules
from starc.analysis.batches import refresh_lists, slack_rows, with_row_ends
from starc.analysis.binned import GROUP_FROM_WITH_WARPS
from starc.analysis.capabilities import Capabilities
from starc.analysis.distribution import DistributionError, distribute
from starc.analysis.dead_fills import drop_dead_fills
from starc.analysis.dynamic import refuse_dynamic_graphs
from starc.analysis.bfs_queue import lockstep_queues
from starc.analysis.bfs_rounds import choose_rounds
from starc.analysis.frontier import DENSE_DIVISOR, choose_form
from starc.analysis.frontier_edges import frontier_edges
from starc.analysis.host_tree import kernels_launched_by, map_blocks, walk_host
from starc.analysis.pushed_values import skip_pushed
from starc.analysis.row_order import unsorted_rows
from starc.analysis.row_scans import scan_rows
from starc.analysis.row_swap import drop_swaps
from starc.analysis.scalar_packs import pack_scalar_reads
from starc.analysis.union_find import RANKS_UNION_FIND_WHY, UNION_FIND_WHY, choose_components
from starc.analysis.wrapping import wrap_arithmetic
from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["specialize", "specialize_kernel", "lockstep_variants", "atomic_form", "append_form",
           "uniform_items", "Capabilities"]

#: why a distributed target runs every fixedPoint over all vertices
_NO_WORKLIST_DISTRIBUTED = ("a worklist of a rank's own vertices (winners received at the "
                            "owner appended, the queue sorted) was "
                            "measured slower on Kronecker 18, and on a 1500x1500 grid at best "
                            "5-30% faster, where the relaxations take the time, not the scan")
_NO_WORKLIST = "{title} kernels cannot append to a queue the next round reads"
#: why an iterateInBFS's small top-down steps walk a queue (``bfs_queue.py``), or do not
_BFS_QUEUE = (f"a top-down step whose frontier holds at most n/{DENSE_DIVISOR} vertices and "
              "out-edges walks a queue of it instead of every vertex's level: O(frontier) "
              "rather than O(n) a step, which is most of the time on a graph of many levels "
              "(a road network)")
_BFS_QUEUE_RANKS = (_BFS_QUEUE + "; each rank queues its own vertices: those its claims "
                    "reach and those other ranks' claims won at it, appended as their updates "
                    "arrive")
#: why a distributed target keeps the file's ids in an ordered triangle count: it renumbers by
#: sending every row to its new owner, and fetches ghost rows again only as searched slices
_KEEPS_IDS_DISTRIBUTED = ("{title} keeps the file's vertex ids: the count reads whole rows of "
                          "other ranks' vertices, which a renumbering would fetch again")
_KEEPS_IDS = "{title} keeps the file's vertex ids: the count is the same in any numbering"
#: why a worklist's appends take one fetch-and-add per group, or one per work item
_APPENDS_GROUP = ("the lanes of a {title} warp exchange values in divergent code, so the lanes "
                  "that reach an append together need one atomic for all, each slot being its "
                  "base plus the number of appending lanes below it")
_APPENDS_LOCAL = ("an append sits in a divergent branch, but every {title} work item reaches "
                  "the kernel's end: each item takes a slot in its work-group's queue in local "
                  "memory (a local atomic), and at the end, after a barrier, the group's first "
                  "item reserves the group's count with one global atomic and the items copy "
                  "the entries out; an append past the local queue's capacity takes a global "
                  "slot of its own")
_APPENDS_GANG = ("an append sits in a divergent branch, but {title}'s gangs can each run a "
                 "chunk of items on their vector lanes and go on after them: each item takes a "
                 "slot in its gang's queue in gang-private memory (an atomic capture), and "
                 "after the vector loop the gang reserves its count with one global atomic and "
                 "a second vector loop copies the entries out; an append past the gang "
                 "queue's capacity takes a global slot of its own (a binned kernel's gang is "
                 "one vertex whose lanes share its neighbour loops: its appends keep one atomic "
                 "each)")
_APPENDS_CONVERGED = ("{title}'s group functions need every work item of the group to reach "
                      "them, and an append sits in a divergent branch: only the items that flip "
                      "a flag append")
#: why a minimum-label propagation keeps its rounds on a target without device CAS
_NO_UNION_FIND = ("{title}'s kernels do not compare-and-swap the ints of a union-find forest "
                  "here (not built), so the labels propagate round by round")
_NO_UNION_FIND_DISTRIBUTED = ("the labels are a full-length replica on every rank (read or "
                              "written at any vertex), where {title}'s runtime joins the "
                              "ranks' union-find forests in their local index spaces, so the "
                              "labels propagate round by round")
_APPENDS_NO_GROUPS = "{title} has no warp intrinsics: its work items run in no lockstep group"
_APPENDS_HOST = ("{title}'s work items are a rank's threads over host memory, in no lockstep "
                 "group")


def specialize(plan: P.Plan, capabilities: Capabilities,
               schedule: Optional[str] = None) -> P.Plan:
    """``plan`` (after every neutral pass) as the backend of ``capabilities`` prints it;
    ``schedule`` is ``--schedule`` (None: ``auto``). Raises ``BackendError`` where the target
    cannot express it (what MPI cannot distribute)."""
    if not capabilities.dynamic_graphs:
        refuse_dynamic_graphs(plan.program, plan.function, capabilities.title)
    neutral = plan
    if not capabilities.wraps_signed:
        plan = wrap_arithmetic(plan)
    plan, union_finds, replaced = choose_components(
        plan, capabilities.union_find,
        (_NO_UNION_FIND_DISTRIBUTED if capabilities.distributed else _NO_UNION_FIND).format(
            title=capabilities.title),
        None if capabilities.lockstep_at_run_time else capabilities.lockstep,
        capabilities.distributed)
    specialized = tuple(specialize_kernel(k, capabilities, schedule) for k in plan.kernels)
    # (the kernels of a loop a union-find replaced: specialized for the teaching views only)
    kernels = tuple(k for k in specialized if k.name not in replaced)
    variants = lockstep_variants(tuple(k for k in plan.kernels if k.name not in replaced),
                                 kernels, capabilities, schedule)
    kernels = tuple(dataclasses.replace(k, lockstep_variant=variants[k.name].name)
                    if k.name in variants else k for k in kernels)
    plan = _with_kernels(plan, kernels)
    kernels += tuple(k for k in specialized if k.name in replaced)
    plan, one_lane, at_run_time = lockstep_queues(plan, capabilities, variants)
    forms = _loop_forms(plan, capabilities, one_lane, at_run_time, union_finds)
    grouped = _frontier_rounds(plan)
    plan = choose_form(plan, worklist=capabilities.worklists,
                       topology_at=frozenset() if at_run_time else frozenset(one_lane),
                       ranks=capabilities.distributed)
    plan, rounds, frontier_rounds = choose_rounds(
        plan, capabilities, frozenset(name for names in grouped.values() for name in names))
    forms = tuple(dataclasses.replace(f, rounds=rounds) if f.traversal and
                  f.form == "worklist" and rounds else
                  dataclasses.replace(f, rounds=frontier_rounds) if f.loc in grouped and
                  f.form == "worklist" else f for f in forms)
    plan = _with_variants(plan, variants, capabilities)
    plan = skip_pushed(plan, variants, capabilities)
    plan = _with_kernels(plan, plan.kernels)    # the launches of the kernels it rewrote
    distribution = _distribute(plan, capabilities) if capabilities.distributed else None
    if distribution is not None and capabilities.union_find and any(
            isinstance(s, P.LeastLabels) and s.labels.name in distribution.replicas
            for s in walk_host(plan.host)):
        # the runtime's least labels work in the ranks' local index space
        return specialize(neutral, dataclasses.replace(capabilities, union_find=False),
                          schedule)
    plan = dataclasses.replace(plan, host=_order(plan, capabilities, distribution))
    if distribution is not None:    # the kernels in the ranks' local index space
        plan = _with_kernels(plan, distribution.kernels)
    if any(isinstance(s, P.OrderByDegree) and s.keeps_ids for s in walk_host(plan.host)):
        plan = drop_swaps(plan)     # the graph is never known simple: the count as written
    slack, slack_why = slack_rows(plan, capabilities)
    if slack:
        # a kernel over edge ids now tests its slot's source: no longer a variant's alone
        plan = _taken_on_every_device(_with_kernels(plan, with_row_ends(plan.kernels)))
    # the arrays a graph update refreshes, from the target's final list (a schedule may add
    # or drop graph arrays: binned orders, the reverse CSR of a pull turned push); adjacent
    # updates fused, except on rows with slack, which refresh only the slots each update
    # wrote (O(batch) each) and whose additions' moves start from the slots the deletions
    # left: one refresh for both would compose the two on the device
    plan = dataclasses.replace(plan, host=refresh_lists(plan.host, plan.arrays, plan.kernels,
                                                        slack,
                                                        slack and capabilities.span_moves,
                                                        distribution, fuse=not slack))
    if not capabilities.distributed:    # (a rank's kernels write its own vertices only)
        plan = dataclasses.replace(plan, host=drop_dead_fills(plan.host))
    appends, appends_why = "", ""
    # told where a printed kernel appends (none where every fixedPoint tests all vertices)
    if any(isinstance(node, P.QueueAppend) for k in plan.kernels for node in ir.walk(k.body)):
        appends, appends_why = append_form(capabilities)
    packs = ()
    if not capabilities.distributed:    # a rank's scalars are host memory: nothing to copy
        plan, packs = pack_scalar_reads(plan)
    scanned = tuple(scan_rows(k) for k in plan.kernels)
    unsorted, unsorted_why = unsorted_rows(scanned, slack)
    return dataclasses.replace(plan, kernels=scanned,
                               target=P.Specialization(capabilities.backend, capabilities,
                                                       forms, distribution, kernels,
                                                       appends, appends_why, slack,
                                                       slack_why, packs, unsorted,
                                                       unsorted_why))


def lockstep_variants(neutral, kernels, capabilities: Capabilities,
                      schedule: Optional[str] = None) -> Dict[str, P.Kernel]:
    """Where the target learns its device kind only at run time
    (``Capabilities.lockstep_at_run_time``) and auto chooses: each kernel of ``neutral``
    whose schedule on a lockstep device differs from its specialized form in ``kernels``,
    specialized for that device and named apart (``Kernel.variant_of``), by the name of the
    kernel it stands in for. Where they agree the kernel keeps one form, as it prints today."""
    if not capabilities.lockstep_at_run_time or capabilities.lockstep or \
            schedule not in (None, "auto"):
        return {}
    lockstep = dataclasses.replace(capabilities, lockstep=True)
    names = {k.name for k in kernels}
    variants = {}
    for original, kernel in zip(neutral, kernels):
        variant = specialize_kernel(original, lockstep, schedule)
        if variant.schedule == kernel.schedule:
            continue
        name = f"{kernel.name}_lockstep"
        while name in names:
            name += "_"
        names.add(name)
        variants[kernel.name] = dataclasses.replace(variant, name=name,
                                                    variant_of=kernel.name)
    return variants


def _with_variants(plan: P.Plan, variants: Dict[str, P.Kernel],
                   capabilities: Capabilities) -> P.Plan:
    """``plan`` with the ``variants`` of the kernels it kept (after ``choose_form``); with none
    where they would cost the other devices rows with slack (a binned variant's degree order
    needs a compact CSR): a Dynamic program's batches then keep touching only their rows."""
    kept = {k.name for k in plan.kernels}
    extra = tuple(v for name, v in variants.items() if name in kept)
    if not extra:
        return plan
    with_variants = _with_kernels(plan, plan.kernels + extra)
    if slack_rows(with_variants, capabilities)[0] or not slack_rows(plan, capabilities)[0]:
        return _lockstep_only(with_variants)
    return _with_kernels(plan, tuple(dataclasses.replace(k, lockstep_variant="")
                                     for k in plan.kernels))


def _lockstep_only(plan: P.Plan) -> P.Plan:
    """``plan`` with the graph arrays that only variants take marked ``lockstep_only``, so
    that another device neither builds nor copies them, nor refreshes them after a graph
    update (a Dynamic program's: ``ApplyUpdates.graph`` lists them, marked)."""
    taken = _taken_by_kernels(plan)
    return dataclasses.replace(plan, arrays=tuple(
        dataclasses.replace(a, lockstep_only=True)
        if a.role == "graph" and a.name not in taken else a for a in plan.arrays))


def _taken_on_every_device(plan: P.Plan) -> P.Plan:
    """``plan`` with the graph arrays that a kernel other than a variant now takes no
    longer ``lockstep_only`` (a kernel's later rewrites may add some)."""
    taken = _taken_by_kernels(plan)
    return dataclasses.replace(plan, arrays=tuple(
        dataclasses.replace(a, lockstep_only=False)
        if a.lockstep_only and a.name in taken else a for a in plan.arrays))


def _taken_by_kernels(plan: P.Plan) -> Set[str]:
    """The arrays the kernels that run on every device (not a lockstep variant) take."""
    return {p.array.name for k in plan.kernels if not k.variant_of for p in k.params
            if p.array is not None}


def append_form(capabilities: Capabilities):
    """How a worklist append takes its slot on this target (``QueueAppend.form``: ``group``
    (a lockstep group's lanes together), ``local`` (staged per work-group), ``gang`` (staged
    per gang, over a chunk of items) or ``item``), and why."""
    if capabilities.lockstep and capabilities.divergent_exchange:
        why = _APPENDS_GROUP
    elif capabilities.staged_appends:
        why = _APPENDS_LOCAL
    elif capabilities.gang_staged_appends:
        why = _APPENDS_GANG
    elif capabilities.converged_group_functions:
        why = _APPENDS_CONVERGED
    elif capabilities.distributed:
        why = _APPENDS_HOST
    else:
        why = _APPENDS_NO_GROUPS
    form = {_APPENDS_GROUP: "group", _APPENDS_LOCAL: "local", _APPENDS_GANG: "gang"}.get(
        why, "item")
    return form, why.format(title=capabilities.title)


def atomic_form(capabilities: Capabilities, op: str, elem: Scalar, result_used: bool) -> str:
    """The form of an atomic ``op`` (``add`` ... ``max``) on ``elem``: ``plain`` (a bool
    and/or: a conditional store every writer agrees on), ``update`` (a result-less form, where
    the old value is unused), ``directive``, ``native`` or ``loop`` (compare-and-swap)."""
    if elem is Scalar.BOOL and op in ("and", "or") and not capabilities.byte_atomics:
        return "plain"
    family = _family(op, elem)
    if not result_used and family in capabilities.atomic_updates:
        return "update"
    if family in capabilities.atomic_directives:
        return "directive"
    return "native" if family in capabilities.atomic_instructions else "loop"


def _family(op: str, elem: Scalar):
    return (op, Scalar.INT if elem in (Scalar.NODE, Scalar.EDGE) else elem)


def conditional_atomics(kernels, capabilities: Capabilities) -> List[str]:
    """Each native atomic the kernels use that is a compare-and-swap loop on some
    implementations of the target, with where (``Capabilities.atomic_fallbacks``): for
    ``--emit plan``."""
    fallbacks = dict(capabilities.atomic_fallbacks)
    found = []
    for kernel in kernels:
        for node in ir.walk(kernel.body):
            if isinstance(node, (P.AtomicReduce, P.AtomicMinMax)) and node.form == "native":
                op = P.ATOMIC_OPS[node.op if isinstance(node, P.AtomicReduce) else node.func]
                family = _family(op, _element(node.target))
                line = f"atomic {op} on {family[1]}: an instruction (a compare-and-swap loop " \
                       f"{fallbacks[family]})" if family in fallbacks else None
                if line and line not in found:
                    found.append(line)
    return found


# --- kernels -----------------------------------------------------------------------------------

def specialize_kernel(kernel: P.Kernel, capabilities: Capabilities,
                      schedule: Optional[str] = None) -> P.Kernel:
    """``kernel`` with each scalar reduction's strategy, each atomic's form and its schedule
    chosen (the kernel part of ``specialize``, which also marks wrapping arithmetic first)."""
    kernel = _schedule(kernel, capabilities, schedule)
    # (a kernel whose appends a work-group stages runs in work-groups too)
    grouped = kernel.frontier_edges is not None or \
        (kernel.schedule == "binned" and not capabilities.vector_loops) or \
        (capabilities.staged_appends and any(isinstance(node, (P.QueueAppend, P.QueueCount))
                                             for node in ir.walk(kernel.body)))
    reductions = tuple(_reduction(red, capabilities, grouped) for red in kernel.reductions)
    accumulated = {red.sym.uid for red in reductions if red.strategy != "atomic"}
    appends = append_form(capabilities)[0]
    if kernel.extent == "group":
        appends = "item"        # the next round reads them: no staging to the kernel's end
    if appends == "gang" and kernel.schedule == "binned" and capabilities.vector_loops:
        appends = "item"        # the gang is one vertex: no chunk of items to stage

    def form(node: ir.Node):
        if isinstance(node, (P.AtomicReduce, P.AtomicMinMax)) and \
                isinstance(node.target, ir.VarRef) and node.target.sym.uid in accumulated:
            return dataclasses.replace(node, form="private")
        if isinstance(node, P.AtomicReduce):
            return dataclasses.replace(node, form=atomic_form(
                capabilities, P.ATOMIC_OPS[node.op], _element(node.target), False))
        if isinstance(node, P.AtomicMinMax):
            used = bool(node.others or node.then or node.locked)
            return dataclasses.replace(node, form=atomic_form(
                capabilities, P.ATOMIC_OPS[node.func], _element(node.target), used))
        if isinstance(node, P.QueueAppend):
            return dataclasses.replace(node, form=appends)
        if isinstance(node, P.QueueCount):
            return dataclasses.replace(node, form=atomic_form(capabilities, "add", Scalar.INT,
                                                              False),
                                       per_group=appends in ("group", "local", "gang"),
                                       staged=appends in ("local", "gang"))
        return None

    kernel = dataclasses.replace(kernel, body=ir.transform(kernel.body, form),
                                 reductions=reductions)
    kernel = dataclasses.replace(kernel, uniform_items=uniform_items(kernel))
    if kernel.schedule == "binned" and capabilities.vector_loops:
        # every vertex's loop on its gang's lanes: no split by degree, no binned order
        return dataclasses.replace(kernel, vector_loops=schedules.vector_loops(kernel))
    if kernel.schedule == "binned":
        # split the body as it now is (atomic forms chosen)
        cooperative = schedules.binned_split(kernel, capabilities)[0]
        if capabilities.sub_group_width:
            cooperative = dataclasses.replace(
                cooperative, tiers=("item", "warp", "group"),
                warp_from=schedules.warp_from(capabilities.sub_group_width),
                group_from=GROUP_FROM_WITH_WARPS)
        kernel = schedules.with_graph_array(
            dataclasses.replace(kernel, cooperative=cooperative), cooperative.order)
    return kernel


#: what makes one work item's work depend on its data: a loop, a search of a row
#: (``is_an_edge``, ``get_edge``, an edge cursor), a call of another function
#: (a union-find's link retries from roots another link moved: AdaptiveCpp ran cc's sampled
#: links on a grid 4x slower in runs of 1,024 items than of 64. A find alone stays: after the
#: links its paths are short)
_VARYING_WORK = (ir.Loop, ir.While, ir.DoWhile, ir.CallExpr, P.CursorQuery, P.UnionFindLink,
                 P.UnionFindSample)
_SEARCHES = ("is_an_edge", "get_edge")


def uniform_items(kernel: P.Kernel) -> bool:
    """Whether every work item of ``kernel`` does the same small work: its guard and body
    hold no loop, row search, call or lock to wait for (``Kernel.uniform_items``)."""
    nodes = list(ir.walk(kernel.body)) + (list(ir.walk(kernel.guard)) if kernel.guard else [])
    return not any(isinstance(node, _VARYING_WORK) or
                   (isinstance(node, ir.GraphQuery) and node.op in _SEARCHES) or
                   (isinstance(node, P.AtomicMinMax) and node.locked) for node in nodes)


#: how a worklist's sparse round defers the entries past its priority window, by schedule
_WINDOW_KEPT = ("one work item runs each entry, so an entry past the window is appended again "
                "whole")
_WINDOW_SPLIT = ("its work-group splits the entries' edges: the item of an entry past the "
                 "window appends it again and gives it no edges, so the group walks only the "
                 "edges of the entries below the window")


def _schedule(kernel: P.Kernel, capabilities: Capabilities, forced: Optional[str]) -> P.Kernel:
    if kernel.extent == "group":      # its items stride over each round's entries themselves
        return kernel
    chosen = _chosen_schedule(kernel, capabilities, forced)
    if chosen.window is None:
        return chosen
    return dataclasses.replace(chosen, window_why=(
        _WINDOW_SPLIT if chosen.frontier_edges is not None else _WINDOW_KEPT))


def _chosen_schedule(kernel: P.Kernel, capabilities: Capabilities,
                     forced: Optional[str]) -> P.Kernel:
    if forced not in (None, "auto") and forced not in capabilities.schedules:
        return dataclasses.replace(kernel, schedule_why=(
            f"--schedule {forced} asked, but {capabilities.title} prints one work item per "
            "vertex"))
    schedule, why = schedules.choose(kernel, capabilities, forced)
    if schedule == "edges" and kernel.extent == "frontier":
        return dataclasses.replace(kernel, schedule=schedule, schedule_why=why,
                                   frontier_edges=frontier_edges(kernel)[0])
    if schedule == "edges":
        loops, _ = schedules.push_loops(kernel)
        return schedules.by_edges(kernel, loops, why)
    if schedule == "binned":       # a fold into the vertex's property: into a local first
        kernel = schedules.with_local_folds(schedules.local_fold(kernel))
    return dataclasses.replace(kernel, schedule=schedule, schedule_why=why)


def _with_kernels(plan: P.Plan, kernels) -> P.Plan:
    """``plan`` with ``kernels`` (specialized, by name) in place of its own, in the host tree's
    launches too, and with the graph arrays they take allocated."""
    by_name = {k.name: k for k in kernels}

    def relaunch(block: P.HostBlock) -> P.HostBlock:
        stmts = []
        for stmt in block.stmts:
            if isinstance(stmt, P.Launch):
                stmt = dataclasses.replace(stmt, kernel=by_name.get(stmt.kernel.name,
                                                                    stmt.kernel))
            elif isinstance(stmt, P.BFSLoop):
                stmt = dataclasses.replace(stmt, **{
                    f: by_name.get(k.name, k)
                    for f in ("forward", "bottom_up", "pending", "expand", "reverse")
                    for k in [getattr(stmt, f)] if k is not None})
            stmts.append(map_blocks(stmt, relaunch))
        return dataclasses.replace(block, stmts=tuple(stmts))

    arrays = list(plan.arrays)
    names = {a.name for a in arrays}
    for kernel in kernels:
        for param in kernel.params:
            if param.array is not None and param.array.role == "graph" and \
                    param.array.name not in names:
                arrays.append(param.array)
                names.add(param.array.name)
    order = list(P.GRAPH_ARRAYS)
    graph = sorted((a for a in arrays if a.role == "graph"), key=lambda a: order.index(a.name))
    arrays = graph + [a for a in arrays if a.role != "graph"]
    return dataclasses.replace(plan, kernels=kernels, host=relaunch(plan.host),
                               arrays=tuple(arrays))


def _element(target: ir.Expr) -> Scalar:
    return target.prop.type.elem if isinstance(target, ir.PropRead) else target.sym.type


def _reduction(red: P.ScalarReduction, capabilities: Capabilities,
               grouped: bool = False) -> P.ScalarReduction:
    """``red``'s strategy; ``grouped``: in a kernel whose work-groups share local memory."""
    elem = red.sym.type
    if not red.private:
        strategy = "atomic"
    elif red.op in capabilities.native_reductions and \
            (capabilities.native_reductions_in_groups or not grouped):
        strategy = "native"
    elif (red.op, elem) in capabilities.group_reductions:
        strategy = "group"
    else:
        strategy = "private"
    combine, wrap = "", False
    if strategy in ("group", "private"):
        combine = atomic_form(capabilities, P.ATOMIC_OPS[red.op], elem, False)
        wrap = not capabilities.wraps_signed and elem in (Scalar.INT, Scalar.LONG) and \
            red.op in ("+", "-", "*")
    return dataclasses.replace(red, strategy=strategy, combine=combine, wrap=wrap)


# --- the host tree ------------------------------------------------------------------------------

def _loop_forms(plan: P.Plan, capabilities: Capabilities, one_lane: Dict,
                at_run_time: bool, union_finds=()) -> tuple:
    """Each data-driven loop's form and why; ``one_lane``: the BFS loops whose steps on a
    GPU stay dense, and why, on every device or only on one found lockstep at run time
    (``bfs_queue.lockstep_queues``); ``union_finds``: the loops that may run as a union-find,
    with why not ("": they do, ``choose_components``)."""
    not_union_find = {loc: why for loc, why in union_finds if why}
    spliced = RANKS_UNION_FIND_WHY if capabilities.distributed else UNION_FIND_WHY
    forms: List[P.LoopForm] = [P.LoopForm(loc, "union-find", spliced)
                               for loc, why in union_finds if not why]
    for stmt in walk_host(plan.host):
        if not isinstance(stmt, P.DataDrivenLoop) or stmt.seed:
            continue
        if capabilities.worklists and stmt.traversal and stmt.loc in one_lane:
            if not at_run_time:
                forms.append(P.LoopForm(stmt.loc, "topology", one_lane[stmt.loc],
                                        traversal=True))
            else:
                forms.append(P.LoopForm(stmt.loc, "worklist", _BFS_QUEUE, traversal=True,
                                        on_gpu=one_lane[stmt.loc]))
        elif capabilities.worklists and stmt.traversal:
            forms.append(P.LoopForm(stmt.loc, "worklist", _BFS_QUEUE, traversal=True))
        elif capabilities.distributed and stmt.traversal and stmt.ranks is not None:
            forms.append(P.LoopForm(stmt.loc, "worklist", _BFS_QUEUE_RANKS, traversal=True))
        elif capabilities.worklists:
            first = f"; its first queue {stmt.first_queue}" if stmt.first_queue else ""
            forms.append(P.LoopForm(stmt.loc, "worklist", "the flag marks the changed "
                                    "vertices, so a round visits only those" + first))
        else:
            why = _NO_WORKLIST_DISTRIBUTED if capabilities.distributed else _NO_WORKLIST
            forms.append(P.LoopForm(stmt.loc, "topology", why.format(title=capabilities.title),
                                    traversal=stmt.traversal))
    return tuple(dataclasses.replace(f, union_find=not_union_find[f.loc])
                 if f.loc in not_union_find else f for f in forms)


def _frontier_rounds(plan: P.Plan) -> Dict:
    """The fixedPoints whose worklist form launches a kernel of one work-group's rounds
    (``worklist_rounds``), by location: those kernels' names."""
    found = {}
    for stmt in walk_host(plan.host):
        if isinstance(stmt, P.DataDrivenLoop) and not stmt.traversal and not stmt.seed:
            names = [k.name for s in walk_host(stmt.worklist) for k in kernels_launched_by(s)
                     if k.extent == "group"]
            if names:
                found[stmt.loc] = names
    return found


def _order(plan: P.Plan, capabilities: Capabilities, distribution) -> P.HostBlock:
    """Every ``OrderByDegree`` told whether the target renumbers (``keeps_ids`` empty), and
    which renumbered arrays it copies (the edges' sources too where a kernel reads them). A
    distributed target renumbers by redistributing the rows (MPI: ``order_by_degree`` in
    starc_mpi_degree_order.hpp) where the kernels read no ghost rows or only their searched
    slices (``Distribution.ghost_row_slices``)."""
    whole_rows = distribution is not None and distribution.ghost_rows \
        and not distribution.ghost_row_slices
    if capabilities.renumbers_graph and not whole_rows:
        sources = next((a for a in plan.arrays if a.role == "graph" and a.name == "sources"),
                       None)
        change = dict(sources=sources)
    else:
        change = dict(keeps_ids=(_KEEPS_IDS_DISTRIBUTED if capabilities.distributed
                                 else _KEEPS_IDS).format(title=capabilities.title))

    def rewrite(inner: P.HostBlock) -> P.HostBlock:
        stmts = tuple(dataclasses.replace(map_blocks(s, rewrite), **change)
                      if isinstance(s, P.OrderByDegree) else map_blocks(s, rewrite)
                      for s in inner.stmts)
        return dataclasses.replace(inner, stmts=stmts)
    return rewrite(plan.host)


def _distribute(plan: P.Plan, capabilities: Capabilities):
    try:
        return distribute(plan)
    except DistributionError as exc:
        raise BackendError(f"the {capabilities.title} backend cannot distribute this program: "
                           f"{exc}", exc.loc, hint="the other backends run it; what "
                           f"{capabilities.title} distributes is listed in "
                           "docs/architecture.md (MPI)") from None
