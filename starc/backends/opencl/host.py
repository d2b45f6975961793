"""The OpenCL host as Python: the plan's host tree printed as a pyopencl-driven function.

Host scalars are numpy scalars of the DSL's C types (``i32``, ``f32`` ...) so int overflow,
float rounding, integer division (``rt.cdiv``) and remainders (``rt.cmod``) behave as in C.
Device arrays live in the namespace ``dev`` (``dev.dist``) so ``SwapArrays`` swaps two names.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
from typing import Dict, List, Sequence, Set, Tuple

from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.backends.common.cfamily import GRAPH_ARRAYS, KernelArg, KernelCode, NameTable
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar, SetType, is_floating, is_integer

__all__ = ["HostCode", "print_host", "PY_TYPES", "STORAGE_DTYPES"]

INDENT = "    "

#: the numpy constructor aliases the generated module defines, per DSL scalar
PY_TYPES = {Scalar.BOOL: "bool", Scalar.INT: "i32", Scalar.LONG: "i64", Scalar.FLOAT: "f32",
            Scalar.DOUBLE: "f64", Scalar.NODE: "i32", Scalar.EDGE: "i32"}
#: numpy dtype names of device array elements (bool is a byte)
STORAGE_DTYPES = {Scalar.BOOL: "np.uint8", Scalar.INT: "np.int32", Scalar.LONG: "np.int64",
                  Scalar.FLOAT: "np.float32", Scalar.DOUBLE: "np.float64",
                  Scalar.NODE: "np.int32", Scalar.EDGE: "np.int32"}

_RESERVED = set(keyword.kwlist) | {
    "np", "rt", "dev", "device", "graph", "args", "i32", "i64", "f32", "f64", "bool", "min",
    "max", "int", "float", "range", "len", "print", "sys", "n", "m", "None", "True", "False"}

# Python precedences (higher binds tighter)
_PREC = {"||": 1, "&&": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
         "|": 5, "&": 7, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}
_NOT, _NEG, _CALL, _ATOM = 3, 11, 13, 14
_PY_OPS = {"||": "or", "&&": "and"}


@dataclasses.dataclass
class HostCode:
    """The printed host: ``body`` is the function body of ``_algorithm``."""

    body: List[str]
    params: List[Tuple[ir.Symbol, str]]         # (parameter, Python name)
    graph_arrays: List[str]                     # CSR arrays to upload, canonical order
    uses_n: bool
    uses_m: bool
    arrays: Dict[str, str]                      # device array name -> "dev.<attribute>"
    error_check: List[str] = dataclasses.field(default_factory=list)  # after the algorithm


def _base(path: str) -> str:
    return os.path.basename(path) if path else "<input>"


class HostPrinter:
    def __init__(self, plan: P.Plan, kernels: Dict[str, KernelCode]) -> None:
        self.plan = plan
        self.kernels = kernels
        self.names = NameTable(sorted(_RESERVED))
        self.attributes = NameTable(sorted(keyword.kwlist))   # the names inside ``dev``
        self.graph_arrays: Set[str] = set()
        self.uses_n = self.uses_m = False
        self.arrays: Dict[str, str] = {}
        for array in plan.arrays:
            self.array(array)

    def array(self, array: P.DeviceArray) -> str:
        """``dev.<name>`` for a device array."""
        if array.name not in self.arrays:
            if array.role == "graph":
                self.attributes.reserve(array.name)
                self.graph_arrays.add(array.name)
                self.arrays[array.name] = f"dev.{array.name}"
            else:
                self.arrays[array.name] = "dev." + self.attributes.fresh(array.name)
        return self.arrays[array.name]

    def loc(self, node) -> str:
        loc = getattr(node, "loc", None)
        return f"  # {_base(loc.file)}:{loc.line}" if loc is not None and loc.line > 0 else ""

    def n(self) -> str:
        self.uses_n = True
        return "n"

    def m(self) -> str:
        self.uses_m = True
        return "m"

    # --- expressions --------------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> str:
        return self._expr(e)[0]

    def _operand(self, e: ir.Expr, min_prec: int) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < min_prec else text

    def _expr(self, e: ir.Expr) -> Tuple[str, int]:
        method = getattr(self, "_expr_" + type(e).__name__, None)
        if method is None:
            raise BackendError(f"the opencl backend cannot evaluate {type(e).__name__} on the "
                               "host", e.loc)
        return method(e)

    def _typed(self, t: Scalar, text: str) -> Tuple[str, int]:
        return f"{PY_TYPES[t]}({text})", _CALL

    def _expr_Const(self, e: ir.Const):
        if e.type is Scalar.BOOL:
            return ("True" if e.value else "False"), _ATOM
        value = float(e.value) if is_floating(e.type) else int(e.value)
        return self._typed(e.type, repr(value))

    def _expr_Inf(self, e: ir.Inf):
        if e.type is Scalar.BOOL:
            return ("False" if e.negative else "True"), _ATOM
        func = "rt.neg_inf" if e.negative else "rt.inf"
        return f"{func}({PY_TYPES[e.type]})", _CALL

    def _expr_VarRef(self, e: ir.VarRef):
        if isinstance(e.sym.type, (PropType, SetType)) or e.sym.type not in PY_TYPES:
            raise BackendError(f"the opencl backend cannot use '{e.sym.name}' as a host value",
                               e.loc)
        return self.names.bind(e.sym), _ATOM

    def _expr_DeviceRead(self, e: P.DeviceRead):
        text = f"device.read_element({self.array(e.array)}, {self.expr(e.index)})"
        if e.type is Scalar.BOOL:
            return f"bool({text})", _CALL
        return text, _CALL

    def _expr_HostCheckedIndex(self, e: P.HostCheckedIndex):
        count = "graph.num_edges" if e.extent == "edges" else "graph.num_nodes"
        loc = e.loc
        return (f"rt.host_index({self.expr(e.index)}, {count}, {e.name!r}, {loc.file!r}, "
                f"{loc.line}, {loc.col})", _CALL)

    def _expr_EdgeEndpoint(self, e: ir.EdgeEndpoint):
        array = "sources" if e.end == "source" else "targets"
        return f"i32(graph.{array}[{self.expr(e.edge)}])", _CALL

    def _expr_Unary(self, e: ir.Unary):
        if e.op == "!":
            return f"not {self._operand(e.operand, _NOT)}", _NOT
        if isinstance(e.operand, ir.Const) and is_integer(e.type):
            # -2147483648 is an int but 2147483648 is not: negate before typing
            return self._typed(e.type, repr(-int(e.operand.value)))
        operand = self._operand(e.operand, _NEG)
        if operand.startswith("-"):
            operand = f"({operand})"
        return f"-{operand}", _NEG

    def _expr_Binary(self, e: ir.Binary):
        if e.op in ("/", "%") and is_integer(e.type):
            func = "rt.cdiv" if e.op == "/" else "rt.cmod"
            loc = e.loc
            return (f"{func}({self.expr(e.left)}, {self.expr(e.right)}, "
                    f"({loc.file!r}, {loc.line}, {loc.col}))", _CALL)
        if e.op == "%":
            return f"np.fmod({self.expr(e.left)}, {self.expr(e.right)})", _CALL
        prec = _PREC[e.op]
        # comparisons never chain (a < b == c means (a < b) == c in C)
        left_min = prec + 1 if prec == 4 else prec
        left = self._operand(e.left, left_min)
        right = self._operand(e.right, prec + 1)
        return f"{left} {_PY_OPS.get(e.op, e.op)} {right}", prec

    def _expr_Cast(self, e: ir.Cast):
        inner = e.expr
        if inner.type == e.type or (PY_TYPES.get(inner.type) == PY_TYPES[e.type]
                                    and e.type is not Scalar.BOOL):
            return self._expr(inner)
        if isinstance(inner, ir.Const) and e.type is not Scalar.BOOL:
            value = float(inner.value) if is_floating(e.type) else int(inner.value)
            return self._typed(e.type, repr(value))
        return self._typed(e.type, self.expr(inner))

    def _expr_MinMax(self, e: ir.MinMax):
        func = "min" if e.func == "Min" else "max"
        return f"{func}({self.expr(e.left)}, {self.expr(e.right)})", _CALL

    def _expr_GraphQuery(self, e: ir.GraphQuery):
        args = [self.expr(a) for a in e.args]
        if e.op == "num_nodes":
            return self.n(), _ATOM
        if e.op == "num_edges":
            return self.m(), _ATOM
        if e.op == "count_outNbrs":
            return f"rt.out_degree(graph, {args[0]})", _CALL
        if e.op == "count_inNbrs":
            return f"rt.in_degree(graph, {args[0]})", _CALL
        if e.op == "get_edge":
            return f"rt.find_edge(graph, {args[0]}, {args[1]})", _CALL
        if e.op == "is_an_edge":
            return f"rt.find_edge(graph, {args[0]}, {args[1]}) >= 0", 4
        raise BackendError(f"the opencl backend has no host mapping for '{e.op}'", e.loc)

    def _expr_WeightBound(self, e: ir.WeightBound):
        weights = self.names.bind(e.prop)
        return (f"rt.weight_bound({weights}, {e.func!r}, {PY_TYPES[e.prop.type.elem]})",
                _CALL)

    # --- statements --------------------------------------------------------------------------
    def block(self, block: P.HostBlock, depth: int) -> List[str]:
        lines: List[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt, depth)
        return lines or [INDENT * depth + "pass"]

    def stmt(self, s: P.HostStmt, depth: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            raise BackendError(f"the opencl backend has no host mapping for "
                               f"{type(s).__name__}", s.loc)
        return [INDENT * depth + line if line else line for line in method(s, depth)]

    def _nested(self, block: P.HostBlock, depth: int) -> List[str]:
        """A nested block's lines, re-based so ``stmt`` can indent the whole statement."""
        return [line[INDENT.__len__() * depth:] for line in self.block(block, depth + 1)]

    def _stmt_HostBlock(self, s: P.HostBlock, depth: int):
        return [line[len(INDENT) * depth:] for line in self.block(s, depth)]

    def _stmt_HostDeclare(self, s: P.HostDeclare, depth: int):
        if not isinstance(s.sym.type, Scalar):
            return []          # properties are device arrays, allocated once
        name = self.names.bind(s.sym)
        if s.init is None:
            zero = "False" if s.sym.type is Scalar.BOOL else f"{PY_TYPES[s.sym.type]}(0)"
            return [f"{name} = {zero}"]
        return [f"{name} = {self.expr(s.init)}"]

    def _stmt_HostAssign(self, s: P.HostAssign, depth: int):
        return [f"{self.names.bind(s.sym)} = {self.expr(s.value)}"]

    def _stmt_HostReduce(self, s: P.HostReduce, depth: int):
        name = self.names.bind(s.sym)
        value = ir.VarRef(s.sym, type=s.sym.type)
        if s.sym.type is Scalar.BOOL and s.op in "&|":
            op = "&&" if s.op == "&" else "||"
            combined = ir.Binary(op, value, s.value, type=Scalar.BOOL)
        else:
            combined = ir.Binary(s.op, value, s.value, type=s.sym.type)
        return [f"{name} = {self.expr(combined)}"]

    def _stmt_HostIf(self, s: P.HostIf, depth: int):
        lines = [f"if {self.expr(s.cond)}:"] + self._nested(s.then, depth)
        orelse = s.orelse
        while orelse is not None:
            if len(orelse.stmts) == 1 and isinstance(orelse.stmts[0], P.HostIf):
                nested = orelse.stmts[0]
                lines += [f"elif {self.expr(nested.cond)}:"] + self._nested(nested.then, depth)
                orelse = nested.orelse
            else:
                lines += ["else:"] + self._nested(orelse, depth)
                orelse = None
        return lines

    def _stmt_HostWhile(self, s: P.HostWhile, depth: int):
        return [f"while {self.expr(s.cond)}:"] + self._nested(s.body, depth)

    def _stmt_HostDoWhile(self, s: P.HostDoWhile, depth: int):
        cond = self.expr(s.cond)
        if not _continues(s.body):
            return ["while True:"] + self._nested(s.body, depth) + [
                f"{INDENT}if not ({cond}):", f"{INDENT * 2}break"]
        # a `continue` in the body must still test the condition
        first = self.names.fresh("first_pass")
        return [f"{first} = True", f"while {first} or ({cond}):", f"{INDENT}{first} = False"] \
            + self._nested(s.body, depth)

    def _stmt_HostForSet(self, s: P.HostForSet, depth: int):
        return [f"for {self.names.bind(s.var)} in {self.names.bind(s.set)}:"] + \
            self._nested(s.body, depth)

    def _stmt_HostForRange(self, s: P.HostForRange, depth: int):
        var = self.names.bind(s.var)
        end = f"{self.expr(s.last)} {'-' if s.step < 0 else '+'} 1"
        return [f"for {var} in range({self.expr(s.first)}, {end}, {s.step}):",
                f"{INDENT}{var} = i32({var})"] + self._nested(s.body, depth)

    def _stmt_CheckErrors(self, s: P.CheckErrors, depth: int):
        return self.error_check()

    def _stmt_HostReturn(self, s: P.HostReturn, depth: int):
        return ["return" if s.value is None else f"return {self.expr(s.value)}"]

    def _stmt_HostBreak(self, s, depth):
        return ["break"]

    def _stmt_HostContinue(self, s, depth):
        return ["continue"]

    def _stmt_Fill(self, s: P.Fill, depth: int):
        return [f"device.fill({self.array(s.array)}, {self.expr(s.value)}){self.loc(s)}"]

    def _stmt_CopyArray(self, s: P.CopyArray, depth: int):
        return [f"device.copy({self.array(s.dst)}, {self.array(s.src)}){self.loc(s)}"]

    def _stmt_SwapArrays(self, s: P.SwapArrays, depth: int):
        a, b = self.array(s.a), self.array(s.b)
        return [f"{a}, {b} = {b}, {a}"]

    def _stmt_WriteElement(self, s: P.WriteElement, depth: int):
        return [f"device.write_element({self.array(s.array)}, {self.expr(s.index)}, "
                f"{self.expr(s.value)}){self.loc(s)}"]

    def _stmt_ToDevice(self, s: P.ToDevice, depth: int):
        return [f"device.write_element({self.array(s.array)}, 0, {self.names.bind(s.sym)})"]

    def _stmt_FromDevice(self, s: P.FromDevice, depth: int):
        return [f"{self.names.bind(s.sym)} = {self._read_scalar(s.array, s.sym.type)}"]

    def _read_scalar(self, array: P.DeviceArray, t: Scalar) -> str:
        text = f"device.read_element({self.array(array)})"
        return f"bool({text})" if t is Scalar.BOOL else text

    def _stmt_Launch(self, s: P.Launch, depth: int):
        return self.launch(s.kernel, dict(s.scalar_args), s)

    def launch(self, kernel: P.Kernel, scalar_args: Dict[str, object], node) -> List[str]:
        code = self.kernels[kernel.name]
        args = []
        for arg in code.args:
            args.append(self._kernel_arg(arg, scalar_args, kernel))
        if kernel.extent == "single":
            call = f"device.launch_single({kernel.name!r}"
        else:
            count = self.n() if kernel.extent == "nodes" else self.m()
            call = f"device.launch({kernel.name!r}, {count}"
        return _wrap_call(call, args, self.loc(node))

    def _kernel_arg(self, arg: KernelArg, scalar_args: Dict[str, object],
                    kernel: P.Kernel) -> str:
        kind, what = arg.source
        if kind == "size":
            return self.n() if what == "nodes" else self.m()
        if kind == "graph":
            self.graph_arrays.add(what)
            return f"dev.{what}"
        if kind == "array":
            return self.array(what)
        if kind == "host":
            return self.names.bind(what)
        if kind == "kernel_scalar":
            if what not in scalar_args:
                raise BackendError(f"kernel {kernel.name} needs the value of '{what}' but the "
                                   "launch binds none", kernel.loc)
            value = scalar_args[what]
            return value if isinstance(value, str) else self.expr(value)
        raise BackendError(f"unknown kernel argument source {kind!r}", kernel.loc)

    # --- the run-time error word (starc.analysis.checks) ---------------------------------------
    def error_check(self) -> List[str]:
        """Raise the reference's ``ExecutionError`` if a kernel check failed (no plan error
        word: nothing to read)."""
        error = self.plan.error
        if error is None:
            return []
        return [f"rt.check_errors(device, graph, {self.array(error.site)}, "
                f"{self.array(error.value)}, CHECK_SITES)"]

