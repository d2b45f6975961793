"""OpenACC kernels: the dialect of loop bodies, the kernel function shell, the prelude.

Each plan kernel becomes a host function holding one ``#pragma acc parallel loop`` over its
vertices or edges (a single-item kernel: a loop of one iteration), whose body is the shared
``cfamily`` printer's output: each item on a lane of its own (``gang vector``), or, for a
binned kernel, each vertex on a gang whose vector lanes share its neighbour loops
(``#pragma acc loop vector``, a ``reduction`` clause per fold: ``plan.VectorLoop``). Every array the loop touches is named in a ``present(...)``
clause with its full extent: the arrays were placed on the device once, before the algorithm
(``host``), and a kernel never moves data. A private scalar reduction of the plan
(``ScalarReduction.private``) becomes a ``reduction(op:x)`` clause on a local of the function,
combined into the scalar's device copy by one single-gang region after the loop.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from starc.analysis import plan as P
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

__all__ = ["ATOMICS", "CAPABILITIES", "CUDA_ATOMICS", "OpenACCDialect", "OpenACCKernel",
           "print_kernel", "RUNTIME_HEADER", "runtime_header", "section"]

#: The OpenACC helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_openacc.hpp"

#: The macro under which the prelude's atomics are CUDA's: templates/prelude.hpp.mako defines
#: it under nvc++, whose device code rejects GCC's __atomic builtins.
CUDA_ATOMICS = "STARC_OPENACC_CUDA_ATOMICS"

#: OpenACC's atomics: the old value captured for helpers whose result is used,
#: starc_atomic_update_<op>_<type> otherwise, CUDA's device atomics under nvc++
#: (``atomic_helpers.directive_atomics``).
ATOMICS = directive_atomics("acc", "OpenACC", cuda_macro=CUDA_ATOMICS)

#: OpenACC's capabilities: a reduction clause for every operator, the atomic construct, and
#: gangs whose vector lanes may share a vertex's neighbour loop (the binned schedule).
CAPABILITIES = directive_capabilities("openacc", "OpenACC", ATOMICS,
                                      schedules=frozenset({"vertex", "edges", "binned"}),
                                      vector_loops=True, dynamic_graphs=True)

#: The length of an array of each plan extent, in the kernel function's ``n`` and ``m``.
#: The update arrays (a batch's updates, issue 31) are read only by the kernel over those
#: updates, whose ``frontier_count`` items are the batch's.
_LENGTHS = {"nodes": "n", "nodes+1": "n + 1", "edges": "m", "one": "1",
            "updates": BOUNDS["frontier"]}


class OpenACCDialect(HostLoopDialect):
    """Kernel bodies in C++ under OpenACC, with the helpers of ``starc_openacc.hpp``."""

    name = "openacc"
    reserved = CXX_KEYWORDS | frozenset(("acc_deviceptr", "acc_init"))

    def vector_loop(self, reductions: Sequence[Tuple[str, str]]) -> str:
        return " ".join(["#pragma acc loop vector"] +
                        [f"reduction({REDUCTION_OPERATORS[op]}:{name})"
                         for op, name in reductions])


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
    sizes = [size for size, uses in (("n", ("nodes", "nodes+1")), ("m", ("edges",)))
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
    # a binned kernel's gang spreads its vertex's neighbour loops over its vector lanes
    # (``Kernel.vector_loops``: a ``loop vector`` in the body); else each vertex is one lane's
    loop = "gang" if kernel.vector_loops else "gang vector"
    lines += _directive([f"#pragma acc parallel loop {loop}"] + clauses)
    lines.append(f"{INDENT}for (int {index} = 0; {index} < {bound}; {index}++) {{")
    lines += [INDENT + line for line in code.body]
    lines.append(f"{INDENT}}}")
    lines += _combine(native, names, {a.source[1].name: a for a in arrays
                                      if a.source[0] == "array"})
    lines.append("}")
    return OpenACCKernel(code, "\n".join(lines), sizes)


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
    return render_prelude("openacc", "prelude.hpp.mako", features, atomics=ATOMICS)
