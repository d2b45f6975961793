"""The plan's device side: arrays, kernels, their schedules and the lowered kernel statements."""

from __future__ import annotations

from dataclasses import field
from typing import Optional, Tuple

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record


# --- device data -------------------------------------------------------------------------------

#: Abstract atomic read-modify-write operations, by the reduction operator each serves.
ATOMIC_OPS = {"+": "add", "-": "sub", "*": "mul", "&": "and", "|": "or",
              "Min": "min", "Max": "max"}

#: The CSR arrays of the graph a plan may list, in plan order, with their extents; then the
#: orders in which a binned kernel's items take the vertices (``CooperativeLoop.order``).
GRAPH_ARRAYS = {"offsets": "nodes+1", "ends": "nodes", "targets": "edges", "sources": "edges",
                "rev_offsets": "nodes+1", "rev_ends": "nodes", "rev_sources": "edges",
                "rev_edge_ids": "edges", "in_binned_order": "nodes", "out_binned_order": "nodes"}

#: Rows with slack (``Specialization.slack_rows``): the array of each row start array whose
#: entry v is where row v's edges end (the edges-extent arrays are slots, some of them free)
ROW_ENDS = {"offsets": "ends", "rev_offsets": "rev_ends"}

#: The run of a binned order (the runtime's ``degree_binned_order``): the vertices of smaller
#: degree sorted by it in runs of this many items, a warp of NVIDIA's width
BINNED_RUN = 32

#: the length of a device array of extent ``"rounds"``: the state a kernel of one work-group's
#: rounds leaves for the host (``bfs_rounds.SLOTS``)
ROUND_SLOTS = 6

#: the length of a device array of extent ``"window"``: the three rotating slots of a
#: worklist's priority window (``priority_window``)
WINDOW_SLOTS = 3

@record
class DeviceArray(Record):
    """One allocation on the device, made once before the algorithm and freed at the end.

    ``extent``: ``"nodes"`` (n), ``"nodes+1"`` (CSR offsets), ``"levels"`` (n + 1 slots
    indexed by a BFS depth, not by vertex: a distributed target grows it as depths come, since
    a rank's share of the vertices bounds no depth), ``"edges"`` (m), ``"one"`` (a
    single value: a reduction target, a fixedPoint/BFS flag), ``"two"`` (a worklist's
    double-buffered length), ``"rounds"`` (``ROUND_SLOTS`` values: ``bfs_rounds``) or
    ``"window"`` (``WINDOW_SLOTS`` values: ``priority_window``). ``role``: ``"graph"`` (a CSR
    array: offsets, targets, sources, rev_offsets, rev_sources, rev_edge_ids), ``"weight"``
    (a propEdge parameter bound to the file's weights), ``"result"`` (a propNode parameter),
    ``"local"`` (a declared property), ``"next"`` (the next-iteration buffer of a fixedPoint
    property), ``"level"`` (BFS levels), ``"scalar"`` (device copy of a host scalar), ``"flag"``
    (a device flag), ``"lock"`` (per-element locks for Min/Max with secondary targets),
    ``"error"`` (the run-time error word, see ``Plan.error``).
    ``copy_in``: copied host->device once after allocation; ``copy_out``: copied back once at
    the end. Nothing else is transferred except by explicit host operations.
    """

    name: str
    elem: Scalar
    extent: str
    role: str
    sym: Optional[ir.Symbol] = None
    copy_in: bool = False
    copy_out: bool = False
    #: (the specialize stage) a graph array that only kernels' variants for lockstep devices
    #: take (``Kernel.lockstep_variant``: a binned order, the edges' sources): built and
    #: copied in only on such a device
    lockstep_only: bool = False


@record
class KernelParam(Record):
    """A kernel argument: a device array (``array`` set) or a host scalar by value (``sym``)."""

    name: str
    elem: Scalar
    array: Optional[DeviceArray] = None
    sym: Optional[ir.Symbol] = None
    written: bool = False


