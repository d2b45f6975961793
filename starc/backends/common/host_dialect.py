"""The hook table of the shared C++ host printer: how one backend spells device operations.

A C++ backend (CUDA, SYCL, ...) subclasses ``HostDialect``; each hook returns C++ text for one
device operation (allocate, copy, fill, swap, single-element access, launch, synchronise,
warm-up). A hook a backend lacks raises ``BackendError`` naming the operation. Host expressions
use ``HostExprDialect``, the cfamily dialect of C++ host code.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Protocol, Sequence, Tuple

from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.backends.common import cfamily
from starc.backends.common.cfamily import KernelCode, NameTable
from starc.ir import nodes as ir
from starc.ir.types import Scalar, c_name

__all__ = ["CXX_KEYWORDS", "Count", "HostValue", "HostPrinter", "HostDialect", "HostExprDialect",
           "TIMER", "UPDATE_TIMER", "BATCH_TIMER", "location"]

#: The host's stopwatch (the ``starc_`` prefix is never given to a DSL name).
TIMER = "starc_timer"
#: a Dynamic program's second stopwatch: the part of the timed span spent applying its batches
#: to the graph (``starc-update-time``)
UPDATE_TIMER = "starc_update_timer"
#: and its third: the part spent in its Batch loops, the graph updates included
#: (``starc-batch-time``), so that the static part and a batch's algorithm come from one trial
BATCH_TIMER = "starc_batch_timer"

#: C++17 keywords and names a generated C++ program must not shadow.
CXX_KEYWORDS = cfamily.C_KEYWORDS | frozenset("""
    alignas alignof and and_eq asm bitand bitor catch char16_t char32_t compl concept const_cast
    constexpr decltype dynamic_cast explicit export final friend mutable noexcept not not_eq
    nullptr or or_eq override reinterpret_cast requires static_assert static_cast thread_local
    throw try typeid wchar_t xor xor_eq co_await co_return co_yield char8_t consteval constinit
    main argc argv std starc NULL errno assert
