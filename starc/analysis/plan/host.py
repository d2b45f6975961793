"""The plan's host side: control flow over host scalars and the abstract device operations."""

from __future__ import annotations

from dataclasses import field
from typing import Optional, Tuple

from starc.analysis.plan.kernels import DeviceArray, Kernel, PriorityWindow
from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.records import Record, record


@record
class HostStmt(Record):
    loc: SourceLoc = field(default=NO_LOC, compare=False, repr=False, kw_only=True)


@record
class HostBlock(HostStmt):
    stmts: Tuple[HostStmt, ...]


@record
class HostDeclare(HostStmt):
    sym: ir.Symbol
    init: Optional[ir.Expr] = None


@record
class HostAssign(HostStmt):
    sym: ir.Symbol
    value: ir.Expr


@record
class HostReduce(HostStmt):
    sym: ir.Symbol
    op: str
    value: ir.Expr


@record
class HostIf(HostStmt):
    cond: ir.Expr
    then: HostBlock
    orelse: Optional[HostBlock] = None


@record
class HostWhile(HostStmt):
    cond: ir.Expr
    body: HostBlock


@record
class HostDoWhile(HostStmt):
    body: HostBlock
    cond: ir.Expr


@record
class HostForSet(HostStmt):
    """``for (v in S)`` over a SetN parameter, on the host."""

    var: ir.Symbol
    set: ir.Symbol
    body: HostBlock


@record
class HostForRange(HostStmt):
    """``for (int var = first; var <= last; var += step)`` on the host (``>=`` when ``step``
    is negative); ``first`` and ``last`` are evaluated once. Made by ``expand_bfs``."""

    var: ir.Symbol
    first: ir.Expr
    last: ir.Expr
    step: int
    body: HostBlock


@record
class CheckErrors(HostStmt):
    """Read the device error word (``Plan.error``); if a kernel check failed, stop with that
    check's message and the reference's exit status. Placed by ``control.place_checks``."""


@record
class HostReturn(HostStmt):
    value: Optional[ir.Expr] = None


@record
class HostBreak(HostStmt):
    pass


@record
class HostContinue(HostStmt):
    pass


@record
class Launch(HostStmt):
    """Run ``kernel`` over its extent. ``scalar_args`` binds each ``KernelScalar`` name to a host
    expression. For each ``kernel.reductions`` entry the host writes the scalar's current value
    to its device array before the launch and reads the result back into the scalar after."""

    kernel: Kernel
    scalar_args: Tuple[Tuple[str, ir.Expr], ...] = ()


@record
class Fill(HostStmt):
    """Set every element of ``array`` to ``value`` (a host expression) on the device."""

    array: DeviceArray
    value: ir.Expr


@record
class CopyArray(HostStmt):
    """Device-to-device copy of every element (``dst = src`` for properties)."""

    dst: DeviceArray
    src: DeviceArray


@record
class SwapArrays(HostStmt):
    """Exchange the storage of two arrays of the same shape (double buffering).
    ``instead_of_copy``: it stands for the DSL's ``a = b`` (``swap.swap_copies``), which a
    swap may replace when nothing reads ``b`` before rewriting all of it."""

    a: DeviceArray
    b: DeviceArray
    instead_of_copy: bool = False


@record
class WriteElement(HostStmt):
    """``array[index] = value`` from the host (``src.dist = 0``): a single-value copy."""

    array: DeviceArray
    index: ir.Expr
    value: ir.Expr


@record
class ToDevice(HostStmt):
    """Write host scalar ``sym`` into one-value array ``array``."""

    array: DeviceArray
    sym: ir.Symbol


@record
class FromDevice(HostStmt):
    """Read one-value array ``array`` back into host scalar ``sym``."""

    array: DeviceArray
    sym: ir.Symbol


@record
class ScalarPack(Record):
    """One device block holding one-value arrays that the host reads back together (the
    specialize stage's ``scalar_packs``): ``members[i]`` lives in slot ``i``, each slot 8
    bytes or the device's base address alignment if larger (OpenCL sub-buffers), so one copy
    of the block reads every member."""

    name: str
    members: Tuple[DeviceArray, ...]


@record
class FromDeviceMany(HostStmt):
    """Read one-value arrays ``arrays`` (all members of ``pack``) back into host scalars
    ``syms``, pairwise, with one copy of the whole block: the consecutive ``FromDevice``s after
    a launch that carries several scalars back."""

    pack: ScalarPack
    arrays: Tuple[DeviceArray, ...]
    syms: Tuple[ir.Symbol, ...]


