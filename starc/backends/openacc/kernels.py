"""OpenACC kernels: the dialect of loop bodies, the kernel function shell, the prelude.

Each plan kernel becomes a host function holding one ``#pragma acc parallel loop`` over its
vertices or edges (a single-item kernel: a loop of one iteration), whose body is the shared
``cfamily`` printer's output. Every array the loop touches is named in a ``present(...)``
clause with its full extent: the arrays were placed on the device once, before the algorithm
(``host``), and a kernel never moves data. A private scalar reduction of the plan
(``ScalarReduction.private``) becomes a ``reduction(op:x)`` clause on a local of the function,
combined into the scalar's device copy by one single-gang region after the loop.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from starc.analysis import plan as P
from starc.backends.common import atomic_helpers
from starc.backends.common.cfamily import INDENT, KernelArg, KernelCode, lower_kernel
from starc.backends.common.dialect import NativeReducers, reducer_names
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.ir.types import Scalar

__all__ = ["OpenACCDialect", "OpenACCKernel", "print_kernel", "RUNTIME_HEADER",
           "runtime_header", "section"]

#: The OpenACC helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_openacc.hpp"

_NUMERIC = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.NODE, Scalar.EDGE)

#: OpenACC reduction operators for the plan's operators (``-`` sums the negated values).
_REDUCTION_OPERATORS = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "Min": "min",
                        "Max": "max"}

#: The length of an array of each plan extent, in the kernel function's ``n`` and ``m``.
_LENGTHS = {"nodes": "n", "nodes+1": "n + 1", "edges": "m", "one": "1"}


class OpenACCDialect(NativeReducers):
    """Kernel bodies in C++ under OpenACC: helpers of ``starc_openacc.hpp`` (``atomic
    capture``/``atomic update`` for + - * & |, compare-and-swap loops for Min/Max), bool arrays
    as bytes, and ``continue`` to skip a filtered-out item (the body is a loop's body).

    One instance serves one kernel: ``reducers`` maps a privately reduced scalar's uid to the
    function local its ``reduction`` clause names."""

    name = "openacc"
    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(func, t): f"starc_{func.lower()}"
                        for func in ("Min", "Max") for t in _NUMERIC}
    reserved = CXX_KEYWORDS | frozenset(("acc_deviceptr", "acc_init"))
    skip_item = "continue"

    def minmax_update(self, op: str, reducer: str, value: str) -> str:
        # the value in the local's type (the template deduces one type)
        return (f"{reducer} = starc_{op.lower()}({reducer}, "
                f"static_cast<decltype({reducer})>({value}))")

    def atomic_update(self, op: str, elem: Scalar, address: str, value: str) -> str:
        # Result unused: `atomic update` needs no capture (min/max stay the CAS loop).
        if op in ("min", "max"):
            return self.atomic(op, elem, address, value)
        helper = self.atomic_helper(op, elem).replace("starc_atomic_", "starc_atomic_update_", 1)
        return f"{helper}({address}, {value})"


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


def _identity(op: str, elem: Scalar, dialect: OpenACCDialect) -> str:
    if op in ("Min", "Max"):
        return dialect.inf(elem, negative=op == "Max")
    if op == "&":       # all ones; a bool (a byte) is true
        return "1" if elem is Scalar.BOOL else "~0"
    return "1" if op == "*" else "0"


def _wrap(head: str, items: List[str], tail: str) -> List[str]:
    """``head item, item, ...tail``, one item per line under the first when too long."""
    text = head + ", ".join(items) + tail
    if len(text) <= 100 or not items:
        return [text]
    return [head + (",\n" + " " * len(head)).join(items) + tail]


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
    native = [red for red in kernel.reductions
              if red.private and red.op in _REDUCTION_OPERATORS]
    names = reducer_names(
        native, lambda red: f"{red.sym.name}_{'sum' if red.op in '+-' else 'reduced'}")
    dialect = OpenACCDialect(names)
    code = lower_kernel(kernel, dialect)
    arrays = [a for a in code.args if a.is_array]
    extents = {_extent(a) for a in arrays} | {code.extent}
    sizes = [size for size, uses in (("n", ("nodes", "nodes+1")), ("m", ("edges",)))
             if extents & set(uses)]
    lines = [code.comment] if code.comment else []
    lines += _wrap(f"static void {code.name}(", _parameters(code, sizes, dialect), ") {")
    for red in native:
        ctype = dialect.storage_type(red.sym.type)
        lines.append(f"{INDENT}{ctype} {names[red.sym.uid]} = "
                     f"{_identity(red.op, red.sym.type, dialect)};")
    clauses = _clause("present", [section(a) for a in arrays])
    clauses += [f"reduction({_REDUCTION_OPERATORS[red.op]}:{names[red.sym.uid]})"
                for red in native]
    index = code.index or "starc_item"
    # (No `serial` construct: GCC's nvptx offloading warns that it ignores its vector length
    # of 1. A single-item kernel is a loop of one iteration.)
    bound = {"single": "1", "nodes": "n", "edges": "m"}[code.extent]
    lines += _directive(["#pragma acc parallel loop gang vector"] + clauses)
    lines.append(f"{INDENT}for (int {index} = 0; {index} < {bound}; {index}++) {{")
    lines += [INDENT + line for line in code.body]
    lines.append(f"{INDENT}}}")
    lines += _combine(native, names, {a.source[1].name: a for a in arrays
                                      if a.source[0] == "array"})
    lines.append("}")
    return OpenACCKernel(code, "\n".join(lines), sizes)


def _parameters(code: KernelCode, sizes: List[str], dialect: OpenACCDialect) -> List[str]:
    """The function's parameters: the graph sizes its sections and loop need, then the
    plan's arguments (pointers const where the kernel only reads)."""
    params = [f"int {size}" for size in sizes]
    for arg in code.args:
        if arg.source[0] == "size":
            continue
        ctype = dialect.storage_type(arg.elem)
        params.append(f"{'' if arg.written else 'const '}{ctype}* {arg.name}" if arg.is_array
                      else f"{ctype} {arg.name}")
    return params


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
                        else f"{target} {_REDUCTION_OPERATORS[red.op]}= {local};")
    if not combines:
        return []
    lines = _directive(["#pragma acc parallel num_gangs(1)"] + _clause("present", targets))
    return lines + [INDENT + "{"] + [INDENT * 2 + line for line in combines] + [INDENT + "}"]


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_openacc.hpp`` for kernels with these features: the atomic helpers they use
    (every one when None) and the rest of the OpenACC runtime."""
    return render_prelude("openacc", "prelude.hpp.mako", features)
