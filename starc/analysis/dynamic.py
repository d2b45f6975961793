"""The refusal of dynamic-graph programs by the device backends that do not run them (issue 31).

The reference executor runs a Dynamic program over its update stream, and the shared lowering
lowers one (``analysis.batches``); a backend whose capabilities say it keeps no mutable graph
yet (``Capabilities.dynamic_graphs``) refuses it in the specialize stage, with an E0501 at the
first dynamic-graph construct (in the entry function, then in what it calls), rather than fail
somewhere in its printer. ``g.propagateNodeFlags`` no device backend lowers yet.
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Tuple

from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import UpdatesType

__all__ = ["refuse_dynamic_graphs", "first_dynamic_construct", "refuse_construct"]


def _construct_name(node: ir.Node) -> Optional[str]:
    """What the message calls ``node``, or None when it is no dynamic-graph construct."""
    if isinstance(node, ir.Batch):
        return f"'Batch ({node.stream.name} : ...)'"
    if isinstance(node, ir.UpdateGraph):
        method = "updateCSRDel" if node.kind == "delete" else "updateCSRAdd"
        return f"'{node.graph.name}.{method}({node.stream.name})'"
    if isinstance(node, ir.PropagateFlags):
        return f"'{node.graph.name}.propagateNodeFlags({node.prop.name})'"
    if isinstance(node, ir.CurrentBatch):
        return f"'{node.stream.name}.currentBatch()'"
    if isinstance(node, ir.UpdateMembers):
        return {"add": "'OnAdd'", "delete": "'OnDelete'"}.get(node.only, "a loop over updates")
    if isinstance(node, ir.UpdateField):
        return f"the update field '.{node.field}'"
    return None


def _functions_reached(program: ir.Program, entry: ir.Function) -> Iterator[ir.Function]:
    """``entry``, then every function it calls, transitively, each once."""
    by_name: Dict[str, ir.Function] = {fn.name: fn for fn in program.functions}
    seen, pending = set(), [entry]
    while pending:
        fn = pending.pop(0)
        if fn.name in seen:
            continue
        seen.add(fn.name)
        yield fn
        pending.extend(by_name[name] for name in ir.called_names(fn) if name in by_name)


def first_dynamic_construct(program: ir.Program,
                            entry: ir.Function) -> Optional[Tuple[str, object]]:
    """(name, location) of the first dynamic-graph construct the run of ``entry`` reaches:
    an ``updates<g>`` parameter, then the constructs of the body in source order."""
    for fn in _functions_reached(program, entry):
        for param in fn.params:
            if isinstance(param.type, UpdatesType):
                what = f"the update stream '{param.name}' (an '{param.type}' parameter)"
                return what, param.loc if param.loc.line else fn.loc
        for node in ir.walk(fn.body):
            name = _construct_name(node)
            if name is not None:
                return name, node.loc
    return None


def _refusal(entry: ir.Function, what: str, loc, by: str) -> BackendError:
    kind = f"the Dynamic function '{entry.name}'" if entry.kind == "Dynamic" else \
        f"'{entry.name}'"
    return BackendError(f"dynamic graphs: {what} in {kind} is not supported by {by} yet", loc)


def refuse_dynamic_graphs(program: ir.Program, entry: ir.Function, title: str) -> None:
    """Raise the E0501 ``BackendError`` for a program whose run updates its graph, on a
    backend (``title``) that keeps no mutable graph yet."""
    found = first_dynamic_construct(program, entry)
    if found is None:
        return
    what, loc = found
    error = _refusal(entry, what, loc, f"the {title} backend")
    error.hint = ("'-b reference' runs it, and so do the opencl, cuda, sycl, openacc and mpi "
                  "backends")
    raise error


def refuse_construct(entry: ir.Function, node: ir.Node) -> None:
    """Raise the E0501 for a dynamic-graph construct no device backend lowers yet."""
    raise _refusal(entry, _construct_name(node), node.loc, "the device backends")