@record
class ScalarReduction(Record):
    """A host scalar reduced inside a kernel (``s += e`` on a scalar declared outside).

    It lives in device array ``array`` during the launch (the host writes the current value
    before and reads the result after, see ``Launch``). ``exclusive`` is True when the kernel's
    only effect on the scalar is this one reduction operator, so a backend may use a native
    reduction (``sycl::reduction``, a work-group tree) instead of atomics.
    ``op`` is one of ``+ - * & |`` (``AtomicReduce``), or ``Min``/``Max`` for a Min/Max
    assignment to a host scalar inside a kernel (``AtomicMinMax`` with a ``VarRef`` target).
    When the kernel uses several operators on one scalar, ``op`` is the first and
    ``exclusive`` is False. ``private`` (``reductions.privatise``): a work item may accumulate
    its updates in a private and combine it into the device copy once, with one atomic or a
    native reduction (``sycl::reduction``).
    """

    sym: ir.Symbol
    op: str
    array: DeviceArray
    exclusive: bool
    private: bool = False
    #: (the specialize stage) how the target combines it: ``native`` (a native reduction
    #: object), ``group`` (privates folded per group, then one atomic), ``private`` (one
    #: atomic per work item), ``atomic`` (every update atomic); and the atomic form of the
    #: one combine of ``group``/``private`` (``AtomicReduce.form``)
    strategy: str = ""
    combine: str = ""
    #: (the specialize stage) the private accumulator's signed + and * wrap through the
    #: prelude's helpers (a target without -fwrapv: ``analysis.wrapping``)
    wrap: bool = False


@record
class Kernel(Record):
    """One outlined forall: one work item per vertex (``extent="nodes"``) or edge (``"edges"``),
    or per entry of a worklist (``"frontier"``: as many work items as the launch's
    ``KernelScalar`` ``FRONTIER_COUNT``; see ``Worklist``), or one work-group (``"group"``:
    ``index`` is the work item's number in it, ``GroupLanes`` their count; its body divides
    the work and meets at ``GroupBarrier``s: ``bfs_rounds``).

    ``index`` is the work item's loop variable; ``guard`` (already expressed on ``index``,
    None if none) is the filter and, for BFS kernels, the level test. ``body`` is lowered IR.
    ``scalars`` are the ``KernelScalar`` symbols used in the body (by-value arguments such as
    the BFS level) besides host scalars read by value.

    ``extent="single"``: exactly one work item runs ``body`` (a host-level sequential ``for``
    over nodes/edges/neighbours, or a forall over a vertex's neighbours at host level); then
    ``index`` is an invented symbol the body does not use and ``guard`` is None. Every update
    in such a body is plain (one work item: no atomics); host scalars it assigns are copied
    into kernel locals at the start and stored back through ``stores`` at the end.

    ``params`` lists every device array the guard or body touches (graph arrays by their fixed
    names, property arrays, next buffers, flags, locks, the BFS level, the one-value arrays of
    ``reductions`` and ``stores``), ``written`` where the kernel may write it, in the order of
    ``Plan.arrays``; then every host scalar read by value, in order of first use.
    ``checks``: the run-time check sites (numbers into ``Plan.error.sites``) the kernel may
    raise; when not empty, ``params`` include the two ``"error"`` arrays.
    ``stores`` (added): one-value ``"scalar"`` arrays (``array.sym`` is the host scalar) that
    ``ScalarStore`` statements write; like reductions, the host writes the scalar's current
    value before the launch and reads it back after.
    """

    name: str
    index: ir.Symbol
    extent: str
    guard: Optional[ir.Expr]
    body: ir.Block
    params: Tuple[KernelParam, ...]
    reductions: Tuple[ScalarReduction, ...] = ()
    loc: SourceLoc = field(default=NO_LOC, compare=False)
    scalars: Tuple["KernelScalar", ...] = ()
    stores: Tuple[DeviceArray, ...] = ()
    checks: Tuple[int, ...] = ()
    hoisted_for: str = ""
    #: (the specialize stage) how each neighbour loop of the body scans its sorted row
    #: (``row_scans``), by loop variable
    row_scans: Tuple["RowScan", ...] = ()
    #: (the specialize stage) ``vertex`` (one work item per vertex, as written), ``edges``
    #: (one per edge of its neighbour loop) or ``binned`` (a heavy vertex's loop shared by a
    #: work-group: ``cooperative``; on a target of vector loops, every vertex's loops shared
    #: by its gang's lanes: ``vector_loops``), ``analysis.schedules``, and why
    schedule: str = "vertex"
    schedule_why: str = ""
    cooperative: Optional["CooperativeLoop"] = None
    vector_loops: Tuple["VectorLoop", ...] = ()
    #: (the specialize stage) every work item does the same small work: no loop, search or
    #: call in the guard or body (PageRank's per-vertex term); a CPU launch whose work items
    #: claim runs of items takes long runs, where a short run would cost no more than its claim
    uniform_items: bool = False
    #: a worklist round's ``edges`` schedule: its group splits its entries' edges
    #: (``analysis.frontier_edges``)
    frontier_edges: Optional["FrontierEdges"] = None
    #: (the specialize stage, a target that learns its device kind only at run time:
    #: ``Capabilities.lockstep_at_run_time``) the name of this kernel's variant in
    #: ``Plan.kernels`` that the host launches instead on a device whose work items run in
    #: lockstep (a GPU), where auto chooses another schedule there; "" where none
    lockstep_variant: str = ""
    #: (on such a variant) the name of the kernel it stands in for on a lockstep device
    variant_of: str = ""
    #: (``analysis.row_swap``) the name of this triangle count's variant in ``Plan.kernels``
    #: that walks the shorter row, launched instead where the run renumbered the graph by
    #: degree (a symmetric simple graph); "" where none
    renumbered_variant: str = ""
    #: (on such a variant) the name of the kernel it stands in for on a renumbered graph
    renumbered_of: str = ""
    #: (an ordered triangle count under an ``OrderByDegree``) why its innermost loop walks
    #: the other row on a renumbered graph, or why not
    row_swap_why: str = ""
    #: (``frontier.py``, a worklist's dense round) the fixedPoint's current and next flags
    round_flags: Tuple[ir.Symbol, ...] = ()
    #: (the specialize stage, ``analysis.pushed_values``) whether the dense round skips a
    #: flagged vertex whose values are those it last ran with, and why (or why not); "" where
    #: no dense round
    skips_pushed: bool = False
    skips_pushed_why: str = ""
    #: (``priority_window``, a worklist's sparse round) the window that defers its entries
    #: whose key is past it; None where none, or where the specialize stage dropped it
    window: Optional["PriorityWindow"] = None
    #: (the specialize stage) why the sparse round keeps its window, or why not; "" where
    #: the round never had one
    window_why: str = ""

    def row_scan(self, var: ir.Symbol) -> Optional["RowScan"]:
        return next((s for s in self.row_scans if s.var == var), None)


