"""Per-backend counts of a program for the compare page's headers: lines, kernels, transfers,
atomics by kind, reductions, barriers or (MPI) messages, from the same facts as ``decisions``."""

from __future__ import annotations

from collections import Counter
from typing import Dict, Mapping

from starc.analysis import plan as P
from starc.analysis.host_tree import host_exprs, launched_kernels, walk_host
from starc.backends import get_backend
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["backend_counts"]


def backend_counts(comp, generated_by_backend: Mapping[str, object]) -> Dict[str, Dict[str, int]]:
    """backend -> ordered counts for ``comp`` (a ``driver.Compilation`` with a plan), given
    what each backend generated (a ``GeneratedProgram``; anything else, e.g. None for a
    backend that cannot run the program, gives {}):

    ``lines``: lines of the files generated for this program (not the backend's runtime
    headers, the same for every program); ``kernels``: outlined foralls; ``transfers``:
    the places the host copies to or from the device (the graph and inputs once, the results
    once, single values and flags; 0 without device memory: MPI); ``atomics: <op>`` /
    ``CAS loops: <op>``: atomic update sites by operator, by whether the backend has the
    instruction or loops; ``reductions``: scalar reductions; ``barriers``: places the host
    waits for the device to read a value back, or for MPI ``messages``: the collective
    exchanges of every superstep (combined updates, ghost refreshes, one per reduced value).
    """
    from starc.teaching.decisions import atomic_form
    result: Dict[str, Dict[str, int]] = {}
    for name, generated in generated_by_backend.items():
        files = getattr(generated, "files", None)
        if files is None:
            result[name] = {}
            continue
        backend = get_backend(name)
        plan = backend.form_of(comp.plan)   # a fixedPoint as this backend runs it
        kernels = launched_kernels(plan)
        counts: Dict[str, int] = {"lines": sum(len(files[f].splitlines())
                                               for f in generated.program_files),
                                  "kernels": len(kernels)}
        writes, reads = _host_transfers(plan)
        counts["transfers"] = writes + reads if backend.copy_to_device else 0
        atomics: Counter = Counter()
        for kernel in kernels:
            for op, elem, used in _atomic_sites(kernel, backend):
                form = atomic_form(name, op, elem, used)
                atomics[("CAS loops: " if form == "loop" else "atomics: ") + op] += 1
        counts.update(sorted(atomics.items()))
        counts["reductions"] = sum(len(k.reductions) for k in kernels)
        if backend.copy_to_device:
            counts["barriers"] = reads
        else:
            from starc.analysis.distribution import distribute
            steps = distribute(plan).steps.values()
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
        reads += isinstance(stmt, P.FromDevice)
        reads += sum(isinstance(x, P.DeviceRead) for x in host_exprs(stmt))
    return writes, reads


def _atomic_sites(kernel: P.Kernel, backend):
    """(operator, element type, whether the old value is used) of each atomic the kernel
    performs on this backend: a private scalar reduction is one combine per work item, and
    none where the backend reduces it natively."""
    if kernel.extent == "single":
        return
    privates = {}
    for red in kernel.reductions:
        if backend.native_reduction(kernel, red) is not None:
            privates[red.sym.uid] = None
        elif red.private:
            privates[red.sym.uid] = red
            yield P.ATOMIC_OPS[red.op], red.sym.type, False
    for node in ir.walk(kernel.body):
        if isinstance(node, P.AtomicMinMax):
            op, used = node.func, bool(node.others or node.then or node.locked)
        elif isinstance(node, P.AtomicReduce) and node.target.type is not Scalar.BOOL:
            op, used = node.op, False
        else:
            continue
        if isinstance(node.target, ir.VarRef) and node.target.sym.uid in privates:
            continue
        yield P.ATOMIC_OPS[op], node.target.type, used
