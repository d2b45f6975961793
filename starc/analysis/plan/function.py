"""The plan of one function (``Plan``) and the specialize stage's decisions for one backend."""

from __future__ import annotations

from dataclasses import field
from typing import FrozenSet, Optional, Tuple

from starc.analysis.plan.host import HostBlock, ScalarPack
from starc.analysis.plan.kernels import DeviceArray, Kernel
from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir import nodes as ir
from starc.records import Record, record


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
    """How the target runs one fixedPoint that has a worklist, or one iterateInBFS whose
    small top-down steps may walk a queue (``DataDrivenLoop``, at ``loc``): ``worklist`` or
    ``topology``, and why."""

    loc: SourceLoc
    form: str
    why: str
    #: an iterateInBFS's top-down steps (``DataDrivenLoop.traversal``), not a fixedPoint
    traversal: bool = False
    #: (form ``worklist`` on a target that learns its device kind at run time) what a GPU
    #: device runs instead, and why; "": the same form
    on_gpu: str = ""
    #: (an iterateInBFS's worklist form) whether its small levels run in one work-group's
    #: rounds, and where not why (``bfs_rounds.choose_rounds``); "": no such kernel
    rounds: str = ""
    #: (a fixedPoint that is minimum-label propagation: ``analysis.union_find``) why it does
    #: not run as a union-find on this target; "": it does (form ``union-find``) or it is none
    union_find: str = ""


@record
class UnionFindForm(Record):
    """The fixedPoint at ``loc`` as a union-find (``analysis.union_find``): ``host``, its
    statements, which launch ``kernels`` over the added ``arrays``; the specialize stage puts
    them in the loop's place where the target can, else drops them."""

    loc: SourceLoc
    host: HostBlock
    kernels: Tuple[Kernel, ...]
    arrays: Tuple[DeviceArray, ...]
    #: the labels were the vertices' ids when the loop started, so they are the forest itself
    #: (a root is its tree's least id); else a forest of its own, whose roots take the least
    #: label of their trees
    ids: bool = False
    #: what a distributed target runs in the loop's place instead: the labels' least over each
    #: component by its runtime (``LeastLabels``), then the loop's end state
    ranks: Optional[HostBlock] = None


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
    #: (the neutral plan) the fixedPoints that may run as a union-find, in that form
    components: Tuple[UnionFindForm, ...] = ()

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