@record
class ReadSlots(HostStmt):
    """Read the first ``len(syms)`` elements of ``array`` back into host scalars ``syms``,
    pairwise, with one copy (the state a kernel of rounds leaves: ``bfs_rounds``)."""

    array: DeviceArray
    syms: Tuple[ir.Symbol, ...]


@record
class LeastLabels(HostStmt):
    """Each vertex's ``labels`` element becomes the least any vertex of its weakly connected
    component held: what a minimum-label propagation over both directions of every edge
    leaves (``union_find``), on a distributed target by its runtime, a union-find of each
    rank's edges whose trees the ghosts join (MPI: ``starc_mpi_components.hpp``)."""

    labels: DeviceArray


@record
class OrderByDegree(HostStmt):
    """Renumber the vertices by degree (ascending, ties by id) and replace the device CSR
    (``offsets``, ``targets``: rows sorted by the new ids) with the renumbered graph, when the
    graph is symmetric without repeated edges and, unless the program's ``--degree-order``
    option says ``always`` or ``never``, skewed. Placed by ``degree_order.order_by_degree``
    only where no result can tell the ids (the ordered triangle count); it runs inside the
    timed span, as GAPBS times its relabelling inside its kernel. MPI renumbers by sending
    every row to its new owner (where the count reads no whole ghost rows); a backend that
    cannot renumber keeps the ids, and the count is the same."""

    offsets: DeviceArray
    targets: DeviceArray
    #: (the specialize stage) why the target keeps the file's ids instead ("": it renumbers)
    keeps_ids: str = ""
    #: (the specialize stage) the edges' sources, renumbered too where a kernel over the
    #: edges reads them (``analysis.schedules``)
    sources: Optional[DeviceArray] = None


@record
class BatchLoop(HostStmt):
    """``Batch (stream : size) body`` (issue 31): ``body`` once per batch of ``size`` lines of
    the update stream, in order; ``first``/``last`` (host scalars) are the batch's lines
    ``[first, last)``, which ``ApplyUpdates`` and ``UpdateLoop`` take their updates from. The
    host keeps the stream (read from ``--updates FILE`` before the clock starts) and a size
    below 1 stops the run with the reference's message."""

    stream: ir.Symbol
    size: ir.Expr
    first: ir.Symbol
    last: ir.Symbol
    body: HostBlock
    #: the fills at the top of ``body`` that changed nothing, with why (``loop_fills``)
    dropped_fills: Tuple[Tuple["Fill", str], ...] = ()


#: an update whose edges outgrow the device's edge arrays reallocates them with room for
#: 1/EDGE_ROOM more edges, so that the batches after it (as many additions as deletions,
#: give or take) reallocate rarely; until then each update only uploads (``ApplyUpdates``)
EDGE_ROOM = 16