@record
class CooperativeLoop(Record):
    """How the ``binned`` schedule splits a kernel's body (``analysis.binned``): a vertex of
    ``degree`` below the work-group size runs the whole body on one work item; a heavier one
    is run by its whole work-group: every lane runs the declarations before the neighbour
    loop ``body.stmts[loop_at]``, then every lane-th iteration of the loop into its own copy
    of ``accumulator`` (declared there with ``op``'s identity); the copies are combined with
    ``op`` (a group reduction) and the group's first lane runs the statements after the loop
    with the combined value. (An index, not copies: later passes rewrite the body.)
    ``tiers``: the bins, by who runs a vertex (``item``, ``group``; a ``warp`` tier where
    the target has sub-groups, for vertices of degree ``warp_from`` up to ``group_from`` times
    the group's size). ``wraps``: the fold is wrapping integer arithmetic
    (``analysis.wrapping``), and so must the combine be."""

    loop_at: int
    accumulator: ir.Symbol
    op: str
    degree: ir.Expr
    tiers: Tuple[str, ...] = ("item", "group")
    warp_from: int = 0
    wraps: bool = False
    #: the graph array of the vertex order the items take (``in_binned_order`` or
    #: ``out_binned_order``: by the loop's degree, ``BINNED_RUN``); "" in id order
    order: str = ""
    #: a vertex goes to the whole group from ``group_from`` times the group's size (a warp
    #: tier takes those below: rounding a degree up to the group's size idles more lanes)
    group_from: int = 1
    #: a body of several neighbour loops (``analysis.cooperative``): how the group runs each
    #: top-level statement (then ``loop_at`` is -1 and ``accumulator`` None); () where the
    #: body is one pull loop split at ``loop_at``
    steps: Tuple["CooperativeStep", ...] = ()


@record
class FrontierEdges(Record):
    """The ``edges`` schedule of a worklist round (``analysis.frontier_edges``): its body is
    ``body.stmts[0]``, the entry's vertex (``node v = frontier[item]``), then the push loops
    over that vertex, inside ``body.stmts[1]``'s ``if`` on the vertex where ``tested``, else
    ``body.stmts[1:]``. A work-group sums its entries' work (the loops' degrees, 0 where the
    test fails) in local memory and walks the group's edges a group at a time, each item
    finding its entry by a binary search over the prefix sums; ``work`` is an entry's work.
    ``after``: how many of the body's last statements the entry's item runs after its test:
    the clear of the entry's own flag (``Worklist.clear`` is None), the round's reset of the
    next round's queue length (``QueueReset``, in the first item)."""

    tested: bool
    work: ir.Expr
    after: int = 0
    #: the loops sit in ``if (key below the window) {loops} else {defer}`` inside the test
    #: (``priority_window``): the entry's item defers an entry past the window, with no work
    windowed: bool = False


