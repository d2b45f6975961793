"""What one backend's target can express, as data: the input of the specialize stage.

Each backend package declares one ``Capabilities`` (``Backend.capabilities``); only
``analysis.specialize`` reads it, and the printers read what it decided from the plan. The
prose a teaching view shows for a decision is derived from these fields there too, so a
backend states facts (``worklists=False``), never explanations.
"""

from __future__ import annotations

from typing import FrozenSet, Tuple

from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["Capabilities", "Family"]

#: an atomic operation on one element type: (``add`` ``sub`` ``mul`` ``and`` ``or`` ``min``
#: ``max``, the element type)
Family = Tuple[str, Scalar]


@record
class Capabilities(Record):
    """A target's capabilities (see the module docstring)."""

    backend: str
    #: the backend's name in prose ("CUDA")
    title: str
    #: work items may append to a queue that the next round reads (a fixedPoint's worklist)
    worklists: bool = True
    #: processes hold parts of the graph and exchange after every kernel (MPI)
    distributed: bool = False
    #: the host keeps a mutable graph: a Dynamic program's batches are applied (issue 31,
    #: ``analysis.batches``); without it such a program is refused with an E0501
    dynamic_graphs: bool = False
    #: a Dynamic program's kernels may read the graph in rows with slack (a row's end from
    #: ``ends[v]``; ``analysis.batches.slack_rows``), so that a batch touches only its rows
    slack_rows: bool = False
    #: with ``slack_rows``: the host applies a batch's moves to the device copies as move
    #: records (``ApplyUpdates.span_moves``), not as the moved slots' values
    span_moves: bool = False
    #: the host may replace the device CSR by a degree-ordered copy inside the timed span
    renumbers_graph: bool = True
    #: the kernel compiler makes signed + - * wrap (g++ -fwrapv)
    wraps_signed: bool = False
    #: byte-sized atomic read-modify-writes (a bool &= / |= needs none: a plain store)
    byte_atomics: bool = False
    #: reduction operators that a native reduction object carries for a work item's private
    #: partial results (``sycl::reduction``, a ``reduction`` clause), and how it is called
    native_reductions: FrozenSet[str] = frozenset()
    native_reduction_object: str = ""
    #: the native reduction object also serves a kernel whose work-groups share local memory
    #: (a binned kernel, a split worklist round); where not, such a kernel's reductions are
    #: private, with one atomic per work item
    native_reductions_in_groups: bool = True
    #: (operator, type) whose work-item privates a group folds before one atomic (CUDA's
    #: warp-aggregated combine, OpenCL's work-group tree in local memory at the kernel's end)
    group_reductions: FrozenSet[Family] = frozenset()
    #: families with an atomic instruction (``native``) or an atomic directive, the rest being
    #: compare-and-swap loops; and those with a cheaper form whose old value is unused
    atomic_instructions: FrozenSet[Family] = frozenset()
    #: instructions that are compare-and-swap loops on some implementations of the target,
    #: and where, in words (SYCL's fetch_min on AdaptiveCpp, which returns the new value)
    atomic_fallbacks: Tuple[Tuple[Family, str], ...] = ()
    atomic_directives: FrozenSet[Family] = frozenset()
    atomic_updates: FrozenSet[Family] = frozenset()
    #: the kernel schedules it prints (``analysis.schedules``), and whether its work items run
    #: in lockstep groups (GPU warps), where a hub holds up the items of its group
    schedules: FrozenSet[str] = frozenset({"vertex", "edges"})
    lockstep: bool = False
    #: a program learns only at run time whether its device runs work items in lockstep
    #: (OpenCL's CL_DEVICE_TYPE): where auto would choose another schedule for a lockstep
    #: device, the kernel gets a variant for it, and the host launches one or the other
    lockstep_at_run_time: bool = False
    #: the width of lockstep sub-groups whose lanes exchange values (warp shuffles; 0: none):
    #: a binned kernel gives vertices of middling degree to one sub-group
    sub_group_width: int = 0
    #: it has sub-groups, but no ballot over them (SYCL 2020): the warp tier, which picks a
    #: warp's next marked vertex by a ballot, is left out, and the reasons say so
    sub_groups_without_ballot: bool = False
    #: the lanes of a lockstep group exchange values in divergent code, among the lanes that
    #: reach the call together (CUDA's ``*_sync`` intrinsics over ``__activemask()``)
    divergent_exchange: bool = False
    #: work-group functions (barriers, local memory, group algorithms) that every work item of
    #: the group must reach (OpenCL 1.2, SYCL)
    converged_group_functions: bool = False
    #: every work item of a group reaches the kernel's end (no early return), where the group
    #: may meet at barriers: worklist appends are staged in local memory and take their slots
    #: with one atomic per work-group there (OpenCL's shells, SYCL's command groups)
    staged_appends: bool = False
    #: a kernel may run as one work-group whose work items meet at barriers inside loops, with
    #: their global memory writes visible to the group after each: a BFS's small levels run
    #: there one after the other without the host between them (``bfs_rounds``)
    group_rounds: bool = False
    #: kernels are loops whose gangs may each run a chunk of items on their vector lanes,
    #: with gang-private memory the lanes share (OpenACC's ``loop gang private(...)``, GPU
    #: shared memory under GCC) and gang-redundant code between vector loops: worklist
    #: appends are staged per gang, one global atomic per gang (``QueueAppend.form`` ``gang``)
    gang_staged_appends: bool = False
    #: a vertex's work item is a gang of vector lanes that may share its neighbour loops
    #: (OpenACC's ``loop vector``): the binned schedule spreads every vertex's loop, a pull's
    #: fold (a reduction clause) or a push's iterations, with no split by degree
    vector_loops: bool = False
    #: its binned kernels may run a body of several neighbour loops step by step (a fold, a
    #: push, a search that stops the group at the first edge found, under an if/else on the
    #: vertex: ``analysis.cooperative``), not only one pull loop
    cooperative_bodies: bool = False
    #: it prints a worklist round's ``edges`` schedule: a work-group splits its entries' edges
    #: by a prefix sum and a search in local memory (``analysis.frontier_edges``)
    frontier_edges: bool = False
    #: a minimum-label propagation runs as a union-find (``analysis.union_find``): its kernels
    #: link and find the trees of a forest (an int compare-and-swap on device memory), or, on
    #: a distributed target, its runtime joins the ranks' forests (``LeastLabels``)
    union_find: bool = False