@record
class ApplyUpdates(HostStmt):
    """``g.updateCSRDel(stream)`` / ``g.updateCSRAdd(stream)`` (``kind`` ``delete`` / ``add``) in
    a ``BatchLoop`` (its ``first``/``last``): the host graph's CSR and reverse CSR change in place (the runtime's
    ``starc::delete_edges`` / ``add_edges``), then the device copies are refreshed: ``graph``
    (every CSR array the plan lists) uploaded whole again, and ``edge_props`` (every array of
    an edge property) carried to the new edge ids (an added edge: the update's weight in a
    ``weight`` array, zero elsewhere), reallocated when the edges outgrow the arrays'
    capacity (with room for more: ``EDGE_ROOM``), and uploaded. ``read_back``: the
    ``edge_props`` whose device copy may differ from the host's (a kernel or host statement
    writes them), read back before the edge ids change; the others (input weights nothing
    writes) are carried from their host copy, which is current. ``reverse_ids``: the host
    keeps the reverse CSR's edge ids (the device reads them: ``rev_edge_ids`` is a graph
    array); without them the reverse rows change by moving spans, with no per-entry
    renumbering. A whole-array refresh: its cost is O(n + m) transfers per batch."""

    kind: str
    stream: ir.Symbol
    first: ir.Symbol
    last: ir.Symbol
    graph: Tuple[DeviceArray, ...]
    edge_props: Tuple[DeviceArray, ...]
    read_back: Tuple[DeviceArray, ...] = ()
    reverse_ids: bool = True
    #: the graph is in rows with slack (``Specialization.slack_rows``): the batch moves only
    #: the rows it touches, and the device copies are refreshed in the slot ranges it wrote
    slack_rows: bool = False
    #: with ``slack_rows``: the batch's moves (a deletion's shifted spans, a row moved to
    #: fresh room) are uploaded as records and applied on the device by one kernel pair per
    #: slot array (``batches.SPAN_MOVES_WHY``); only the slots the batch itself wrote (added
    #: edges) are packed and scattered
    span_moves: bool = False
    #: a distributed run (MPI): each rank applies the batch to the rows it owns and lays its
    #: part out again (``batches.DISTRIBUTED_WHY``); ``local_arrays``, the per-vertex arrays in
    #: the ranks' local index space, carry their own vertices' values to the new local ids and
    #: take their ghosts' from the owners; ``edge_props`` (input weights only) are read from
    #: the rebuilt rows
    distributed: bool = False
    local_arrays: Tuple[DeviceArray, ...] = ()
    #: the input edge properties the host reads (``minWt``/``maxWt``) that no device array
    #: holds: their host vectors follow the edges too (an added edge: the update's weight;
    #: MPI: the rebuilt rows' weights), nothing uploaded (``batches.host_read_weights``)
    host_weights: Tuple[ir.Symbol, ...] = ()
    #: with ``kind`` ``delete``: the program's ``updateCSRAdd`` of the same batch came right
    #: after, and this one statement applies the deletions then the additions, the device
    #: copies refreshed (on MPI: the part laid out) once for both; why
    #: (``batches.fuse_updates``); "": one kind
    fused: str = ""

    @property
    def kinds(self) -> Tuple[str, ...]:
        """The kinds of update applied, in order: ``("delete", "add")`` when ``fused``."""
        return ("delete", "add") if self.fused else (self.kind,)


@record
class UpdateLoop(HostStmt):
    """``forall (u in stream.currentBatch(...))`` (``OnDelete``, ``OnAdd``) in a ``BatchLoop``:
    the batch's updates of ``kind`` (``delete``, ``add``; ``all``: both) uploaded to the
    one-update-per-element arrays ``fields`` (field name -> array, extent ``updates``), their
    number in host scalar ``count``, then ``body`` (the launch of the kernel over them, extent
    ``frontier`` with ``count`` items) when there is any."""

    kind: str
    stream: ir.Symbol
    first: ir.Symbol
    last: ir.Symbol
    fields: Tuple[Tuple[str, DeviceArray], ...]
    count: ir.Symbol
    body: HostBlock


@record
class FixedPointLoop(HostStmt):
    """``fixedPoint until (flag : !prop)`` with double-buffered flags::

        flag_var = False
        do {
            device flag = 0;  Fill(next, False)
            body                          (kernels read ``current``, write ``next`` + FlagSet)
            SwapArrays(current, next)
        } while (device flag != 0  ||  !flag_var-forced)    -- see ``forced``
        flag_var = True

    ``current`` is the property's array, ``next`` its next-iteration buffer, ``flag`` the
    one-value device flag read back once per iteration. ``forced`` is True when the body may
    assign ``flag_var = False`` on the host to force another iteration. For the general form
    (``prop`` None in the IR) the analyses emit a ``HostDoWhile`` instead.
    """

    flag_var: ir.Symbol
    current: DeviceArray
    next: DeviceArray
    flag: DeviceArray
    body: HostBlock
    forced: bool = False
    worklist: Optional["Worklist"] = None
    topology_why: str = ""

    # ``worklist`` (the ``frontier`` pass): the loop may run data-driven; ``topology_why``
    # says why it may not (shown by ``--emit plan`` and ``starc explain``).