@record
class CooperativeStep(Record):
    """How a heavy vertex's group runs statement ``at`` of its block (``analysis.cooperative``):
    ``all`` (a declaration every lane makes), ``push`` (a neighbour loop whose iterations the
    lanes split), ``fold`` (the same, each lane folding into its copy of ``accumulator`` with
    ``op``, combined by a group reduction into the first lane), ``search`` (a neighbour loop
    that stops at the first edge passing its test: the lanes test the edges a group at a time
    and the first lane that found one, in the loop's order, runs its body once), ``leader``
    (a statement the group's first lane runs) or ``branch`` (an if/else on the vertex alone,
    the first lane's test taken by the group, ``then`` and ``orelse`` the branches' steps)."""

    kind: str
    at: int
    accumulator: Optional[ir.Symbol] = None
    op: str = ""
    wraps: bool = False
    #: a search whose body is ``if (c) { ...; break; }``: its test is the filter and ``c``
    #: (else the filter alone, the body ``...; break;``)
    guarded: bool = False
    then: Tuple["CooperativeStep", ...] = ()
    orelse: Tuple["CooperativeStep", ...] = ()


@record
class VectorLoop(Record):
    """The ``binned`` schedule on a target whose vertex item is a gang of vector lanes
    (OpenACC): the body's neighbour loop over ``var`` runs its iterations on the lanes of its
    vertex's gang, each lane folding into a private copy of every symbol of ``reductions``
    (``(operator, symbol)``: a pull's accumulator, a scalar reduction the loop updates),
    combined when the loop ends (a ``reduction`` clause). (The loop's variable, not an
    index: later passes rewrite the body.)"""

    var: ir.Symbol
    reductions: Tuple[Tuple[str, ir.Symbol], ...] = ()


@record
class RowScan(Record):
    """How the neighbour loop over ``var`` scans its sorted CSR row (``analysis.row_scans``):
    ``bounds`` (``sorted_ranges.Bound``, in filter order; the loop's filter in the body is what
    is left) narrow it to a binary-searched run, whose searches run ``hoist`` enclosing loops
    further out (0: just before the loop); each of ``cursors`` (a row ``u`` and its first edge
    query ``(u, var)``, ``edge_cursors``) is a forward cursor into u's row, declared before
    the loop; ``exhausted``: the row whose cursor, once past its end, stops the loop (the body
    only acts on an edge to it), and which the loop merges with: each iteration first
    advances that cursor, stepping linearly or galloping by the two rows' lengths
    (``starc_advance``; not where the lanes of a group share the loop); ``cursor_hoists``: for each cursor, how many enclosing loops
    further out the search for its first position past the loop's start bound runs (0: just
    before the loop; tc's swapped rows search v's row once per v, not once per u)."""

    var: ir.Symbol
    bounds: Tuple[object, ...] = ()
    hoist: int = 0
    cursors: Tuple[Tuple[ir.Symbol, ir.Expr], ...] = ()
    exhausted: Optional[ir.Symbol] = None
    cursor_hoists: Tuple[int, ...] = ()


# --- lowered kernel statements and expressions ---------------------------------------------------

@record
class AtomicReduce(ir.Stmt):
    """``target op= value`` done atomically. ``target`` is a ``PropRead`` of a shared element
    or a ``VarRef`` of a host scalar under reduction (its device copy: see ``Kernel.reductions``).
    ``op`` in ``+ - * & |`` (``-`` may be mapped to an atomic add of the negation)."""

    op: str
    target: ir.Expr
    value: ir.Expr
    #: (the specialize stage) ``native`` (an instruction), ``directive`` (an atomic
    #: construct), ``update`` (a form whose old value is unused), ``loop`` (compare-and-swap),
    #: ``plain`` (a conditional store: a bool &= / |=, every writer agrees) or ``private``
    #: (an update of the work item's accumulator of a scalar reduction, ``ScalarReduction``)
    form: str = ""


