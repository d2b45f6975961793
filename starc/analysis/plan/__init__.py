"""The lowered program (the plan): device arrays, outlined kernels and host operations.

This is the contract between the backend-neutral analyses (``starc.analysis``) and every
GPU-style backend. Analyses decide *what* happens (which foralls become kernels, what is
copied when, which updates are atomic, how fixedPoint and BFS run); a backend only decides
*how* to spell each abstract operation, through its own table.

Kernel bodies are typed IR (``starc.ir.nodes``) in which the analyses have replaced the
constructs that need a decision by the lowered statements of ``plan.kernels`` (``AtomicReduce``,
``AtomicMinMax``, ``FlagSet``, ``ScalarStore``). After lowering, a kernel body contains no
``Reduce`` or ``MinMaxAssign`` on shared data, no fixedPoint property writes (they target the
next-iteration buffer, see ``FixedPointLoop``) and no BFS-role neighbour loops (they are plain
``Neighbors``/``InNeighbors`` loops filtered on the BFS level array).

Host bodies (``plan.host``) are trees of ``HostStmt``s: control flow over host scalars plus the
abstract device operations (``Launch``, ``Fill``, ``CopyArray``, ``SwapArrays``,
``WriteElement``, ``ToDevice``, ``FromDevice``). Host expressions are typed IR expressions in
which every read of a device property element is a ``DeviceRead``. ``plan.function`` holds the
whole (``Plan``) and the specialize stage's decisions for one backend (``Specialization``).

The records live in those three modules; this package exports every one of them, so a user
writes ``from starc.analysis.plan import Launch`` whichever module defines it.
"""

from __future__ import annotations

from starc.analysis.plan.kernels import (
    ATOMIC_OPS, GRAPH_ARRAYS, ROW_ENDS, BINNED_RUN, ROUND_SLOTS, WINDOW_SLOTS, DeviceArray,
    KernelParam,
    ScalarReduction, Kernel, CooperativeLoop, FrontierEdges, CooperativeStep, VectorLoop,
    RowScan, AtomicReduce, AtomicMinMax, FlagSet, ScalarStore, QueueAppend, QueueCount,
    QueueReset, CursorQuery, LiveSlot, KernelScalar, GroupBarrier, GroupLanes, PriorityWindow,
    WindowDelta, OnLockstepDevice, UnionFindRoot, UnionFindLink, UnionFindSample,
    DeviceRead, HostCheckedIndex,
)
from starc.analysis.plan.host import (
    HostStmt, HostBlock, HostDeclare, HostAssign, HostReduce, HostIf, HostWhile, HostDoWhile,
    HostForSet, HostForRange, CheckErrors, HostReturn, HostBreak, HostContinue, Launch, Fill,
    CopyArray, SwapArrays, WriteElement, ToDevice, FromDevice, ScalarPack, FromDeviceMany,
    ReadSlots, LeastLabels,
    OrderByDegree, BatchLoop, EDGE_ROOM, ApplyUpdates, UpdateLoop, FixedPointLoop, Worklist,
    DataDrivenLoop, BFSLoop, BFSQueue,
)
from starc.analysis.plan.function import (
    ParentValue, LoopForm, UnionFindForm, Specialization, Plan,
)

__all__ = [
    "ATOMIC_OPS", "GRAPH_ARRAYS", "ROW_ENDS", "BINNED_RUN", "ROUND_SLOTS", "WINDOW_SLOTS",
    "DeviceArray",
    "KernelParam", "ScalarReduction", "Kernel", "CooperativeLoop", "FrontierEdges", "CooperativeStep",
    "VectorLoop", "RowScan", "AtomicReduce", "AtomicMinMax", "FlagSet", "ScalarStore",
    "QueueAppend", "QueueCount", "QueueReset", "CursorQuery", "LiveSlot", "KernelScalar",
    "GroupBarrier", "GroupLanes", "PriorityWindow", "WindowDelta", "OnLockstepDevice",
    "UnionFindRoot", "UnionFindLink", "UnionFindSample", "DeviceRead", "HostCheckedIndex", "HostStmt", "HostBlock", "HostDeclare", "HostAssign", "HostReduce",
    "HostIf", "HostWhile", "HostDoWhile", "HostForSet", "HostForRange", "CheckErrors",
    "HostReturn", "HostBreak", "HostContinue", "Launch", "Fill", "CopyArray", "SwapArrays",
    "WriteElement", "ToDevice", "FromDevice", "ScalarPack", "FromDeviceMany", "ReadSlots",
    "LeastLabels", "OrderByDegree",
    "BatchLoop", "EDGE_ROOM", "ApplyUpdates", "UpdateLoop", "FixedPointLoop", "Worklist",
    "DataDrivenLoop", "BFSLoop", "BFSQueue", "ParentValue", "LoopForm", "UnionFindForm", "Specialization", "Plan",
]
