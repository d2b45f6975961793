"""The lowered program (the plan): device arrays, outlined kernels and host operations.

This is the contract between the backend-neutral analyses (``starc.analysis``) and every
GPU-style backend. Analyses decide *what* happens (which foralls become kernels, what is
copied when, which updates are atomic, how fixedPoint and BFS run); a backend only decides
*how* to spell each abstract operation, through its own table.

Kernel bodies are typed IR (``starc.ir.nodes``) in which the analyses have replaced the
constructs that need a decision by the lowered statements defined here (``AtomicReduce``,
``AtomicMinMax``, ``FlagSet``, ``ScalarStore``). After lowering, a kernel body contains no
``Reduce`` or ``MinMaxAssign`` on shared data, no fixedPoint property writes (they target the
next-iteration buffer, see ``FixedPointLoop``) and no BFS-role neighbour loops (they are plain
``Neighbors``/``InNeighbors`` loops filtered on the BFS level array).

Host bodies are trees of ``HostStmt``s: control flow over host scalars plus the abstract device
operations (``Launch``, ``Fill``, ``CopyArray``, ``SwapArrays``, ``WriteElement``, ``ToDevice``,
``FromDevice``). Host expressions are typed IR expressions in which every read of a device
property element is a ``DeviceRead``.
"""

from __future__ import annotations

from dataclasses import field
from typing import FrozenSet, Optional, Tuple

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = [
    "ATOMIC_OPS", "GRAPH_ARRAYS", "DeviceArray", "KernelParam", "Kernel", "CooperativeLoop",
    "CooperativeStep", "FrontierEdges",
    "VectorLoop", "ScalarReduction",
    "AtomicReduce", "AtomicMinMax", "FlagSet", "ScalarStore", "DeviceRead", "KernelScalar",
    "HostStmt", "HostBlock", "HostDeclare", "HostAssign", "HostReduce", "HostIf", "HostWhile",
    "HostDoWhile", "HostForSet", "HostReturn", "HostBreak", "HostContinue",
    "Launch", "Fill", "CopyArray", "SwapArrays", "WriteElement", "ToDevice", "FromDevice",
    "FromDeviceMany", "ScalarPack",
    "FixedPointLoop", "BFSLoop", "ParentValue", "HostForRange", "CheckErrors", "OrderByDegree",
    "Plan",
    "QueueAppend", "QueueCount", "Worklist", "DataDrivenLoop",
    "BatchLoop", "ApplyUpdates", "UpdateLoop", "EDGE_ROOM", "ROW_ENDS",
]


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

@record
class DeviceArray(Record):
    """One allocation on the device, made once before the algorithm and freed at the end.

    ``extent``: ``"nodes"`` (n), ``"nodes+1"`` (CSR offsets), ``"edges"`` (m) or ``"one"`` (a
    single value: a reduction target, a fixedPoint/BFS flag). ``role``: ``"graph"`` (a CSR
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
    ``KernelScalar`` ``FRONTIER_COUNT``; see ``Worklist``).

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
    ``clears``: the body ends with the clear of the entry's own flag (``Worklist.clear`` is
    None), which the entry's item runs after its test."""

    tested: bool
    work: ir.Expr
    clears: bool = False


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
    only acts on an edge to it); ``cursor_hoists``: for each cursor, how many enclosing loops
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
    ``then`` (added): statements, only ``FlagSet`` and ``ScalarStore``, performed together
    with ``others`` when the update wins (e.g. the fixedPoint flag after ``modified = True``).
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
    """``queue[old] = value`` where ``old`` is the value of ``size[0]`` that this work item
    atomically increments by one (a fetch-and-add): a lock-free append to a worklist. The
    analysis guarantees at most ``queue``'s length appends per launch sequence
    (``frontier.py``: one append per vertex and round)."""

    queue: DeviceArray
    size: DeviceArray
    value: ir.Expr
    #: (the specialize stage) ``group``: the work items of a lockstep group that append
    #: together take their slots with one fetch-and-add (each slot the old value plus the
    #: number of appending lanes below it); ``local``: staged in the work-group's queue in
    #: local memory, whose count takes its slots with one fetch-and-add at the kernel's end
    #: (an append past the local queue's capacity takes its own); ``gang``: the same per
    #: gang, whose vector lanes run a chunk of items (OpenACC); ``item``: one each
    form: str = ""


@record
class QueueCount(ir.Stmt):
    """``size[0] += 1`` atomically, the old value unused: a dense round of a worklist counts
    the next flags it flips without appending (``frontier.py``)."""

    size: DeviceArray
    #: (the specialize stage) the atomic's form, as ``AtomicReduce.form``
    form: str = ""
    #: (the specialize stage) the work items of a lockstep group that count together add
    #: their number with one atomic (``QueueAppend.form`` ``group``, ``local`` or ``gang``)
    per_group: bool = False
    #: (the specialize stage) counted in local (gang-private) memory, the work-group's (gang's)
    #: count added with one atomic at its end (``QueueAppend.form`` ``local``, ``gang``)
    staged: bool = False


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
class KernelScalar(ir.Expr):
    """A by-value kernel argument that is not a DSL name (e.g. the current BFS level)."""

    name: str


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


