"""Kernels as C++ functions on the host: the body dialect and function pieces that OpenACC and
MPI share (both print a plan kernel as a function holding one loop under a directive: OpenACC's
``parallel loop``, OpenMP's ``parallel for`` on each MPI rank).

``HostLoopDialect``: helpers of the backend's prelude (``atomic capture``/``atomic update`` for
+ - * & |, compare-and-swap loops for Min/Max), bool arrays as bytes, and ``continue`` to skip
a filtered-out item (the body is a loop's body). One instance serves one kernel: ``reducers``
maps a privately reduced scalar's uid to the function local its ``reduction`` clause names.
"""

from __future__ import annotations

from typing import List, Optional

from starc.analysis import plan as P
from starc.analysis.capabilities import Capabilities
from starc.backends.common import atomic_helpers
from starc.backends.common.cfamily import KernelCode
from starc.backends.common.dialect import NativeReducers
from starc.ir.types import Scalar

__all__ = ["HostLoopDialect", "reduction_identity", "wrap_list", "function_parameters",
           "REDUCTION_OPERATORS", "native_reductions", "reducer_name", "native_reduction",
           "directive_capabilities"]

#: OpenACC and OpenMP reduction operators for the plan's operators (``-`` sums the negation).
REDUCTION_OPERATORS = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "Min": "min",
                       "Max": "max"}

_NUMERIC = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.NODE, Scalar.EDGE)


class HostLoopDialect(NativeReducers):
    """Kernel bodies as the body of a C++ loop (see the module docstring); a subclass names
    the backend (its atomic table) and its reserved words."""

    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(func, t): f"starc_{func.lower()}"
                        for func in ("Min", "Max") for t in _NUMERIC}
    skip_item = "continue"

    def minmax_update(self, op: str, reducer: str, value: str) -> str:
        # the value in the local's type (the template deduces one type)
        return (f"{reducer} = starc_{op.lower()}({reducer}, "
                f"static_cast<decltype({reducer})>({value}))")

    def atomic_update(self, op: str, elem: Scalar, address: str, value: str) -> str:
        # result unused: `atomic update` needs no capture
        helper = self.atomic_helper(op, elem).replace("starc_atomic_", "starc_atomic_update_", 1)
        return f"{helper}({address}, {value})"


def directive_capabilities(backend: str, title: str, atomics: atomic_helpers.AtomicTable,
                           **more) -> Capabilities:
    """The capabilities of a backend whose kernels are loops under a directive (OpenACC,
    OpenMP on MPI ranks): a reduction clause for every operator, the directive model's
    ``atomics`` (the backend's table, ``atomic_helpers.directive_atomics``)."""
    return Capabilities(backend, title, native_reductions=frozenset(REDUCTION_OPERATORS),
                        native_reduction_object="reduction clause",
                        **atomic_helpers.atomic_capabilities(atomics), **more)


def reduction_identity(op: str, elem: Scalar, dialect: HostLoopDialect) -> str:
    """The value a reduction clause's local starts from."""
    if op in ("Min", "Max"):
        return dialect.inf(elem, negative=op == "Max")
    if op == "&":       # all ones; a bool (a byte) is true
        return "1" if elem is Scalar.BOOL else "~0"
    return "1" if op == "*" else "0"


def wrap_list(head: str, items: List[str], tail: str) -> List[str]:
    """``head item, item, ...tail``, one item per line under the first when too long."""
    text = head + ", ".join(items) + tail
    if len(text) <= 100 or not items:
        return [text]
    return [head + (",\n" + " " * len(head)).join(items) + tail]


def function_parameters(code: KernelCode, sizes: List[str], dialect: HostLoopDialect,
                        size_type: str = "int") -> List[str]:
    """The function's parameters: the graph sizes its sections and loop need (of
    ``size_type``), then the plan's arguments (pointers const where the kernel only reads)."""
    params = [f"{size_type} {size}" for size in sizes]
    for arg in code.args:
        if arg.source[0] == "size" and arg.source[1] != "frontier":  # a worklist's length
            continue                                                  # is a plain argument
        ctype = dialect.storage_type(arg.elem)
        params.append(f"{'' if arg.written else 'const '}{ctype}* {arg.name}" if arg.is_array
                      else f"{ctype} {arg.name}")
    return params


def native_reductions(kernel: P.Kernel) -> List[P.ScalarReduction]:
    """The kernel's scalar reductions that a ``reduction`` clause on the loop carries
    (``ScalarReduction.strategy`` native)."""
    return [red for red in kernel.reductions if red.strategy == "native"]


def reducer_name(red: P.ScalarReduction) -> str:
    """The function local a reduction clause names (before ``reducer_names`` makes it
    distinct)."""
    return f"{red.sym.name}_{'sum' if red.op in '+-' else 'reduced'}"


def native_reduction(red: P.ScalarReduction, loop: str) -> str:
    """``reduction(op:local) clause on <loop>``: how a clause carries ``red`` (``strategy``
    native), for ``starc explain``."""
    return f"reduction({REDUCTION_OPERATORS[red.op]}:{reducer_name(red)}) clause on {loop}"
