"""Per-backend counts of a program for the compare page's headers: lines, kernels, transfers,
atomics by kind, reductions, barriers or (MPI) messages, from the same facts as ``decisions``."""

from __future__ import annotations

from collections import Counter
from typing import Dict, Mapping

from starc.analysis import plan as P
from starc.analysis.host_tree import host_exprs, launched_kernels, walk_host
from starc.ir import nodes as ir

__all__ = ["backend_counts"]


def backend_counts(found: Mapping[str, object]) -> Dict[str, Dict[str, int]]:
    """backend -> ordered counts, given each backend's ``decisions.Target`` (its specialized
    plan and what it generated; a backend that cannot run the program gives {}):

    ``lines``: lines of the files generated for this program (not the backend's runtime
    headers, the same for every program); ``kernels``: outlined foralls; ``transfers``:
    the places the host copies to or from the device (the graph and inputs once, the results
    once, single values and flags; 0 without device memory: MPI); ``atomics: <op>`` /
    ``CAS loops: <op>``: atomic update sites by operator, by whether the backend has the
    instruction or loops; ``reductions``: scalar reductions; ``barriers``: places the host
    waits for the device to read a value back, or for MPI ``messages``: the collective
    exchanges of every superstep (combined updates, ghost refreshes, one per reduced value).
    """
    result: Dict[str, Dict[str, int]] = {}
    for name, target in found.items():
        generated, plan = target.generated, target.plan
        if generated is None or plan is None:
            result[name] = {}
            continue
        files = generated.files
        backend = target.backend
        kernels = launched_kernels(plan)
        counts: Dict[str, int] = {"lines": sum(len(files[f].splitlines())
                                               for f in generated.program_files),
                                  "kernels": len(kernels)}
        writes, reads = _host_transfers(plan)
        counts["transfers"] = writes + reads if backend.copy_to_device else 0
        atomics: Counter = Counter()
        for kernel in kernels:
            for op, form in _atomic_sites(kernel):
                atomics[("CAS loops: " if form == "loop" else "atomics: ") + op] += 1
        counts.update(sorted(atomics.items()))
        counts["reductions"] = sum(len(k.reductions) for k in kernels)
        if backend.copy_to_device:
            counts["barriers"] = reads
        else:
            steps = plan.target.distribution.steps.values()
            counts["messages"] = sum(bool(s.updates) + bool(s.refresh) + len(s.scalars)
                                     for s in steps)
        result[name] = counts
    return result


def _host_transfers(plan: P.Plan):
    """(copies to the device, copies back) the host program holds, each counted once."""
    writes = sum(1 for a in plan.arrays if a.copy_in)
    reads = sum(1 for a in plan.arrays if a.copy_out)
    for stmt in walk_host(plan.host):
        writes += isinstance(stmt, (P.ToDevice, P.WriteElement))
        reads += isinstance(stmt, (P.FromDevice, P.FromDeviceMany))
        reads += sum(isinstance(x, P.DeviceRead) for x in host_exprs(stmt))
    return writes, reads


def _atomic_sites(kernel: P.Kernel):
    """(operator, form) of each atomic a specialized kernel performs: a private scalar
    reduction is one combine per work item, none where a native object reduces it, and a
    plain store (a bool's) is no atomic."""
    if kernel.extent == "single":
        return
    for red in kernel.reductions:
        if red.strategy in ("group", "private"):
            yield P.ATOMIC_OPS[red.op], red.combine
    for node in ir.walk(kernel.body):
        if isinstance(node, (P.AtomicMinMax, P.AtomicReduce)) and \
                node.form not in ("plain", "private"):
            op = node.func if isinstance(node, P.AtomicMinMax) else node.op
            yield P.ATOMIC_OPS[op], node.form