@record
class AtomicMinMax(ir.Stmt):
    """Atomically: if ``candidate`` beats ``target`` (``func`` Min: smaller, Max: larger), store
    it and perform ``others``. With ``locked`` False every ``others`` value is a constant, so
    plain stores after a successful atomic min/max are consistent with the final value; with
    ``locked`` True the backend must hold ``lock[index]`` (a ``"lock"`` device array) around
    compare, store and ``others`` so the secondary targets come from the winning update.

    ``target`` is a ``PropRead`` of a shared element, or (rarely) a ``VarRef`` of a host
    scalar under reduction (``Kernel.reductions`` has its array, op ``Min``/``Max``; its lock,
    when locked, has extent ``"one"``: use index 0). ``others`` targets are ``PropRead``s
    (possibly of a fixedPoint next buffer) or ``VarRef``s of kernel-local scalars.
    ``then`` (added): statements performed together with ``others`` when the update wins:
    ``FlagSet`` and ``ScalarStore`` (the fixedPoint flag after ``modified = True``), a
    worklist's ``QueueAppend``, a BFS claim's append and counts (``bfs_queue.py``).
    ``read_first``: read the target (a plain or relaxed load) and skip the atomic, the lock
    and everything else when the candidate cannot beat it. It changes no result: the update
    would lose against that value at that moment anyway, and values the atomic compares with
    only move towards the winner; it saves the read-modify-write (and the cache line's
    ownership) for the many updates that do not improve, as in Bellman-Ford's relaxations."""

    func: str
    target: ir.Expr
    candidate: ir.Expr
    others: Tuple[Tuple[ir.Expr, ir.Expr], ...] = ()
    locked: bool = False
    lock: Optional[DeviceArray] = None
    then: Tuple[ir.Stmt, ...] = ()
    read_first: bool = False
    #: (the specialize stage) the atomic's form, as ``AtomicReduce.form``
    form: str = ""


@record
class FlagSet(ir.Stmt):
    """Set the one-value device flag ``flag`` to 1 when ``value`` is true (``value`` None:
    unconditionally). Every thread writes the same 1, so no atomic is needed. ``if_clear``:
    write only when it still reads 0, so once one thread has set it the others only read
    the flag's cache line instead of all taking it over to write the same value."""

    flag: DeviceArray
    value: Optional[ir.Expr] = None
    if_clear: bool = False


@record
class ScalarStore(ir.Stmt):
    """A constant written to a host scalar from a kernel (a benign race: every thread writes
    the same value) through its one-value device array."""

    array: DeviceArray
    value: ir.Expr


@record
class QueueAppend(ir.Stmt):
    """``queue[old] = value`` where ``old`` is the value of ``size[slot]`` that this work item
    atomically increments by one (a fetch-and-add): a lock-free append to a worklist. The
    analysis guarantees at most ``queue``'s length appends per launch sequence
    (``frontier.py``: one append per vertex and round). ``size`` has two slots, used by
    alternate rounds (``slot`` is the round's parity: ``QueueReset``)."""

    queue: DeviceArray
    size: DeviceArray
    value: ir.Expr
    slot: ir.Expr
    #: (the specialize stage) ``group``: the work items of a lockstep group that append
    #: together take their slots with one fetch-and-add (each slot the old value plus the
    #: number of appending lanes below it); ``local``: staged in the work-group's queue in
    #: local memory, whose count takes its slots with one fetch-and-add at the kernel's end
    #: (an append past the local queue's capacity takes its own); ``gang``: the same per
    #: gang, whose vector lanes run a chunk of items (OpenACC); ``item``: one each
    form: str = ""


@record
class QueueCount(ir.Stmt):
    """``size[slot] += 1`` atomically, the old value unused: a dense round of a worklist counts
    the next flags it flips without appending (``frontier.py``)."""

    size: DeviceArray
    slot: ir.Expr
    #: (the specialize stage) the atomic's form, as ``AtomicReduce.form``
    form: str = ""
    #: (the specialize stage) the work items of a lockstep group that count together add
    #: their number with one atomic (``QueueAppend.form`` ``group``, ``local`` or ``gang``)
    per_group: bool = False
    #: (the specialize stage) counted in local (gang-private) memory, the work-group's (gang's)
    #: count added with one atomic at its end (``QueueAppend.form`` ``local``, ``gang``)
    staged: bool = False


@record
class QueueReset(ir.Stmt):
    """``size[slot] = 0``: a worklist's sparse round zeroes (in its first work item) the slot
    of its queue's length that the next round appends to, the count of the round before it,
    which the host read before the launch; so no reset command goes between rounds
    (``control.expand_worklist``)."""

    size: DeviceArray
    slot: ir.Expr