@record
class Worklist(Record):
    """How a ``FixedPointLoop`` runs data-driven (``frontier.worklists``).

    Before a sparse round ``queue`` lists exactly the vertices whose ``current`` flag is set
    (built from the flags by ``build``, a kernel over nodes, at the start and after a dense
    round); sparse kernels append each vertex whose next flag they set to ``next_queue``, once
    per round: ``stamp[w]`` holds the last round that queued ``w`` and an atomic max of the
    round number picks the one appender. ``size`` is the append counter, two slots used by
    alternate rounds (``frontier.length_slot``); dense kernels only count in it the flags they
    flip (``QueueCount``). ``launches``: for each
    launch of the body, the ``(dense, sparse)`` variants: ``dense`` over all nodes, filtered
    as before; ``sparse`` (extent ``"frontier"``) one work item per queue entry. ``clear`` (extent ``"frontier"``)
    resets the next flags the last queue set instead of filling all of them; None where the
    round's one sparse kernel clears its own entries' flags as its last statement (a launch
    fewer a sparse round: ``_Builder.clears_own_flags``).
    ``count``/``round`` are host scalars: the queue's length and the round number, passed to
    the kernels as the ``KernelScalar``s ``FRONTIER_COUNT``/``FRONTIER_ROUND``; ``graph``
    the function's graph (the density test compares ``count`` with its ``num_nodes``).
    ``seed``: where the statements before the loop filled the flags False and launched one
    kernel over the nodes that set some, each at its own vertex (``frontier_seed``), that
    launch as written and its variant that also appends each vertex it flags to ``queue``:
    the worklist form launches the variant in place of the first ``build`` (the topology form
    the launch as written), so the first queue costs no scan over all vertices.
    ``fill``: that seed's ``Fill(current, False)`` where nothing else in the program writes
    the flag (``frontier_seed.fill_once``): the topology form fills before the seed launch as
    written, the worklist form only on its first run (its flags are all False after a run).
    """

    queue: DeviceArray
    next_queue: DeviceArray
    size: DeviceArray
    stamp: DeviceArray
    count: ir.Symbol
    round: ir.Symbol
    build: Kernel
    clear: Optional[Kernel]
    launches: Tuple[Tuple[Kernel, Kernel], ...]
    graph: ir.Symbol
    seed: Optional[Tuple["Launch", "Launch"]] = None
    fill: Optional["Fill"] = None
    #: where a Dynamic batch's update kernel (``OnAdd``) sets the flags and appends each
    #: vertex it flags to ``queue`` (``frontier_seed.update_seed``): why that queue is the
    #: first round's exactly; the loop's worklist form then builds no first queue. "": none
    update_seed: str = ""
    #: (``priority_window``) the window of the sparse rounds, which defers entries whose key
    #: is past it, and the host scalar of its width; None where the round has none, and
    #: ``window_why`` why not
    window: Optional[PriorityWindow] = None
    delta: Optional[ir.Symbol] = None
    window_why: str = ""
    #: (``worklist_rounds``) the kernel of one work-group that runs small sparse rounds one
    #: after another, and its state array (extent ``"rounds"``); ``steps``: the host scalar
    #: the steps it ran are read into. None where the round does not qualify
    rounds: Optional[Tuple[Kernel, DeviceArray]] = None
    steps: Optional[ir.Symbol] = None
    #: (``frontier_seed.all_flagged``) every flag was set just before the loop: the first
    #: queue is every vertex, its count n, and no build launch makes it
    all_flagged: bool = False
    #: (``frontier_seed.one_flagged``) the one vertex whose flag the host set just before the
    #: loop: the host writes the first queue, that vertex, with no build launch. None: none
    first_vertex: Optional[ir.Expr] = None


@record
class DataDrivenLoop(HostStmt):
    """A fixedPoint in both forms (``control.expand_fixedpoint`` of a loop with a
    ``Worklist``): ``worklist`` (data-driven: sparse rounds over the queue, dense rounds over
    all vertices) and ``topology`` (today's form: every round over all vertices). A backend
    keeps one (``frontier.choose_form``): one that cannot express a worklist (MPI: appends
    to a rank-local queue miss the vertices other ranks update) keeps ``topology``.
    ``seed``: no loop, but the two forms of the launch that appends a later fixedPoint's first
    queue (``Worklist.update_seed``); ``first_queue``: how the loop's first queue is made,
    where not by a scan of the flags (in words, for ``--emit plan`` and ``starc explain``)."""

    worklist: HostBlock
    topology: HostBlock
    seed: bool = False
    first_queue: str = ""
    #: an iterateInBFS (``bfs_queue.py``): ``worklist`` runs its small top-down steps over a
    #: queue of the frontier, ``topology`` every step over all vertices
    traversal: bool = False
    #: the worklist form as a distributed target runs it (a traversal's): each rank's queue
    #: of its own vertices (``control._expand_bfs``); None where there is none
    ranks: Optional[HostBlock] = None


