"""The device backends' refusal of dynamic-graph programs (issue 31, until they apply updates).

The reference executor runs a Dynamic program over its update stream; the shared lowering,
and so every device backend, has no mutable graph yet. Rather than fail somewhere inside the
lowering, a program that reaches any dynamic-graph construct is refused before it starts, with
an E0501 at the first such construct (in the entry function, then in what it calls).
"""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Tuple

from starc.errors import BackendError
from starc.ir import nodes as ir
from starc.ir.types import UpdatesType

__all__ = ["refuse_dynamic_graphs", "first_dynamic_construct"]


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


def refuse_dynamic_graphs(program: ir.Program, entry: ir.Function) -> None:
    """Raise the E0501 ``BackendError`` for a program whose run updates its graph."""
    found = first_dynamic_construct(program, entry)
    if found is None:
        return
    what, loc = found
    kind = f"the Dynamic function '{entry.name}'" if entry.kind == "Dynamic" else \
        f"'{entry.name}'"
    raise BackendError(f"dynamic graphs: {what} in {kind} is not supported by the device "
                       "backends yet", loc)
