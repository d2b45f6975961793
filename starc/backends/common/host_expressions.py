"""Host expressions of the shared C++ host printer: the cfamily printer with a host context.

Graph queries read ``starc::Graph``; a device element is read through the backend's
``HostDialect``; ``minWt``/``maxWt`` call the runtime's weight bounds.
"""

from __future__ import annotations

import json
import types
from typing import Dict

from starc.analysis import plan as P
from starc.backends.common import cfamily
from starc.backends.common.host_dialect import HostPrinter
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["HostContext", "HostExprPrinter"]


class HostContext:
    """What the cfamily printer asks of a context, answered for host code."""

    def __init__(self, printer: HostPrinter) -> None:
        self.printer = printer
        self.names = printer.names
        self.by_value: Dict[int, object] = {}
        self.reduction_arrays: Dict[int, object] = {}
        self.kernel = types.SimpleNamespace(name="the host code")
        self.features: set = set()
        self.kernel_scalar_values: Dict[str, str] = {}

    def graph_array(self, name: str) -> str:
        return f"{self.printer.graph}.{name}"

    def row_ends(self, forward: bool):
        """None: the host reads rows of a compact CSR only (``batches.slack_rows`` keeps a
        graph whose host code reads rows compact)."""
        return None

    def row_bounds(self, forward: bool, v: str):
        starts = self.graph_array("offsets" if forward else "rev_offsets")
        return f"{starts}[{v}]", f"{starts}[{v} + 1]"

    def num_nodes(self) -> str:
        return f"{self.printer.graph}.num_nodes"

    def num_edges(self) -> str:
        return self.printer.dialect.edge_count(self.printer.graph)

    def prop(self, sym: ir.Symbol, loc=None) -> str:
        self.printer.dialect.missing(f"reading property '{sym.name}' without a device read", loc)

    def kernel_scalar(self, name: str, t: Scalar) -> str:
        if name not in self.kernel_scalar_values:
            self.printer.dialect.missing(f"the kernel scalar '{name}'")
        return self.kernel_scalar_values[name]


class HostExprPrinter(cfamily.CPrinter):
    """The cfamily expression printer plus the two host-only expressions."""

    def __init__(self, printer: HostPrinter) -> None:
        super().__init__(printer.dialect.expr_dialect, HostContext(printer))
        self.host = printer

    def _expr_DeviceRead(self, e: P.DeviceRead):
        host = self.host
        text = host.dialect.read_element(host.array_var(e.array), e.array.elem,
                                         self.expr(e.index), host.where(e.loc))
        if e.array.elem is Scalar.BOOL and host.dialect.storage_type(Scalar.BOOL) != "bool":
            return f"{text} != 0", cfamily.PRECEDENCE["!="]
        return text, cfamily.POSTFIX

    def _expr_OnLockstepDevice(self, e: P.OnLockstepDevice):
        return self.host.dialect.on_lockstep_device(), cfamily.POSTFIX

    def _expr_HostCheckedIndex(self, e: P.HostCheckedIndex):
        count = self.host.extent_count(e.extent)
        return (f"starc::host_index({self.expr(e.index)}, {count}, {json.dumps(e.name)}, "
                f"{json.dumps(str(e.loc))})", cfamily.POSTFIX)

    def _expr_Binary(self, e: ir.Binary):
        """Integer ``/`` and ``%`` by a divisor that may be 0 or -1 call ``starc::host_div`` /
        ``host_mod``: division by zero is the reference's located run-time error, and
        ``INT_MIN / -1`` wraps instead of trapping (LANGUAGE.md §2)."""
        if e.op in ("/", "%") and e.type in (Scalar.INT, Scalar.LONG) \
                and not _plain_divisor(e.right):
            func = "starc::host_div" if e.op == "/" else "starc::host_mod"
            where = json.dumps(str(e.loc))
            return f"{func}({self.expr(e.left)}, {self.expr(e.right)}, {where})", cfamily.POSTFIX
        return super()._expr_Binary(e)

    def _expr_WeightBound(self, e: ir.WeightBound):
        return self.host.weight_bound(e), cfamily.POSTFIX

    def _expr_WindowDelta(self, e: P.WindowDelta):
        return self.host.window_delta(e), cfamily.POSTFIX


def _plain_divisor(e: ir.Expr) -> bool:
    """A constant divisor other than 0 and -1: C's ``/`` and ``%`` are defined for it."""
    while isinstance(e, ir.Cast):
        e = e.expr
    return isinstance(e, ir.Const) and int(e.value) not in (0, -1)
