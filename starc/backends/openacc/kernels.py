"""OpenACC kernels: the dialect of loop bodies, the kernel function shell, the prelude.

Each plan kernel becomes a host function holding one ``#pragma acc parallel loop`` over its
vertices or edges (a single-item kernel: a loop of one iteration), whose body is the shared
``cfamily`` printer's output: each item on a lane of its own (``gang vector``), or, for a
binned kernel, each vertex on a gang whose vector lanes share its neighbour loops
(``#pragma acc loop vector``, a ``reduction`` clause per fold: ``plan.VectorLoop``). A kernel
whose worklist appends (or dense-round counts) are staged per gang (``QueueAppend.form``
``gang``) runs a gang per chunk of ``STARC_GANG_CHUNK`` items instead, the items on its vector
lanes, its queues gang-private, one global atomic per gang after them (``_gang_chunks``).
Every array the loop touches is named in a ``present(...)``
clause with its full extent: the arrays were placed on the device once, before the algorithm
(``host``), and a kernel never moves data. A private scalar reduction of the plan
(``ScalarReduction.private``) becomes a ``reduction(op:x)`` clause on a local of the function,
combined into the scalar's device copy by one single-gang region after the loop.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from starc.analysis import plan as P
from starc.backends.common import group_end
from starc.backends.common.atomic_helpers import directive_atomics
from starc.backends.common.cfamily import INDENT, KernelArg, KernelCode, lower_kernel
from starc.backends.common.dialect import reducer_names
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.kernel_arguments import BOUNDS
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.backends.common.host_loops import (REDUCTION_OPERATORS, HostLoopDialect,
                                              directive_capabilities, function_parameters,
                                              native_reductions, reducer_name,
                                              reduction_identity, wrap_list)
from starc.ir import nodes as ir

__all__ = ["ATOMICS", "CAPABILITIES", "CUDA_ATOMICS", "GANG_CHUNK", "GANG_CHUNK_DEFAULT",
           "OpenACCDialect", "OpenACCKernel", "print_kernel", "RUNTIME_HEADER", "runtime_header",
           "section"]

#: The OpenACC helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_openacc.hpp"

#: The macro under which the prelude's atomics are CUDA's: templates/prelude.hpp.mako defines
#: it under nvc++, whose device code rejects GCC's __atomic builtins.
CUDA_ATOMICS = "STARC_OPENACC_CUDA_ATOMICS"

#: OpenACC's atomics: the old value captured for helpers whose result is used,
#: starc_atomic_update_<op>_<type> otherwise, CUDA's device atomics under nvc++
#: (``atomic_helpers.directive_atomics``).
ATOMICS = directive_atomics("acc", "OpenACC", cuda_macro=CUDA_ATOMICS)

#: OpenACC's capabilities: a reduction clause for every operator, the atomic construct,
#: gangs whose vector lanes may share a vertex's neighbour loop (the binned schedule), and
#: gangs that stage a chunk of items' appends in gang-private memory (``_gang_chunks``).
CAPABILITIES = directive_capabilities("openacc", "OpenACC", ATOMICS,
                                      schedules=frozenset({"vertex", "edges", "binned"}),
                                      vector_loops=True, dynamic_graphs=True, slack_rows=True,
                                      span_moves=True,
                                      gang_staged_appends=True, union_find=True)

#: the macro naming how many items a gang of a staging kernel runs on its vector lanes, and
#: its default: eight per lane of GCC's 32-lane vectors, so one global atomic stands for up to
#: 256 items' appends, and the gang's queue (the prelude's STARC_LOCAL_QUEUE, 2048 entries as
#: OpenCL's) holds eight appends per item
GANG_CHUNK = "STARC_GANG_CHUNK"
GANG_CHUNK_DEFAULT = 256

#: The length of an array of each plan extent, in the kernel function's ``n`` and ``m``.
#: The update arrays (a batch's updates, issue 31) are read only by the kernel over those
#: updates, whose ``frontier_count`` items are the batch's.
_LENGTHS = {"nodes": "n", "nodes+1": "n + 1", "levels": "n + 1", "edges": "m", "one": "1", "two": "2",
            "window": str(P.WINDOW_SLOTS), "updates": BOUNDS["frontier"]}


class OpenACCDialect(HostLoopDialect):
    """Kernel bodies in C++ under OpenACC, with the helpers of ``starc_openacc.hpp``."""

    name = "openacc"
    reserved = CXX_KEYWORDS | frozenset(("acc_deviceptr", "acc_init"))

    def vector_loop(self, reductions: Sequence[Tuple[str, str]]) -> str:
        return " ".join(["#pragma acc loop vector"] +
                        [f"reduction({REDUCTION_OPERATORS[op]}:{name})"
                         for op, name in reductions])

    # appends staged per gang (``QueueAppend.form`` ``gang``), in ``_gang_chunks``'s loops
    def staged_append(self, queue: group_end.StagedQueue, value: str) -> str:
        return (f"starc_gang_append({queue.stem}, &{queue.count}, {queue.queue}, "
                f"{queue.length}, {value})")

    def staged_count(self, queue: group_end.StagedQueue) -> str:
        return f"starc_atomic_update_add_int(&{queue.count}, 1)"

    def stage_lines(self, queues, end: bool) -> List[str]:
        """Before the vector loop the gang's counts reset; after it (gang-redundant code: once
        per gang) one atomic reserves each queue's entries, which a second vector loop copies
        out (a count-only queue: one atomic adds the count)."""
        if not end:
            return [f"{queue.count} = 0;" for queue in queues]
        lines = []
        for queue in queues:
            if queue.queue is None:
                lines.append(f"if ({queue.count} != 0) {queue.reserve.format(queue.count)};")
                continue
            staged = f"{queue.stem}_entries"
            lines += [f"const int {staged} = starc_min({queue.count}, {group_end.LOCAL_QUEUE});",
                      f"if ({staged} != 0) {queue.stem}_base = {queue.reserve.format(staged)};",
                      "#pragma acc loop vector",
                      f"for (int starc_staged_at = 0; starc_staged_at < {staged}; "
                      "starc_staged_at++) {",
                      f"{INDENT}{queue.queue}[{queue.stem}_base + starc_staged_at] = "
                      f"{queue.stem}[starc_staged_at];", "}"]
        return lines


class OpenACCKernel:
    """A printed kernel: the cfamily code, the lengths it needs and the function text."""

    def __init__(self, code: KernelCode, text: str, sizes: List[str]) -> None:
        self.code = code
        self.text = text
        #: "n" and/or "m": the graph sizes the function takes first, in this order
        self.sizes = sizes


def _extent(arg: KernelArg) -> str:
    kind, source = arg.source
    return P.GRAPH_ARRAYS[source] if kind == "graph" else source.extent


def section(arg: KernelArg) -> str:
    """``name[0:length]``: the whole array an argument points to."""
    return f"{arg.name}[0:{_LENGTHS[_extent(arg)]}]"


def _clause(name: str, items: List[str]) -> List[str]:
    """``name(a, b, c)`` as words for ``_directive`` (none for no items)."""
    words = [item + "," for item in items]
    if words:
        words[0] = f"{name}({words[0]}"
        words[-1] = words[-1][:-1] + ")"
    return words


def _directive(words: List[str]) -> List[str]:
    """A ``#pragma acc`` line of these words, continued with backslashes past 100 columns."""
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) > 98:
            lines[-1] += " \\"
            lines.append(INDENT * 2 + word)
        else:
            lines[-1] += " " + word
    return lines