@record
class BFSLoop(HostStmt):
    """Level-synchronous, direction-optimizing BFS from ``root`` (``control.expand_bfs``)::

        Fill(level, -1); level[root] = 0; depth = 0; awake = 1; scout = 0
        unexplored = m; bottom_up = False
        do {
            if (!bottom_up) bottom_up = scout > unexplored / alpha
            frontier = awake; awake = 0
            if (bottom_up) { scout = 0; Launch(bottom_up, depth)
                             bottom_up = awake >= frontier || awake > n / beta }
            else { unexplored -= scout; scout = 0; Launch(forward, depth) }
            depth++
        } while (awake != 0)
        for (d = depth - 1; d >= 0; d--) Launch(reverse, depth=d)     (if reverse)

    Both step kernels run B1 at level ``depth`` and reach level ``depth + 1``: ``forward``
    top-down over the frontier's out-edges, ``bottom_up`` from every unvisited vertex's
    in-edges (the first parent at ``depth`` ends its scan). They reduce into host scalars
    ``awake`` (vertices reached) and, top-down, ``scout`` (their out-edges); ``alpha`` and
    ``beta`` are GAPBS's thresholds (``bfs.ALPHA``/``BETA``). Every kernel takes the current
    level as ``KernelScalar`` ``depth_name``; ``graph`` is the traversed graph (its ``n`` and
    ``m`` seed the heuristic).

    ``pending`` and ``expand`` (set when B1 is one last-parent loop, ``bfs.py``):
    ``bottom_up`` runs B1 at each vertex's discovery ("fused"), so a host bool
    ``fused_name`` says whether the frontier's B1 already ran; a bottom-up step first
    launches ``pending`` (the frontier's B1) when it has not, a top-down step whose
    frontier's B1 ran launches ``expand`` (``forward`` without B1)::

        fused = True                               (the source's B1 has no parents)
            if (bottom_up) { if (!fused) Launch(pending, depth); ...; fused = True }
            else { ...; if (fused) Launch(expand, depth) else Launch(forward, depth)
                   fused = False }

    ``values`` (set when a parents loop's value is its vertex's depth, ``depth_values``):
    launched once after the traversal, before the reverse sweep; it sets that property of
    every reached vertex from its level.
    """

    root: ir.Expr
    level: DeviceArray
    forward: Kernel
    bottom_up: Kernel
    awake: ir.Symbol
    scout: ir.Symbol
    graph: ir.Symbol
    reverse: Optional[Kernel] = None
    depth_name: str = "bfs_depth"
    alpha: int = 15
    beta: int = 18
    pending: Optional[Kernel] = None
    expand: Optional[Kernel] = None
    fused_name: str = "bfs_fused"
    values: Optional[Kernel] = None
    #: (the ``bfs_queue`` pass) the sparse top-down steps over a queue of the frontier
    queue: Optional["BFSQueue"] = None


@record
class BFSQueue(Record):
    """How a ``BFSLoop``'s top-down steps run over a queue of the frontier (``bfs_queue.py``).

    ``order`` holds the current level's vertices from the host's ``start`` (``start_name``,
    the sparse kernels' ``KernelScalar``), ``frontier`` of them; a sparse step's kernel
    (``forward``, or ``expand`` where the loop has one) runs one work item per entry and
    appends each vertex it reaches, once, at ``end[0]``, which the host sets before the launch
    to where the level ends. ``build`` (over the nodes, guard ``level[v] == depth``) compacts
    the frontier into the order from 0 after a bottom-up step. While every step is sparse the
    order holds the levels in turn, level d from ``starts[d]`` (written by the host), and
    ``reverse`` (with a reverse sweep) runs the sweep's kernel over level ``depth``'s slice,
    launched with the widest level's length of items."""

    order: DeviceArray
    starts: DeviceArray
    end: DeviceArray
    build: Kernel
    forward: Kernel
    expand: Optional[Kernel] = None
    reverse: Optional[Kernel] = None
    start_name: str = "bfs_start"
    #: (``bfs_rounds``) one work-group's kernel that runs sparse steps while the levels stay
    #: small, without the host between them, and the array of the state it leaves
    rounds: Optional[Kernel] = None
    state: Optional[DeviceArray] = None
    #: (``bfs_rounds``, with a reverse sweep) the sweep over every level in one work-group
    reverse_rounds: Optional[Kernel] = None