# --- host operations -------------------------------------------------------------------------------

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
    round number picks the one appender. ``size`` is the one-value append counter; dense
    kernels only count in it the flags they flip (``QueueCount``). ``launches``: for each
    launch of the body, the ``(dense, sparse)`` variants: ``dense`` over all nodes, filtered
    as before; ``sparse`` (extent ``"frontier"``) one work item per queue entry. ``clear`` (extent ``"frontier"``)
    resets the next flags the last queue set instead of filling all of them; None where the
    round's one sparse kernel clears its own entries' flags as its last statement (a launch
    fewer a sparse round: ``_Builder.clears_own_flags``).
    ``count``/``round`` are host scalars: the queue's length and the round number, passed to
    the kernels as the ``KernelScalar``s ``FRONTIER_COUNT``/``FRONTIER_ROUND``; ``graph``
    the function's graph (the density test compares ``count`` with its ``num_nodes``).
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


@record
class DataDrivenLoop(HostStmt):
    """A fixedPoint in both forms (``control.expand_fixedpoint`` of a loop with a
    ``Worklist``): ``worklist`` (data-driven: sparse rounds over the queue, dense rounds over
    all vertices) and ``topology`` (today's form: every round over all vertices). A backend
    keeps one (``frontier.choose_form``): one that cannot express a worklist (MPI: appends
    to a rank-local queue miss the vertices other ranks update) keeps ``topology``."""

    worklist: HostBlock
    topology: HostBlock


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


@record
class ParentValue(Record):
    """A BFS parents loop ``v.P = w.P + ...`` (``analysis.depth_values``): ``replaced`` when
    it became ``v.P = k + c * depth`` and no kernel searches for a parent to read ``P`` from;
    ``what`` (the outcome, for people) and ``why`` (the proof, or why it keeps its search)."""

    prop: str
    replaced: bool
    what: str
    why: str
    loc: SourceLoc = field(default=NO_LOC, compare=False)


@record
class LoopForm(Record):
    """How the target runs one fixedPoint that has a worklist (``DataDrivenLoop``, at
    ``loc``): ``worklist`` or ``topology``, and why."""

    loc: SourceLoc
    form: str
    why: str


@record
class Specialization(Record):
    """What the specialize stage decided for one backend (``analysis.specialize``):
    ``capabilities`` (``analysis.capabilities.Capabilities``) it read; each data-driven
    fixedPoint's form; MPI's superstep facts (``analysis.distribution.Distribution``); every
    kernel of the neutral plan specialized, both fixedPoint forms' (the teaching views tell
    the kernels of the form a backend does not print too)."""

    backend: str
    capabilities: object
    loop_forms: Tuple[LoopForm, ...] = ()
    distribution: Optional[object] = None
    kernels: Tuple[Kernel, ...] = ()
    #: how a worklist's appends take their slots (``QueueAppend.form``) and why; "" where no
    #: kernel appends
    appends: str = ""
    appends_why: str = ""
    #: a Dynamic program's graph in rows with slack (``analysis.batches.slack_rows``): each
    #: row v is [offsets[v], ends[v]) with free slots after it, edge ids are slots, and a
    #: batch moves only the rows it touches; why (or why the graph stays a compact CSR); ""
    #: for a program without graph updates
    slack_rows: bool = False
    slack_rows_why: str = ""
    #: the blocks of one-value arrays read back with one copy (``FromDeviceMany``)
    scalar_packs: Tuple[ScalarPack, ...] = ()
    #: with ``slack_rows``: a batch may leave each row's edges in any order (no kernel reads a
    #: row as sorted: ``analysis.row_order``), filling a deletion's hole from the row's back
    #: and appending an addition; why (or which kernel reads the rows sorted)
    unsorted_rows: bool = False
    unsorted_rows_why: str = ""

    def loop_form(self, loc: SourceLoc) -> Optional[LoopForm]:
        return next((f for f in self.loop_forms if f.loc == loc), None)

    def kernel(self, name: str) -> Kernel:
        return next(k for k in self.kernels if k.name == name)


@record
class Plan(Record):
    """Everything a backend needs for one function."""

    function: ir.Function
    program: ir.Program
    arrays: Tuple[DeviceArray, ...]
    kernels: Tuple[Kernel, ...]
    host: HostBlock
    host_scalars: Tuple[ir.Symbol, ...] = ()
    error: Optional[object] = None
    read_scalars: FrozenSet[int] = frozenset()
    #: the specialize stage's decisions for one backend; None in the neutral plan
    target: Optional[Specialization] = None
    #: every BFS parents loop whose value might be the depth, rewritten or not, and why
    parent_values: Tuple[ParentValue, ...] = ()

    # ``error``: the device error word (``starc.analysis.checks.ErrorWord``) when some kernel
    # has run-time checks, else None. Hosts zero it after allocation, read it after the
    # kernel sequence (and after each fixedPoint/BFS round whose kernels may raise), and
    # report ``sites[site - 1].message(value, n, m)`` at that site's location.
    # ``read_scalars``: uids of the host scalars (parameters included) something reads; the
    # statements that only set the others are gone (``elide.elide_dead_scalars``).
    # ``host_scalars``: scalar (and ``node``) parameters, then every scalar the host declares
    # (``HostDeclare``) and every ``HostForSet`` variable, in order of appearance.

    def array_for(self, sym: ir.Symbol) -> DeviceArray:
        """The device array of a property symbol (``PropRead.prop`` in kernel bodies: DSL
        properties, fixedPoint next buffers, the BFS level) or of a host scalar's device copy."""
        for array in self.arrays:
            if array.sym is not None and array.sym.uid == sym.uid and array.role != "scalar":
                return array
        for array in self.arrays:
            if array.sym is not None and array.sym.uid == sym.uid:
                return array
        raise KeyError(sym.name)