def print_kernel(kernel: P.Kernel) -> OpenACCKernel:
    """Print one plan kernel as a function holding one OpenACC compute construct."""
    native = native_reductions(kernel)
    names = reducer_names(native, reducer_name)
    dialect = OpenACCDialect(names)
    code = lower_kernel(kernel, dialect)
    arrays = [a for a in code.args if a.is_array]
    # the sizes the present clauses and the loop need, and those the body reads as values
    # (g.num_nodes(), g.num_edges(): the code's size arguments)
    extents = ({_extent(a) for a in arrays} | {code.extent}
               | {a.source[1] for a in code.args if a.source[0] == "size"})
    sizes = [size for size, uses in (("n", ("nodes", "nodes+1", "levels")), ("m", ("edges",)))
             if extents & set(uses)]
    lines = [code.comment] if code.comment else []
    lines += wrap_list(f"static void {code.name}(", function_parameters(code, sizes, dialect), ") {")
    for red in native:
        ctype = dialect.storage_type(red.sym.type)
        lines.append(f"{INDENT}{ctype} {names[red.sym.uid]} = "
                     f"{reduction_identity(red.op, red.sym.type, dialect)};")
    clauses = _clause("present", [section(a) for a in arrays])
    clauses += [f"reduction({REDUCTION_OPERATORS[red.op]}:{names[red.sym.uid]})"
                for red in native]
    index = code.index or "starc_item"
    # (No `serial` construct: GCC's nvptx offloading warns that it ignores its vector length
    # of 1. A single-item kernel is a loop of one iteration.)
    bound = "1" if code.extent == "single" else BOUNDS[code.extent]
    if _staged_per_gang(kernel):
        lines += _gang_chunks(code, clauses, dialect.vector_loop(
            [(red.op, names[red.sym.uid]) for red in native]), bound, index)
    else:
        # a binned kernel's gang spreads its vertex's neighbour loops over its vector lanes
        # (``Kernel.vector_loops``: a ``loop vector`` in the body); else each vertex is one
        # lane's
        loop = "gang" if kernel.vector_loops else "gang vector"
        lines += _directive([f"#pragma acc parallel loop {loop}"] + clauses)
        lines.append(f"{INDENT}for (int {index} = 0; {index} < {bound}; {index}++) {{")
        lines += [INDENT + line for line in code.body]
        lines.append(f"{INDENT}}}")
    lines += _combine(native, names, {a.source[1].name: a for a in arrays
                                      if a.source[0] == "array"})
    lines.append("}")
    return OpenACCKernel(code, "\n".join(lines), sizes)


