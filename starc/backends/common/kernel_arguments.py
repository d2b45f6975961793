"""One kernel's names and arguments: the C identifiers its symbols get, and the ordered
argument list the host passes (``KernelArguments``), filled in while the body is printed."""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.naming import NameAllocator
from starc.backends.common.dialect import GRAPH_ARRAYS, INDENT, Dialect
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["NameTable", "KernelArg", "KernelCode", "CooperativeCode", "StepCode",
           "FrontierCode", "EdgeLoopCode",
           "KernelArguments",
           "BOUNDS"]

#: extent -> the name of the by-value argument that bounds a kernel's work items: the graph's
#: ``n`` or ``m``, or a worklist's length (``frontier.FRONTIER_COUNT``, bound at each launch).
BOUNDS = {"nodes": "n", "edges": "m", "frontier": "frontier_count"}


class NameTable:
    """C identifiers for symbols: the DSL name, made unique (``name_2``) and kept off
    keywords and generated names. One table per kernel."""

    def __init__(self, reserved: Sequence[str] = ()) -> None:
        self._names = NameAllocator(reserved)
        self._by_uid: Dict[int, str] = {}

    def reserve(self, name: str) -> None:
        self._names.reserve(name)

    def fresh(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "tmp"
        if base[0].isdigit() or base.startswith(("starc_", "__")):
            base = "v_" + base
        return self._names.unique(base)

    def bind(self, sym: ir.Symbol, preferred: Optional[str] = None) -> str:
        if sym.uid not in self._by_uid:
            self._by_uid[sym.uid] = self.fresh(preferred or sym.name)
        return self._by_uid[sym.uid]

    def lookup(self, sym: ir.Symbol) -> Optional[str]:
        return self._by_uid.get(sym.uid)


@dataclasses.dataclass
class KernelArg:
    """One kernel argument, in order. ``source`` says what the host passes:
    ``("size", "nodes"|"edges")``, ``("array", DeviceArray)``, ``("graph", csr_name)``,
    ``("host", Symbol)`` (a host scalar by value) or ``("kernel_scalar", name)``."""

    name: str
    elem: Scalar
    is_array: bool
    written: bool
    source: Tuple[str, object]


@dataclasses.dataclass
class CooperativeCode:
    """The heavy-vertex part of a ``binned`` kernel (``plan.CooperativeLoop``), printed one
    level deep: a vertex whose ``degree`` (C text) is at least the work-group's size is run
    by the whole group; every lane runs ``shared`` (the declarations and every
    ``starc_lanes``-th edge of the loop from edge ``starc_lane``: names the shell declares),
    the shell combines the lanes' ``accumulator`` (of C type ``type``) two at a time with
    ``combine`` (C text with the operands as ``{0}`` and ``{1}``: ``{0} + {1}``, or a wrapping
    helper's call), and the group's first lane runs ``rest`` with the result."""

    degree: str
    shared: List[str]
    accumulator: str
    type: str
    combine: str
    rest: List[str]
    warp_from: int = 0          # the degree from which a vertex goes to its warp (0: none)
    order: str = ""             # the array of the vertex each item takes ("": its own id)
    group_from: int = 1         # a vertex goes to the group from this many times its size
    #: a body of several loops run step by step (``plan.CooperativeLoop.steps``): then
    #: ``shared`` and ``rest`` are empty, ``type`` the folds' (if any)
    steps: List["StepCode"] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class EdgeLoopCode:
    """One push loop of a worklist entry (``FrontierCode``), its lines at depth 0: the
    entry's ``degree`` in it (C text), its row's ``begin``; at the edge's ``position`` (a
    ``const int`` the shell declares), ``binding`` declares the loop's variables and ``body``
    runs the iteration (its filter tested)."""

    degree: str
    begin: str
    position: str
    binding: List[str]
    body: List[str]


@dataclasses.dataclass
class FrontierCode:
    """A worklist round's ``edges`` schedule (``plan.FrontierEdges``), printed: ``entry``
    declares the entry's ``vertex`` (lines at depth 0), ``test`` ("" for none) says whether
    it has work, ``loops`` its push loops, one after the other; ``after``: the statements its
    item runs once it has tested it (``FrontierEdges.after``); ``window`` ("" for none): whether
    an entry that passed the test is below its priority window (``FrontierEdges.windowed``), and
    ``deferred`` the statements that defer it where not, with no work."""

    entry: List[str]
    vertex: str
    test: str
    loops: List[EdgeLoopCode]
    after: List[str] = dataclasses.field(default_factory=list)
    window: str = ""
    deferred: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class StepCode:
    """One printed step of a heavy vertex's body (``plan.CooperativeStep``), its lines at
    depth 0: ``all``/``push``/``leader`` run ``lines`` (every lane; every lane its
    ``starc_lanes``-th edges; the first lane); ``fold`` runs ``lines`` on every lane, then the
    shell combines ``accumulator`` with ``combine`` into the first lane; ``search`` tests the
    edges ``begin`` to ``end`` (backwards where ``descending``) a group at a time: at position
    ``position`` (``const int``), ``binding`` declares what ``test`` reads (C text; "" for
    every edge), and the first lane that found one runs ``winner_binding`` and ``lines``;
    ``branch`` shares the first lane's ``test`` and runs ``then`` or ``orelse``."""

    kind: str
    lines: List[str] = dataclasses.field(default_factory=list)
    accumulator: str = ""
    combine: str = ""
    begin: str = ""
    end: str = ""
    position: str = ""
    descending: bool = False
    binding: List[str] = dataclasses.field(default_factory=list)
    test: str = ""
    winner_binding: List[str] = dataclasses.field(default_factory=list)
    then: List["StepCode"] = dataclasses.field(default_factory=list)
    orelse: List["StepCode"] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class KernelCode:
    """A printed kernel: the backend wraps ``body`` (already indented one level) in its shell,
    after declaring ``index`` from the thread id and returning when ``index >= n`` (nodes) or
    ``index >= m`` (edges); a single-item kernel is launched as exactly one work item.

    The body comes in parts, for a shell that runs several items per work item (OpenCL's
    runs): ``guard`` skips an item when true (C text, None: none); ``setup`` (the private
    accumulators) comes once before the items, ``item`` for each, ``finish`` (their combine)
    once after."""

    name: str
    extent: str                # "nodes" (bound n), "edges" (bound m), "frontier" (bound
                               # frontier_count) or "single" (one item): see BOUNDS
    index: Optional[str]       # None: a single-item kernel that does not use its index
    args: List[KernelArg]
    comment: str               # "// file.sp:LINE"
    features: Set[str]         # e.g. {"double", "atomic_add_long"}
    guard: Optional[str]
    setup: List[str]
    item: List[str]
    finish: List[str]
    marker: str                # the forall's source-map marker, for lines a shell adds
    skip_item: str             # the dialect's statement that skips one item ("return")
    cooperative: Optional[CooperativeCode] = None   # a binned kernel's heavy vertices
    frontier: Optional["FrontierCode"] = None       # a worklist round's edges, split
    #: the local arrays the body's group folds use (``binned_shell.LocalArray``), which a
    #: shell whose launch makes local memory makes (``GroupSyntax.bind_local``)
    group_locals: List = dataclasses.field(default_factory=list)
    #: every item does the same small work (the plan's ``Kernel.uniform_items``): a shell
    #: that runs several items per work item may take long runs of them on a CPU
    uniform: bool = False

    def skip(self, depth: int, statement: str) -> List[str]:
        """The guard's line at ``depth``, skipping with ``statement``; none without a guard."""
        if self.guard is None:
            return []
        return [f"{self.marker}{INDENT * depth}if ({self.guard}) {statement};"]

    @property
    def body(self) -> List[str]:
        """One item's whole body: the guard (skipping with ``skip_item``), setup, item and
        finish."""
        return self.skip(1, self.skip_item) + self.setup + self.item + self.finish


class KernelArguments:
    """One kernel's argument list: resolves the names its body uses (parameters, graph
    arrays, locals) to arguments and records which are used."""

    def __init__(self, kernel: P.Kernel, dialect: Dialect) -> None:
        self.kernel = kernel
        self.dialect = dialect
        self.names = NameTable(dialect.reserved | set(GRAPH_ARRAYS) | set(BOUNDS.values()))
        self.prop_arrays: Dict[int, KernelArg] = {}     # symbol uid -> array argument
        self.by_value: Dict[int, KernelArg] = {}        # symbol uid -> by-value argument
        self.reduction_arrays: Dict[int, KernelArg] = {}
        self.arrays_by_name: Dict[str, KernelArg] = {}
        self.graph_args: Dict[str, KernelArg] = {}
        self.used_graph: Set[str] = set()          # CSR arrays the printed code reads
        self.kernel_scalars: Dict[str, KernelArg] = {}
        self.params: List[KernelArg] = []
        #: the local arrays of the body's group folds (``group_end.GroupFold.partial``)
        self.group_locals: List = []
        self.uses_n = kernel.extent == "nodes"
        self.uses_m = kernel.extent == "edges"
        self.features: Set[str] = set()
        for param in kernel.params:
            self._add_param(param)
        for red in kernel.reductions:
            self.reduction_arrays[red.sym.uid] = self.array(red.array, written=True)

    def array(self, array: P.DeviceArray, written: bool = False) -> KernelArg:
        """The argument for device array ``array`` (added on first use)."""
        arg = self.arrays_by_name.get(array.name)
        if arg is not None:
            arg.written = arg.written or written
            return arg
        if array.role == "graph":
            if array.name not in GRAPH_ARRAYS:
                self.dialect.missing(f"the graph array '{array.name}'")
            arg = KernelArg(array.name, array.elem, True, written, ("graph", array.name))
            self.graph_args[array.name] = arg
        else:
            arg = KernelArg(self.names.fresh(array.name), array.elem, True, written,
                            ("array", array))
            if array.sym is not None and array.role == "scalar":
                self.reduction_arrays.setdefault(array.sym.uid, arg)
            elif array.sym is not None:
                self.prop_arrays[array.sym.uid] = arg
        self.arrays_by_name[array.name] = arg
        self.params.append(arg)
        return arg

    def _add_param(self, param: P.KernelParam) -> None:
        if param.array is not None:
            self.array(param.array, param.written)
        elif param.sym is not None:
            arg = KernelArg(self.names.fresh(param.name), param.elem, False, False,
                            ("host", param.sym))
            self.by_value[param.sym.uid] = arg
            self.params.append(arg)
        else:
            self.dialect.missing(f"the kernel parameter '{param.name}' (neither array nor "
                                 "scalar)")

    # --- resolution used by the printer ----------------------------------------------------
    def graph_array(self, name: str) -> str:
        if name not in self.graph_args:   # the plan's kernel parameters are complete
            self.dialect.missing(f"the graph array '{name}' in kernel {self.kernel.name} (the "
                                 "plan does not pass it)")
        self.used_graph.add(name)
        return name

    def row_ends(self, forward: bool) -> Optional[str]:
        """The array of where each row ends, when the plan passes one (rows with slack:
        ``P.ROW_ENDS``), else None: a row ends where the next one starts."""
        name = P.ROW_ENDS["offsets" if forward else "rev_offsets"]
        return self.graph_array(name) if name in self.graph_args else None

    def row_bounds(self, forward: bool, v: str) -> Tuple[str, str]:
        """The first position of row ``v`` (forward or reverse CSR) and the one past its end."""
        starts = self.graph_array("offsets" if forward else "rev_offsets")
        ends = self.row_ends(forward)
        return (self.dialect.index(starts, v),
                self.dialect.index(ends, v) if ends else self.dialect.index(starts, v + " + 1"))

    def num_nodes(self) -> str:
        self.uses_n = True
        return "n"

    def num_edges(self) -> str:
        self.uses_m = True
        return "m"

    def prop(self, sym: ir.Symbol, loc=None, written: bool = False) -> str:
        arg = self.prop_arrays.get(sym.uid)
        if arg is None:
            self.dialect.missing(f"property '{sym.name}' in kernel {self.kernel.name} (the "
                                 "plan gives no array for it)", loc)
        arg.written = arg.written or written
        return arg.name

    def kernel_scalar(self, name: str, t: Scalar) -> str:
        if name not in self.kernel_scalars:
            arg = KernelArg(self.names.fresh(name), t, False, False, ("kernel_scalar", name))
            self.kernel_scalars[name] = arg
            self.params.append(arg)
        return self.kernel_scalars[name].name

    def arguments(self) -> List[KernelArg]:
        sizes = []
        if self.uses_n:
            sizes.append(KernelArg("n", Scalar.INT, False, False, ("size", "nodes")))
        if self.uses_m:
            sizes.append(KernelArg("m", Scalar.INT, False, False, ("size", "edges")))
        if self.kernel.extent == "frontier":
            sizes.append(KernelArg(BOUNDS["frontier"], Scalar.INT, False, False,
                                   ("size", "frontier")))
        # The plan may list CSR arrays the printed code does not need (e.g. rev_edge_ids when
        # no edge of an in-neighbour loop is used): leave them out of the signature.
        return sizes + [a for a in self.params
                        if a.source[0] != "graph" or a.name in self.used_graph]