def _wrap_call(head: str, args: List[str], comment: str, width: int = 96) -> List[str]:
    """``head, arg, ...)`` on one line, or wrapped with the arguments aligned after ``(``."""
    one = head + "".join(", " + a for a in args) + ")"
    if len(one) <= width:
        return [one + comment]
    pad = " " * (head.index("(") + 1)
    lines, current = [], head + ","
    for i, arg in enumerate(args):
        piece = arg + (")" if i == len(args) - 1 else ",")
        if len(current) + 1 + len(piece) > width:
            lines.append(current)
            current = pad + piece
        else:
            current += " " + piece
    lines.append(current)
    lines[0] += comment
    return lines


def _continues(block: P.HostBlock) -> bool:
    """Whether ``continue`` appears in ``block`` outside any nested loop."""
    for stmt in block.stmts:
        if isinstance(stmt, P.HostContinue):
            return True
        if isinstance(stmt, P.HostIf):
            if _continues(stmt.then) or (stmt.orelse is not None and _continues(stmt.orelse)):
                return True
        if isinstance(stmt, P.HostBlock) and _continues(stmt):
            return True
    return False


def print_host(plan: P.Plan, kernels: Sequence[KernelCode]) -> HostCode:
    """Print ``plan.host`` as the body of the generated ``_algorithm`` function."""
    printer = HostPrinter(plan, {k.name: k for k in kernels})
    params = [(sym, printer.names.bind(sym)) for sym in plan.function.params
              if isinstance(sym.type, (Scalar, SetType)) or
              (isinstance(sym.type, PropType) and sym.type.kind == "edge")]
    body = printer.block(plan.host, 1)
    sizes = [f"{name} = i32(graph.{attr})" for name, attr, used in
             (("n", "num_nodes", printer.uses_n), ("m", "num_edges", printer.uses_m)) if used]
    body = [INDENT + line for line in sizes] + body
    graph_arrays = [name for name in GRAPH_ARRAYS if name in printer.graph_arrays]
    return HostCode(body, params, graph_arrays, printer.uses_n, printer.uses_m,
                    printer.arrays, printer.error_check())