def _staged_per_gang(kernel: P.Kernel) -> bool:
    """Whether the plan stages the kernel's appends or counts per gang."""
    return any((isinstance(node, P.QueueAppend) and node.form == "gang") or
               (isinstance(node, P.QueueCount) and node.staged) for node in ir.walk(kernel.body))


def _gang_chunks(code: KernelCode, clauses: List[str], vector_loop: str, bound: str,
                 index: str) -> List[str]:
    """The loop nest of a kernel staging its appends per gang: a gang per chunk of
    ``GANG_CHUNK`` items, which its vector lanes run (the reduction clauses on both loops, as
    OpenACC requires of a reduction across nested loops); the staged queues gang-private (GCC
    places them in GPU shared memory), reset before the items and taken into the worklists
    after them (``OpenACCDialect.stage_lines``: ``code.setup`` and ``code.finish``, which
    hold nothing else here: every reduction is a clause)."""
    i2 = INDENT * 2
    lines = [f"{INDENT}int {local.name}{f'[{local.extent}]' if local.extent else ''};"
             for local in code.group_locals]
    lines += _directive(["#pragma acc parallel loop gang"] + clauses +
                        _clause("private", [local.name for local in code.group_locals]))
    chunks = f"({bound} + {GANG_CHUNK} - 1) / {GANG_CHUNK}"
    lines.append(f"{INDENT}for (int starc_chunk = 0; starc_chunk < {chunks}; starc_chunk++) {{")
    lines += [INDENT + line for line in code.setup]
    lines += [f"{i2}const int starc_first = starc_chunk * {GANG_CHUNK};",
              f"{i2}const int starc_last = starc_min({bound}, starc_first + {GANG_CHUNK});",
              i2 + vector_loop,
              f"{i2}for (int {index} = starc_first; {index} < starc_last; {index}++) {{"]
    lines += [i2 + line for line in code.skip(1, "continue") + code.item]
    lines.append(f"{i2}}}")
    lines += [INDENT + line for line in code.finish]
    return lines + [f"{INDENT}}}"]


def _combine(native: List[P.ScalarReduction], names: Dict[int, str],
             by_array: Dict[str, KernelArg]) -> List[str]:
    """After the loop: each reduction clause's result joins its scalar's device copy, all in
    one region of one gang (gang-redundant code: it runs once)."""
    combines, targets = [], []
    for red in native:
        array = by_array[red.array.name]
        target, local = f"{array.name}[0]", names[red.sym.uid]
        targets.append(section(array))
        combines.append(f"{target} = starc_{red.op.lower()}({target}, {local});"
                        if red.op in ("Min", "Max")
                        else f"{target} {REDUCTION_OPERATORS[red.op]}= {local};")
    if not combines:
        return []
    lines = _directive(["#pragma acc parallel num_gangs(1)"] + _clause("present", targets))
    return lines + [INDENT + "{"] + [INDENT * 2 + line for line in combines] + [INDENT + "}"]


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_openacc.hpp`` for kernels with these features: the atomic helpers they use
    (every one when None) and the rest of the OpenACC runtime."""
    return render_prelude("openacc", "prelude.hpp.mako", features, atomics=ATOMICS,
                          staged_append=features is None or "staged_append" in features,
                          gang_chunk=GANG_CHUNK, gang_chunk_default=GANG_CHUNK_DEFAULT,
                          local_queue=group_end.LOCAL_QUEUE,
                          local_queue_default=group_end.LOCAL_QUEUE_DEFAULT)