""".split())


class Count(str):
    """An element count as C++ text (``g.num_nodes + 1``) with what a dialect may need to know
    of it without reading the text: ``factor``, the text as an operand of ``*``, and
    ``may_be_zero`` (an empty graph has no nodes or no edges)."""

    factor: str
    may_be_zero: bool

    def __new__(cls, text: str, factor: str = "", may_be_zero: bool = False) -> "Count":
        count = super().__new__(cls, text)
        count.factor = factor or text
        count.may_be_zero = may_be_zero
        return count


class HostValue(str):
    """A host expression as C++ text, with ``zero_bytes``: whether it is a constant whose
    bytes are all zero (``0``, ``false``, ``0.0``), so that a fill may be a memset."""

    zero_bytes: bool

    def __new__(cls, text: str, zero_bytes: bool = False) -> "HostValue":
        value = super().__new__(cls, text)
        value.zero_bytes = zero_bytes
        return value


def location(loc, fallback: str = "<input>") -> str:
    """``"prog.sp:12"`` for a source location (the file's base name), else the fallback."""
    if loc is None or loc.line <= 0:
        return fallback
    return f"{os.path.basename(loc.file) or fallback}:{loc.line}"


class HostExprDialect(cfamily.Dialect):
    """Host expressions in C++: the DSL's C types, ``std::min``/``std::max``, and the edge
    search of the runtime (a backend whose device helper is not callable on the host
    overrides ``find_edge``)."""

    name = "c++ host"
    scalar_types = {s: c_name(s) for s in Scalar}
    storage_types = scalar_types
    reserved = CXX_KEYWORDS

    def minmax(self, func: str, t: Scalar, left: str, right: str) -> str:
        return f"std::{func.lower()}({left}, {right})"

    def find_edge(self, offsets: str, targets: str, u: str, w: str,
                  ends: Optional[str] = None) -> str:
        if ends is not None:   # the plan keeps rows with slack only where the host reads no row
            self.missing("an edge query of rows with slack on the host")
        return f"starc_find_edge({offsets}.data(), {targets}.data(), {u}, {w})"


class HostPrinter(Protocol):
    """What a dialect and the host expression printer may use of the host printer
    (``host_statements.HostStatementPrinter``), which imports them."""

    plan: P.Plan
    names: NameTable
    graph: str
    kernels: Dict[str, KernelCode]
    dialect: "HostDialect"

    def where(self, loc) -> str: ...

    def array_var(self, array: P.DeviceArray) -> str: ...

    def extent_count(self, extent: str) -> "Count": ...

    def weight_bound(self, e: ir.WeightBound) -> str: ...

    def window_delta(self, e: P.WindowDelta) -> str: ...


class HostDialect:
    """How one C++ backend spells the host's device operations. Every hook returns C++ text
    (statements as a list of lines without indentation, expressions as a string); ``where`` is
    the quoted DSL location (``"\\"sssp.sp:12\\""``) for error messages; a ``count`` is a
    ``Count``, a filled or written value and its index are ``HostValue``s (text that also says
    what a dialect may want to know of it). The defaults raise."""

    #: backend name printed in the results header
    name = "c++"
    #: the cfamily dialect of host expressions
    expr_dialect: cfamily.Dialect = HostExprDialect()
    #: the algorithm's device arrays are allocated before the clock starts and freed after it
    #: stops: a device allocation (cudaMalloc, malloc_device, clCreateBuffer) may synchronise
    #: the device and costs far more than the work on a small frontier, and GPU codes time
    #: their kernels on allocated arrays (Gunrock's enact after its problem's init)
    allocates_before_clock = True

    #: the printer using this dialect (set by ``attach``)
    host: HostPrinter = None

    def attach(self, printer: HostPrinter) -> None:
        """Called once by the printer, before anything is printed: take names for the
        dialect's own variables from ``printer.names`` (``printer.names.fresh("queue")``)."""
        self.host = printer

    def missing(self, operation: str, loc=None):
        raise BackendError(f"the {self.name} backend cannot express {operation} on the host",
                           loc)

    # --- types -------------------------------------------------------------------------------
    def storage_type(self, elem: Scalar) -> str:
        """Element type of a device array and of its host staging vector."""
        return "unsigned char" if elem is Scalar.BOOL else c_name(elem)

    def array_declaration(self, var: str, elem: Scalar) -> str:
        return f"{self.storage_type(elem)}* {var} = nullptr;"

    # --- program phases ----------------------------------------------------------------------
    def program_flags(self) -> List[Tuple[str, str, str]]:
        """The program's own options that ``options`` reads: (name, metavar, help line) each,
        listed by the program's --help (starc::FlagSpec)."""
        return []

    def options(self, cl: str) -> List[str]:
        """After the command line is parsed: read backend options (e.g. ``--block-size``)."""
        return []

    def read_graph(self, graph: str, cl: str) -> List[str]:
        """Declares ``graph``, the ``starc::Graph`` the program runs on, from the command line."""
        return [f"starc::Graph {graph} = starc::read_graph({cl}.graph_path, {cl}.undirected);"]

    def edge_count(self, graph: str) -> str:
        """``g.num_edges()`` in host code: the whole graph's edge count (``graph.num_edges``
        is also the length of the edge arrays, which a distributed graph holds in part)."""
        return f"{graph}.num_edges"

    def weight_bound(self, local: str, largest: bool) -> str:
        """``minWt``/``maxWt`` in host code from ``local``, the bound of the weights this
        process holds (a distributed graph holds a part of them)."""
        return local

    def graph_state(self, graph: str) -> str:
        """The host variable a Dynamic program's trials restore: the graph, or what holds it
        (a distributed run's distribution)."""
        return graph

    def rebuild_part(self, change: str, parts: List[Tuple[str, str]],
                     in_place: bool = True) -> List[str]:
        """A distributed graph's batch ``parts`` ((C++ part, kind ``'d'``/``'a'``): one, or
        the deletions then the additions of a fused update) applied to each rank's rows, in
        place where it can (``in_place``) or its part laid out again once; ``change`` names
        what the arrays of the local index space need to follow (``carry_local``,
        ``carry_edges``)."""
        self.missing("a distributed graph update")

    def carry_local(self, var: str, elem, change: str) -> List[str]:
        """A per-vertex array of the local index space carried through ``rebuild_part``."""
        self.missing("a distributed graph update")

    def carry_edges(self, var: str, elem, change: str, capacity: str,
                    added=None) -> List[str]:
        """An edge property carried through ``rebuild_part`` to its edges' new slots, in an
        array of at least ``capacity`` (the host variable of the edge arrays' length, raised
        where the slots outgrow it); an added edge's value from host vector ``added`` by slot
        (its update's weight) if given, else 0 / False."""
        self.missing("a distributed graph update")

    def guarded_main(self, program: str) -> str:
        """The call that runs main's body (a lambda that follows) and maps errors to exit
        statuses, up to the lambda's opening brace."""
        return f'starc::guarded_main("{program}", [&] {{'

    def report(self, lines: List[str]) -> List[str]:
        """The statements that print ``--time`` and the results."""
        return lines

    def result_vector(self, vector: str, elem: Scalar, graph: str) -> List[str]:
        """Declares the host vector a ``propNode`` result is copied into (``copy_to_host``)."""
        return [f"std::vector<{self.storage_type(elem)}> {vector}"
                f"(static_cast<size_t>({graph}.num_nodes));"]

    def results(self, results: str, cl: str, function: str, props: Sequence[Tuple[str, str]],
                returned: Optional[str], graph: str) -> List[str]:
        """The statements that print the results (``props``: each result's name and host
        vector; ``returned``: the variable holding the return value, if any) as the shared
        format says, through ``starc::Results`` named ``results``."""
        lines = [f'starc::Results {results}({cl}, "{function}", "{self.name}");']
        for name, vector in props:
            lines.append(f'{results}.prop("{name}", {vector}.data(), {graph}.num_nodes);')
        if returned is not None:
            lines.append(f"{results}.ret({returned});")
        lines.append(f"{results}.close();")
        return self.report(lines)

    def setup(self, where: str) -> List[str]:
        """Before the timer: device selection, context/queue creation, timing events."""
        return []

    def warm_up(self, where: str) -> List[str]:
        """After the graph is resident, before the timer: what makes the first launch cost
        what later ones do (loading or compiling kernels, starting worker threads)."""
        return []

    def trial_end(self, where: str) -> List[str]:
        """After each timed run (``--trials``), before its time is printed: what makes
        ``timer_seconds`` the run's time (MPI: the slowest rank's, a collective)."""
        return []

    def teardown(self, where: str) -> List[str]:
        """After the last run, before the results are printed."""
        return []

    # The --time stopwatch, one for every backend: the shared runtime's ``starc::Timer`` (host
    # steady clock). The printer stops it after ``synchronize``, so device work is complete.
    def timer_start(self, where: str) -> List[str]:
        return [f"starc::Timer {TIMER};", f"{TIMER}.start();"]

    def timer_stop(self, where: str) -> List[str]:
        return [f"{TIMER}.stop();"]

    def timer_seconds(self) -> str:
        return f"{TIMER}.seconds()"

    def stopwatch_seconds(self, timer: str) -> Tuple[List[str], str]:
        """After ``trial_end``: the statements and the expression of the run's time on a
        Dynamic program's stopwatch ``timer`` (``UPDATE_TIMER``, ``BATCH_TIMER``; MPI: the
        slowest rank's, a collective)."""
        return [], f"{timer}.seconds()"

    # --- device memory -----------------------------------------------------------------------
    def allocate(self, var: str, elem: Scalar, count: str, where: str) -> List[str]:
        self.missing("allocating a device array")

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        self.missing("freeing a device array")

    def copy_to_device(self, var: str, elem: Scalar, host: str, count: str,
                       where: str) -> List[str]:
        self.missing("a host-to-device copy")

    def staging_kept(self, staging: str) -> List[str]:
        """The declaration of ``staging`` once, before the batches: every device runtime's
        ``starc_scatter_staging`` keeps its buffers across them (grown only when a batch
        needs more)."""
        return [f"starc_scatter_staging {staging};  // a batch's slots and moves, kept with "
                "their buffers"]

    def stage_slots(self, staging: str, slots: str, where: str) -> List[str]:
        """``staging`` (declared by ``staging_kept``): the device copy of the slot ids in
        host vector ``slots`` (the slots a batch wrote in rows with slack), for
        ``scatter_to_device``."""
        self.missing("staging changed slots")

    def stage_moves(self, staging: str, records: str, moved: str, where: str) -> List[str]:
        """The move records in host vector ``records`` (``SlotChange::move_records``; ``moved``
        slots in all) copied to ``staging`` (kept: ``staging_kept``), for ``move_on_device``."""
        self.missing("staging a batch's moves")

    def move_on_device(self, var: str, elem: Scalar, staging: str, where: str) -> List[str]:
        """The staged moves applied to device array ``var``: every span copied into a scratch
        array, then to its new slots."""
        self.missing("moving a batch's spans on the device")

    def gather_from_device(self, host: str, var: str, elem: Scalar, staging: str,
                           where: str) -> List[str]:
        """Device array ``var``'s elements at the staged slots, gathered into one transfer and
        written to the same places of host array ``host``."""
        self.missing("a gather of slots")

    def scatter_to_device(self, var: str, elem: Scalar, host: str, staging: str,
                          where: str) -> List[str]:
        """``host``'s elements at the staged slots, packed, copied and written to the same
        places of device array ``var``."""
        self.missing("a scatter of changed slots")

    def copy_to_host(self, host: str, var: str, elem: Scalar, count: str,
                     where: str) -> List[str]:
        self.missing("a device-to-host copy")

    def fill(self, var: str, elem: Scalar, value: str, count: str, where: str) -> List[str]:
        self.missing("filling a device array")

    def copy_device(self, dst: str, src: str, elem: Scalar, count: str,
                    where: str) -> List[str]:
        self.missing("a device-to-device copy")

    def swap(self, a: str, b: str, elem: Scalar, where: str) -> List[str]:
        return [f"std::swap({a}, {b});"]

    def write_element(self, var: str, elem: Scalar, index: str, value: str,
                      where: str) -> List[str]:
        self.missing("writing one device element")

    def read_element(self, var: str, elem: Scalar, index: str, where: str) -> str:
        self.missing("reading one device element")

    # --- blocks of one-value arrays read back together (``Specialization.scalar_packs``) -------
    def pack_slot_words(self, size: str) -> str:
        """A block slot's size in 8-byte words as C++ text: ``"1"``, or ``size``, the variable
        ``pack_slot_lines`` declares where the device decides it at run time."""
        return "1"

    def pack_slot_lines(self, size: str, where: str) -> List[str]:
        """The lines that declare ``size`` (see ``pack_slot_words``), before the block."""
        return []

    def pack_member(self, var: str, elem: Scalar, block: str, offset: str,
                    where: str) -> List[str]:
        """Array ``var`` (declared) made the slot of ``block`` (8-byte words) at ``offset``:
        a pointer into it, where device arrays are pointers."""
        return [f"{var} = reinterpret_cast<{self.storage_type(elem)}*>({block} + {offset});"]

    def free_member(self, var: str, elem: Scalar, where: str) -> List[str]:
        """What releases member ``var`` of a block before the block is freed."""
        return []

    def order_by_degree(self, order: str, graph: str, mode: str) -> Tuple[List[str], str, str]:
        """The plan's ``OrderByDegree``: the lines that renumber ``graph`` by degree (``mode``:
        the ``--degree-order`` variable) into a variable named ``order``, the C++ condition
        under which the renumbered arrays are copied in ("true": always), and where each
        renumbered CSR array's data is (``{}``: offsets, targets, sources)."""
        return ([f"starc::DegreeOrder {order} = starc::order_by_degree({graph}, {mode});"],
                f"{order}.applied", f"{order}.{{}}.data()")

    def least_labels(self, labels: str, name: str, where: str) -> List[str]:
        """The plan's ``LeastLabels``: ``labels`` (the variable of the plan's array ``name``)
        the least of each weakly connected component (a distributed target's runtime; the
        others run the union-find's kernels)."""
        self.missing("the runtime's least labels of each component")

    def renumbered(self, order: str) -> str:
        """The C++ condition that ``order_by_degree``'s ``order`` renumbered the graph (it was
        then symmetric and simple), which launches a count's swapped-row variant."""
        return f"{order}.applied"

    # --- kernels -----------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        self.missing("a kernel launch")

    def on_lockstep_device(self) -> str:
        """The C++ condition that the program's device runs work items in lockstep, which
        picks a kernel's variant for such devices (``Kernel.lockstep_variant``)."""
        self.missing("a kernel variant for lockstep devices")

    def synchronize(self, where: str) -> List[str]:
        return []