@record
class CursorQuery(ir.Expr):
    """``query`` (``g.is_an_edge(row, var)`` or ``g.get_edge``) answered by the forward
    cursor into ``row``'s sorted row that the loop over ``var`` keeps (``RowScan.cursors``)."""

    query: ir.Expr
    var: ir.Symbol
    row: ir.Symbol


@record
class LiveSlot(ir.Expr):
    """Kernel expression: whether slot ``edge`` of rows with slack holds an edge (a free or
    dead slot holds none): ``v = sources[edge]`` is a vertex whose row ``[offsets[v],
    ends[v])`` holds the slot. A kernel over the graph's edge ids walks every slot in use
    and runs only where this holds (``batches.with_row_ends``). Exact: the graph update writes
    a live slot's source whenever it writes the slot, so a stale source names a row that no
    longer holds it."""

    edge: ir.Expr


@record
class UnionFindRoot(ir.Expr):
    """The root of ``vertex``'s tree in the union-find forest ``parent`` (an int array of
    extent ``"nodes"``): followed from parent to parent until one is its own, each vertex on
    the way pointed at its grandparent (path halving: a benign race, parents only move to
    ancestors). ``analysis.union_find``."""

    parent: DeviceArray
    vertex: ir.Expr


@record
class UnionFindLink(ir.Stmt):
    """Join the trees of ``a`` and ``b`` in the forest ``parent``: the larger of their two
    roots hooked under the smaller by a compare-and-swap, retried from the new roots where
    another link moved one first; so a root is always its tree's least id. ``analysis.union_find``."""

    parent: DeviceArray
    a: ir.Expr
    b: ir.Expr


@record
class UnionFindSample(ir.Stmt):
    """Join the tree of ``vertex`` in the forest ``parent`` with the trees of its first
    ``count`` out-neighbours in ``graph`` (fewer where its row is shorter), each as
    ``UnionFindLink`` does: a bounded number of links per work item, with no neighbour loop
    for a schedule to split. ``analysis.union_find``."""

    parent: DeviceArray
    vertex: ir.Expr
    graph: ir.Symbol
    count: int


@record
class KernelScalar(ir.Expr):
    """A by-value kernel argument that is not a DSL name (e.g. the current BFS level)."""

    name: str


@record
class GroupBarrier(ir.Stmt):
    """Every work item of the work-group waits here for all the others; what each wrote to
    global or local memory before it, every one reads after it. Only in a kernel of extent
    ``"group"`` (one work-group: ``bfs_rounds``), whose work items all reach it."""


@record
class GroupLanes(ir.Expr):
    """The number of work items of the work-group of a kernel of extent ``"group"`` (whose
    index is the work item's number in it)."""


@record
class PriorityWindow(Record):
    """A worklist's sparse round that runs only the entries whose ``key`` (a 32-bit int
    property, at the entry's vertex) is below the window, and defers the others to the next
    round (``priority_window``): delta-stepping's buckets. ``slots`` (extent ``"window"``)
    holds, in rotation by round, the least key the round before left queued; ``delta`` is the
    window's width (the ``KernelScalar`` ``WINDOW_DELTA``), which the host computes from
    ``weight`` (an edge property parameter) as ``WindowDelta``."""

    slots: DeviceArray
    key: ir.Symbol
    weight: ir.Symbol


@record
class WindowDelta(ir.Expr):
    """Host expression: the width of a priority window, ``scale`` times the mean absolute
    value of ``weight`` (an edge property parameter, sampled on the host) over the mean
    out-degree of ``graph``, at least 1 (``priority_window``)."""

    weight: ir.Symbol
    graph: ir.Symbol
    scale: int


@record
class OnLockstepDevice(ir.Expr):
    """Host expression: the program's device runs work items in lockstep (a GPU), on a target
    that learns its device kind at run time (``Capabilities.lockstep_at_run_time``): the
    condition that launches kernels' lockstep variants (``bfs_queue.lockstep_queues``)."""


@record
class DeviceRead(ir.Expr):
    """Host expression: one element of a device property, read back (a single-value copy)."""

    array: DeviceArray
    index: ir.Expr


@record
class HostCheckedIndex(ir.Expr):
    """Host expression: ``index`` of property ``name`` when ``0 <= index < limit(extent)``,
    else the reference's run-time error "index i of 'name' out of range 0..limit-1" at this
    node's location (the host checks directly; no error word is needed)."""

    index: ir.Expr
    extent: str
    name: str
