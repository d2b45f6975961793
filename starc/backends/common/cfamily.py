"""The backend-neutral C-family printer: typed IR and lowered kernel statements to C text.

A backend supplies a ``Dialect`` (type names, INF spellings, atomic helper names, array
indexing, locks, flags); the printer does the rest, once for every C-like backend. Names of
the runtime helpers are the same in every backend's prelude (``starc_atomic_min_float``,
``starc_find_edge``, ``starc_lock_try`` ...), so only spellings that really differ live in the
dialects. A mapping a dialect lacks raises ``DialectError`` naming the operation and the
backend; nothing is ever dropped silently.

``lower_kernel(kernel, dialect, filename)`` turns one ``plan.Kernel`` into a ``KernelCode``:
the ordered argument list (what the host passes, in which order) and the body lines, ready
for the backend's kernel shell (``__kernel``/``__global__``/a lambda).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from starc.analysis import plan as P
from starc.backends.common.edge_cursors import EDGE_QUERIES, cursor_rows, query_row
from starc.backends.common.sorted_ranges import RangeFilter, split_range_filter
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar, is_floating, is_integer

__all__ = [
    "DialectError", "Dialect", "NameTable", "KernelArg", "KernelCode", "KernelContext",
    "CPrinter", "lower_kernel", "ATOMIC_OPS", "GRAPH_ARRAYS", "INDENT", "C_KEYWORDS",
    "PRECEDENCE", "POSTFIX", "private_reductions", "PrivateAccumulator",
]

INDENT = "    "

#: Abstract atomic read-modify-write operations and the reduction operator each serves.
ATOMIC_OPS = {"+": "add", "-": "sub", "*": "mul", "&": "and", "|": "or",
              "Min": "min", "Max": "max"}

#: The CSR arrays of the graph, by the names the plan and the generated code use.
GRAPH_ARRAYS = ("offsets", "targets", "sources", "rev_offsets", "rev_sources", "rev_edge_ids")

C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while bool true false class template typename namespace new
    delete this operator private public protected virtual friend using min max abs n m
""".split())

#: C precedence of the binary operators the printer emits (higher binds tighter); printers
#: return (text, precedence) pairs and parenthesise an operand below the precedence needed.
PRECEDENCE = {"||": 4, "&&": 5, "==": 9, "!=": 9, "<": 10, "<=": 10, ">": 10, ">=": 10,
              "+": 12, "-": 12, "*": 13, "/": 13, "%": 13}
#: The precedence of a postfix expression (a call, an index): never parenthesised.
POSTFIX = 15
_UNARY, _PRIMARY = 14, 16
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


class DialectError(NotImplementedError):
    """A construct or abstract operation the backend has no mapping for."""

    def __init__(self, backend: str, operation: str, loc=None) -> None:
        where = f" at {loc.file}:{loc.line}" if loc is not None and loc.line > 0 else ""
        super().__init__(f"the {backend} backend cannot express {operation}{where}")
        self.backend = backend
        self.operation = operation
        self.loc = loc


class Dialect:
    """How one C-like target spells each abstract operation. Subclasses fill the tables.

    Every method that has no mapping raises ``DialectError`` through ``missing``.
    """

    name = "c"
    #: type of locals and by-value values in device code
    scalar_types: Dict[Scalar, str] = {
        Scalar.BOOL: "bool", Scalar.INT: "int", Scalar.LONG: "long long", Scalar.FLOAT: "float",
        Scalar.DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    #: element type of device arrays and by-value kernel arguments (bool is a byte)
    storage_types: Dict[Scalar, str] = {
        Scalar.BOOL: "unsigned char", Scalar.INT: "int", Scalar.LONG: "long long",
        Scalar.FLOAT: "float", Scalar.DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    #: (INF, -INF) per type
    inf_values: Dict[Scalar, Tuple[str, str]] = {
        Scalar.INT: ("INT_MAX", "INT_MIN"), Scalar.NODE: ("INT_MAX", "INT_MIN"),
        Scalar.EDGE: ("INT_MAX", "INT_MIN"), Scalar.LONG: ("LLONG_MAX", "LLONG_MIN"),
        Scalar.FLOAT: ("FLT_MAX", "-FLT_MAX"), Scalar.DOUBLE: ("DBL_MAX", "-DBL_MAX")}
    long_suffix = "LL"
    #: (atomic op, element type) pairs the runtime prelude defines helpers for
    atomics: FrozenSet[Tuple[str, Scalar]] = frozenset()
    #: element-type suffix of the prelude helpers, the same in every backend whatever the C
    #: type is called there (``starc_atomic_add_long``, not ``..._long_long``)
    helper_suffixes: Dict[Scalar, str] = {
        Scalar.INT: "int", Scalar.LONG: "long", Scalar.FLOAT: "float", Scalar.DOUBLE: "double"}
    #: Min/Max as a plain expression: function name per type
    minmax_functions: Dict[Tuple[str, Scalar], str] = {}
    reserved: FrozenSet[str] = C_KEYWORDS

    def missing(self, operation: str, loc=None):
        raise DialectError(self.name, operation, loc)

    def accumulates_privately(self, address: str) -> bool:
        """Whether an exclusive scalar reduction whose device copy is at ``address`` may be
        accumulated in a work-item private and combined once at the end of the body (see
        ``private_reductions``). False where the dialect reduces it natively instead."""
        return True

    # --- types and constants ----------------------------------------------------------------
    def type_name(self, t) -> str:
        if t not in self.scalar_types:
            self.missing(f"the type '{t}' in device code")
        return self.scalar_types[t]

    def storage_type(self, t) -> str:
        if t not in self.storage_types:
            self.missing(f"device arrays of '{t}'")
        return self.storage_types[t]

    def inf(self, t: Scalar, negative: bool) -> str:
        if t not in self.inf_values:
            self.missing(f"{'-' if negative else ''}INF of type '{t}'")
        return self.inf_values[t][1 if negative else 0]

    def int_literal(self, value: int, t: Scalar) -> str:
        return f"{value}{self.long_suffix}" if t is Scalar.LONG else str(value)

    def float_literal(self, value: float, t: Scalar) -> str:
        text = repr(float(value))
        if text in ("inf", "-inf", "nan"):
            self.missing(f"the float constant {text}")
        if not any(c in text for c in ".e"):
            text += ".0"
        return text + ("f" if t is Scalar.FLOAT else "")

    def bool_literal(self, value: bool) -> str:
        return "true" if value else "false"

    # --- memory -------------------------------------------------------------------------------
    def index(self, array: str, index: str) -> str:
        return f"{array}[{index}]"

    def address(self, array: str, index: str) -> str:
        return f"&{array}[{index}]"

    # --- atomics, locks, flags -----------------------------------------------------------------
    def atomic_helper(self, op: str, elem: Scalar) -> str:
        """Name of the prelude helper for abstract ``op`` (add sub mul and or min max)."""
        stored = Scalar.INT if elem in (Scalar.NODE, Scalar.EDGE) else elem
        if (op, stored) not in self.atomics:
            self.missing(f"an atomic {op} on '{elem}'")
        return f"starc_atomic_{op}_{self.helper_suffixes[stored]}"

    def atomic(self, op: str, elem: Scalar, address: str, value: str) -> str:
        """An expression performing the atomic update; its value is the old element."""
        return f"{self.atomic_helper(op, elem)}({address}, {value})"

    def lock_try(self, address: str) -> str:
        return f"starc_lock_try({address})"

    def lock_release(self, address: str) -> str:
        return f"starc_lock_release({address});"

    def flag_set(self, flag: str) -> str:
        return f"{self.index(flag, '0')} = 1;"

    def minmax(self, func: str, t: Scalar, left: str, right: str) -> str:
        if (func, t) not in self.minmax_functions:
            self.missing(f"{func} of '{t}' as an expression")
        return f"{self.minmax_functions[(func, t)]}({left}, {right})"

    def find_edge(self, offsets: str, targets: str, u: str, w: str) -> str:
        return f"starc_find_edge({offsets}, {targets}, {u}, {w})"

    def gallop(self, targets: str, cursor: str, end: str, w: str) -> str:
        """``find_edge`` by moving the local ``cursor`` forward in a row ending at ``end``."""
        return f"starc_gallop({targets}, &{cursor}, {end}, {w})"


class NameTable:
    """C identifiers for symbols: the DSL name, made unique (``name_2``) and kept off
    keywords and generated names. One table per kernel."""

    def __init__(self, reserved: Sequence[str] = ()) -> None:
        self._taken: Set[str] = set(reserved)
        self._by_uid: Dict[int, str] = {}

    def reserve(self, name: str) -> None:
        self._taken.add(name)

    def fresh(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "tmp"
        if base[0].isdigit() or base.startswith(("starc_", "__")):
            base = "v_" + base
        candidate, k = base, 2
        while candidate in self._taken:
            candidate = f"{base}_{k}"
            k += 1
        self._taken.add(candidate)
        return candidate

    def bind(self, sym: ir.Symbol, preferred: Optional[str] = None) -> str:
        if sym.uid not in self._by_uid:
            self._by_uid[sym.uid] = self.fresh(preferred or sym.name)
        return self._by_uid[sym.uid]

    def lookup(self, sym: ir.Symbol) -> Optional[str]:
        return self._by_uid.get(sym.uid)


@dataclasses.dataclass
class KernelArg:
    """One kernel argument, in order. ``source`` says what the host passes:
    ``("size", "nodes"|"edges")``, ``("array", DeviceArray)``, ``("graph", csr_name)``,
    ``("host", Symbol)`` (a host scalar by value) or ``("kernel_scalar", name)``."""

    name: str
    elem: Scalar
    is_array: bool
    written: bool
    source: Tuple[str, object]


@dataclasses.dataclass
class KernelCode:
    """A printed kernel: the backend wraps ``body`` (already indented one level) in its shell,
    after declaring ``index`` from the thread id and returning when ``index >= n`` (nodes) or
    ``index >= m`` (edges); a single-item kernel is launched as exactly one work item."""

    name: str
    extent: str                # "nodes" (bound n), "edges" (bound m) or "single" (one item)
    index: Optional[str]       # None: a single-item kernel that does not use its index
    args: List[KernelArg]
    body: List[str]
    comment: str               # "// file.sp:LINE"
    features: Set[str]         # e.g. {"double", "atomic_add_long"}


class KernelContext:
    """Resolves names inside one kernel: parameters, graph arrays, locals; records uses."""

    def __init__(self, kernel: P.Kernel, dialect: Dialect) -> None:
        self.kernel = kernel
        self.dialect = dialect
        self.names = NameTable(dialect.reserved | set(GRAPH_ARRAYS) | {"n", "m"})
        self.prop_arrays: Dict[int, KernelArg] = {}     # symbol uid -> array argument
        self.by_value: Dict[int, KernelArg] = {}        # symbol uid -> by-value argument
        self.reduction_arrays: Dict[int, KernelArg] = {}
        self.arrays_by_name: Dict[str, KernelArg] = {}
        self.graph_args: Dict[str, KernelArg] = {}
        self.used_graph: Set[str] = set()          # CSR arrays the printed code reads
        self.kernel_scalars: Dict[str, KernelArg] = {}
        self.params: List[KernelArg] = []
        self.uses_n = kernel.extent == "nodes"
        self.uses_m = kernel.extent == "edges"
        self.features: Set[str] = set()
        for param in kernel.params:
            self._add_param(param)
        for red in kernel.reductions:
            self.reduction_arrays[red.sym.uid] = self.array(red.array, written=True)

    def array(self, array: P.DeviceArray, written: bool = False) -> KernelArg:
        """The argument for device array ``array`` (added on first use)."""
        arg = self.arrays_by_name.get(array.name)
        if arg is not None:
            arg.written = arg.written or written
            return arg
        if array.role == "graph":
            if array.name not in GRAPH_ARRAYS:
                self.dialect.missing(f"the graph array '{array.name}'")
            arg = KernelArg(array.name, array.elem, True, written, ("graph", array.name))
            self.graph_args[array.name] = arg
        else:
            arg = KernelArg(self.names.fresh(array.name), array.elem, True, written,
                            ("array", array))
            if array.sym is not None and array.role == "scalar":
                self.reduction_arrays.setdefault(array.sym.uid, arg)
            elif array.sym is not None:
                self.prop_arrays[array.sym.uid] = arg
        self.arrays_by_name[array.name] = arg
        self.params.append(arg)
        return arg

    def _add_param(self, param: P.KernelParam) -> None:
        if param.array is not None:
            self.array(param.array, param.written)
        elif param.sym is not None:
            arg = KernelArg(self.names.fresh(param.name), param.elem, False, False,
                            ("host", param.sym))
            self.by_value[param.sym.uid] = arg
            self.params.append(arg)
        else:
            self.dialect.missing(f"the kernel parameter '{param.name}' (neither array nor "
                                 "scalar)")

    # --- resolution used by the printer ----------------------------------------------------
    def graph_array(self, name: str) -> str:
        self.used_graph.add(name)
        if name not in self.graph_args:
            arg = KernelArg(name, Scalar.INT, True, False, ("graph", name))
            self.graph_args[name] = arg
            self.params.append(arg)
        return name

    def num_nodes(self) -> str:
        self.uses_n = True
        return "n"

    def num_edges(self) -> str:
        self.uses_m = True
        return "m"

    def prop(self, sym: ir.Symbol, loc=None, written: bool = False) -> str:
        arg = self.prop_arrays.get(sym.uid)
        if arg is None:
            self.dialect.missing(f"property '{sym.name}' in kernel {self.kernel.name} (the "
                                 "plan gives no array for it)", loc)
        arg.written = arg.written or written
        return arg.name

    def kernel_scalar(self, name: str, t: Scalar) -> str:
        if name not in self.kernel_scalars:
            arg = KernelArg(self.names.fresh(name), t, False, False, ("kernel_scalar", name))
            self.kernel_scalars[name] = arg
            self.params.append(arg)
        return self.kernel_scalars[name].name

    def arguments(self) -> List[KernelArg]:
        sizes = []
        if self.uses_n:
            sizes.append(KernelArg("n", Scalar.INT, False, False, ("size", "nodes")))
        if self.uses_m:
            sizes.append(KernelArg("m", Scalar.INT, False, False, ("size", "edges")))
        # The plan may list CSR arrays the printed code does not need (e.g. rev_edge_ids when
        # no edge of an in-neighbour loop is used): leave them out of the signature.
        return sizes + [a for a in self.params
                        if a.source[0] != "graph" or a.name in self.used_graph]


def _mentions(loop: ir.Loop, sym: ir.Symbol) -> bool:
    """``loop``'s body or filter reads ``sym``."""
    parts = (loop.body,) if loop.filter is None else (loop.body, loop.filter)
    return any(isinstance(x, ir.VarRef) and x.sym == sym for part in parts
               for x in ir.walk(part))


def _base(path: str) -> str:
    return os.path.basename(path) if path else "<input>"


def private_reductions(kernel: P.Kernel) -> List[P.ScalarReduction]:
    """The kernel's scalar reductions a work item may accumulate privately and combine into
    the device scalar once (with one atomic, or a native reduction such as
    ``sycl::reduction``): exclusive ones on a non-bool scalar that the guard and body only
    update (never read) and, for Min/Max, only through plain atomic min/max statements (no
    secondary targets, no lock). Single-item kernels have none (they use no atomics)."""
    if kernel.extent == "single":
        return []
    chosen = []
    nodes = list(ir.walk(kernel.body))
    if kernel.guard is not None:
        nodes += list(ir.walk(kernel.guard))
    for red in kernel.reductions:
        if not red.exclusive or red.sym.type is Scalar.BOOL or red.op not in ATOMIC_OPS:
            continue
        refs = sum(1 for x in nodes if isinstance(x, ir.VarRef) and x.sym == red.sym)
        updates = 0
        simple = True
        for x in nodes:
            if isinstance(x, (P.AtomicReduce, P.AtomicMinMax)) and \
                    isinstance(x.target, ir.VarRef) and x.target.sym == red.sym:
                updates += 1
                if isinstance(x, P.AtomicMinMax):
                    simple = simple and not (x.others or x.then or x.locked) \
                        and x.func == red.op
                else:
                    simple = simple and x.op == red.op
        if simple and updates and refs == updates:
            chosen.append(red)
    return chosen


@dataclasses.dataclass
class PrivateAccumulator:
    """A work item's private partial result of an exclusive scalar reduction: ``name`` is
    the local, ``op`` the reduction operator (``-`` accumulates the subtracted values with
    ``+`` and subtracts their sum once), ``elem`` the scalar's type, ``address`` its device
    copy, ``first_update`` the first update printed (its location comments the combine)."""

    name: str
    op: str
    elem: Scalar
    address: str
    first_update: Optional[ir.Stmt] = None


class CPrinter:
    """Prints typed-IR expressions and kernel statements through a dialect and a context."""

    def __init__(self, dialect: Dialect, context: KernelContext) -> None:
        self.d = dialect
        self.ctx = context
        #: (loop variable w, row u) -> (position, end) of the cursor in u's row while the
        #: loop over w is printed (see edge_cursors)
        self._cursors: Dict[Tuple[ir.Symbol, ir.Symbol], Tuple[str, str]] = {}
        #: host scalar uid -> its work-item private accumulator (see ``private_reductions``)
        self.accumulators: Dict[int, PrivateAccumulator] = {}

    # --- private accumulators of exclusive scalar reductions ---------------------------------
    def open_accumulators(self, reductions: Sequence[P.ScalarReduction],
                          depth: int) -> List[str]:
        """Declare one private per reduction, initialised to its operator's identity; the
        updates of the body then go to it (``_stmt_AtomicReduce``, ``_stmt_AtomicMinMax``)."""
        lines = []
        for red in reductions:
            address, elem = self._address(ir.VarRef(red.sym, type=red.sym.type))
            if not self.d.accumulates_privately(address):
                continue
            self._note_type(elem)
            name = self.ctx.names.fresh(f"{red.sym.name}_local")
            self.accumulators[red.sym.uid] = PrivateAccumulator(name, red.op, elem, address)
            lines.append(self._line(depth, f"{self.d.type_name(elem)} {name} = "
                                           f"{self._identity(red.op, elem)};"))
        return lines

    def close_accumulators(self, depth: int) -> List[str]:
        """One atomic combine per private, skipped while it still holds the identity."""
        lines = []
        for acc in self.accumulators.values():
            if acc.first_update is None:   # no update printed (cannot happen when chosen)
                continue
            op = ATOMIC_OPS[acc.op]
            self.ctx.features.add(f"atomic_{op}_{acc.elem}")
            call = self.d.atomic(op, acc.elem, acc.address, acc.name)
            identity = self._identity(acc.op, acc.elem)
            lines += self._braced(f"if ({acc.name} != {identity})", [
                self._line(depth + 1, f"{call};{self.comment(acc.first_update)}")], depth)
        return lines

    def _identity(self, op: str, elem: Scalar) -> str:
        if op in ("+", "-", "|"):
            return "0"
        if op == "*":
            return "1"
        if op == "&":
            return "~0"
        return self.d.inf(elem, negative=op == "Max")     # Min: INF, Max: -INF

    def _accumulate(self, s: ir.Stmt, target: ir.Expr, value: ir.Expr, depth: int):
        """The private update replacing an atomic one on a privately accumulated scalar,
        or None when ``target`` is not such a scalar."""
        if not isinstance(target, ir.VarRef):
            return None
        acc = self.accumulators.get(target.sym.uid)
        if acc is None:
            return None
        if acc.first_update is None:
            acc.first_update = s
        comment = self.comment(s)
        if acc.op in ("Min", "Max"):
            cand = self.expr(value if value.type == acc.elem else ir.Cast(value, type=acc.elem))
            return [self._line(depth, f"{acc.name} = "
                                      f"{self.d.minmax(acc.op, acc.elem, acc.name, cand)};"
                                      f"{comment}")]
        op = "+" if acc.op == "-" else acc.op
        return [self._line(depth, f"{acc.name} {op}= {self.expr(value)};{comment}")]

    def comment(self, node) -> str:
        loc = getattr(node, "loc", None)
        if loc is None or loc.line <= 0:
            return ""
        return f"  // {_base(loc.file)}:{loc.line}"

    def _note_type(self, t) -> None:
        if t is Scalar.DOUBLE:
            self.ctx.features.add("double")

    # --- expressions -------------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> str:
        return self._expr(e)[0]

    def _operand(self, e: ir.Expr, min_prec: int) -> str:
        text, prec = self._expr(e)
        return f"({text})" if prec < min_prec else text

    def _expr(self, e: ir.Expr) -> Tuple[str, int]:
        self._note_type(e.type)
        method = getattr(self, "_expr_" + type(e).__name__, None)
        if method is None:
            self.d.missing(f"the expression {type(e).__name__}", e.loc)
        return method(e)

    def _expr_Const(self, e: ir.Const):
        if e.type is Scalar.BOOL:
            return self.d.bool_literal(bool(e.value)), _PRIMARY
        if is_floating(e.type):
            text = self.d.float_literal(e.value, e.type)
            return text, (_UNARY if text.startswith("-") else _PRIMARY)
        value = int(e.value)
        lowest = -2 ** 63 if e.type is Scalar.LONG else -2 ** 31
        if value == lowest:   # the literal 2147483648 does not fit: spell INT_MIN
            return f"{self.d.int_literal(value + 1, e.type)} - 1", PRECEDENCE["-"]
        text = self.d.int_literal(value, e.type)
        return text, (_UNARY if value < 0 else _PRIMARY)

    def _expr_Inf(self, e: ir.Inf):
        text = self.d.inf(e.type, e.negative)
        return text, (_UNARY if text.startswith("-") else _PRIMARY)

    def _expr_VarRef(self, e: ir.VarRef):
        sym = e.sym
        name = self.ctx.names.lookup(sym)
        if name is not None:
            return name, _PRIMARY
        if sym.uid in self.ctx.by_value:
            return self.ctx.by_value[sym.uid].name, _PRIMARY
        if sym.uid in self.ctx.reduction_arrays:
            return self.d.index(self.ctx.reduction_arrays[sym.uid].name, "0"), POSTFIX
        self.d.missing(f"a reference to '{sym.name}' in kernel {self.ctx.kernel.name} (not a "
                       "local, parameter or reduction)", e.loc)

    def _expr_PropRead(self, e: ir.PropRead):
        array = self.ctx.prop(e.prop, e.loc)
        return self.d.index(array, self.expr(e.index)), POSTFIX

    def _expr_EdgeEndpoint(self, e: ir.EdgeEndpoint):
        array = "sources" if e.end == "source" else "targets"
        return self.d.index(self.ctx.graph_array(array), self.expr(e.edge)), POSTFIX

    def _expr_Unary(self, e: ir.Unary):
        if e.op == "!" and isinstance(e.operand, ir.Binary) and e.operand.op in _NEGATED \
                and not is_floating(e.operand.left.type):
            inner = e.operand
            return self._expr(ir.Binary(_NEGATED[inner.op], inner.left, inner.right,
                                        type=inner.type, loc=inner.loc))
        if e.op == "!" and isinstance(e.operand, ir.Unary) and e.operand.op == "!":
            return self._expr(e.operand.operand)
        operand = self._operand(e.operand, _UNARY)
        if e.op == "-" and operand.startswith("-"):
            operand = f"({operand})"
        return f"{e.op}{operand}", _UNARY

    def _expr_Binary(self, e: ir.Binary):
        if e.op in ("==", "!=") and e.left.type is Scalar.BOOL:
            # x == true is x, x != true is !x (bools are stored as 0/1)
            for value, other in ((e.right, e.left), (e.left, e.right)):
                if isinstance(value, ir.Const) and not isinstance(other, ir.Const):
                    if bool(value.value) == (e.op == "=="):
                        return self._expr(other)
                    return self._expr(ir.Unary("!", other, type=Scalar.BOOL, loc=e.loc))
        prec = PRECEDENCE[e.op]
        left_min, right_min = prec, prec + 1
        if e.op == "||":       # spell a && b inside || with parentheses (as -Wparentheses asks)
            left_min = right_min = PRECEDENCE["&&"] + 1
        elif prec == PRECEDENCE["=="]:
            left_min = right_min = PRECEDENCE["<"] + 1
        left = self._operand(e.left, left_min)
        right = self._operand(e.right, right_min)
        if right.startswith("-") and e.op in "+-":
            right = f"({right})"
        return f"{left} {e.op} {right}", prec

    def _expr_Cast(self, e: ir.Cast):
        inner = e.expr
        if isinstance(inner.type, Scalar) and \
                self.d.type_name(inner.type) == self.d.type_name(e.type):
            return self._expr(inner)
        if isinstance(inner, ir.Const) and e.type is not Scalar.BOOL:
            value = inner.value
            if is_floating(e.type):
                return self._expr_Const(ir.Const(float(value), type=e.type))
            if is_integer(e.type) and not isinstance(value, float):
                return self._expr_Const(ir.Const(int(value), type=e.type))
        return f"({self.d.type_name(e.type)}){self._operand(inner, _UNARY)}", _UNARY

    def _expr_MinMax(self, e: ir.MinMax):
        args = [self.expr(x if x.type == e.type else ir.Cast(x, type=e.type))
                for x in (e.left, e.right)]
        return self.d.minmax(e.func, e.type, *args), POSTFIX

    def _expr_GraphQuery(self, e: ir.GraphQuery):
        if e.op == "num_nodes":
            return self.ctx.num_nodes(), _PRIMARY
        if e.op == "num_edges":
            return self.ctx.num_edges(), _PRIMARY
        if e.op in ("count_outNbrs", "count_inNbrs"):
            offsets = self.ctx.graph_array("offsets" if e.op == "count_outNbrs"
                                           else "rev_offsets")
            v = self._operand(e.args[0], PRECEDENCE["+"])
            return (f"{self.d.index(offsets, v + ' + 1')} - {self.d.index(offsets, v)}",
                    PRECEDENCE["-"])
        if e.op in EDGE_QUERIES:
            cursor = next((names for (var, row), names in self._cursors.items()
                           if query_row(e, var) == row), None)
            if cursor is not None:
                call = self.d.gallop(self.ctx.graph_array("targets"), *cursor,
                                     self.expr(e.args[1]))
            else:
                call = self.d.find_edge(self.ctx.graph_array("offsets"),
                                        self.ctx.graph_array("targets"),
                                        self.expr(e.args[0]), self.expr(e.args[1]))
            if e.op == "get_edge":
                return call, POSTFIX
            return f"{call} >= 0", PRECEDENCE[">="]
        self.d.missing(f"the graph query '{e.op}'", e.loc)

    def _expr_KernelScalar(self, e: P.KernelScalar):
        return self.ctx.kernel_scalar(e.name, e.type), _PRIMARY

    # --- statements ---------------------------------------------------------------------------
    def block(self, block: ir.Block, depth: int) -> List[str]:
        lines: List[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt, depth)
        return lines

    def stmt(self, s: ir.Stmt, depth: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            self.d.missing(f"the statement {type(s).__name__} inside a kernel", s.loc)
        return method(s, depth)

    def _line(self, depth: int, text: str) -> str:
        return INDENT * depth + text

    def _braced(self, head: str, body: List[str], depth: int, tail: str = "}",
                comment: str = "") -> List[str]:
        return [self._line(depth, head + " {" + comment)] + body + [self._line(depth, tail)]

    def _stmt_Block(self, s: ir.Block, depth: int):
        return [self._line(depth, "{")] + self.block(s, depth + 1) + [self._line(depth, "}")]

    def _declare_local(self, sym: ir.Symbol) -> Tuple[str, str]:
        if isinstance(sym.type, PropType):
            self.d.missing(f"declaring the property '{sym.name}' inside a kernel", sym.loc)
        self._note_type(sym.type)
        return self.d.type_name(sym.type), self.ctx.names.bind(sym)

    def _stmt_Declare(self, s: ir.Declare, depth: int):
        init = None if s.init is None else self.expr(s.init)
        type_name, name = self._declare_local(s.sym)
        text = f"{type_name} {name}" + ("" if init is None else f" = {init}")
        return [self._line(depth, text + ";")]

    def _lvalue(self, target: ir.Expr) -> str:
        if isinstance(target, ir.PropRead):
            self.ctx.prop(target.prop, target.loc, written=True)
        if isinstance(target, ir.VarRef) and self.ctx.names.lookup(target.sym) is None:
            if target.sym.uid not in self.ctx.reduction_arrays:
                self.d.missing(f"a plain write to the host scalar '{target.sym.name}' inside "
                               f"kernel {self.ctx.kernel.name}", target.loc)
        return self.expr(target)

    def _stmt_Assign(self, s: ir.Assign, depth: int):
        return [self._line(depth, f"{self._lvalue(s.target)} = {self.expr(s.value)};")]

    def _stmt_Reduce(self, s: ir.Reduce, depth: int):
        return [self._line(depth, f"{self._lvalue(s.target)} {s.op}= {self.expr(s.value)};")]

    def _stmt_ExprStmt(self, s: ir.ExprStmt, depth: int):
        return [self._line(depth, self.expr(s.expr) + ";")]

    def _stmt_If(self, s: ir.If, depth: int):
        lines = self._braced(f"if ({self.expr(s.cond)})", self.block(s.then, depth + 1), depth)
        orelse = s.orelse
        while orelse is not None:
            if len(orelse.stmts) == 1 and isinstance(orelse.stmts[0], ir.If):
                nested = orelse.stmts[0]
                lines[-1] += f" else if ({self.expr(nested.cond)}) {{"
                lines += self.block(nested.then, depth + 1) + [self._line(depth, "}")]
                orelse = nested.orelse
            else:
                lines[-1] += " else {"
                lines += self.block(orelse, depth + 1) + [self._line(depth, "}")]
                orelse = None
        return lines

    def _stmt_While(self, s: ir.While, depth: int):
        return self._braced(f"while ({self.expr(s.cond)})", self.block(s.body, depth + 1),
                            depth)

    def _stmt_DoWhile(self, s: ir.DoWhile, depth: int):
        body = self.block(s.body, depth + 1)
        return self._braced("do", body, depth, f"}} while ({self.expr(s.cond)});")

    def _stmt_Break(self, s, depth):
        return [self._line(depth, "break;")]

    def _stmt_Continue(self, s, depth):
        return [self._line(depth, "continue;")]

    def _stmt_Loop(self, s: ir.Loop, depth: int):
        dom = s.domain
        var = self.ctx.names.bind(s.var)
        inner = depth + 1
        prologue: List[str] = []
        if isinstance(dom, ir.AllNodes):
            head = f"for (int {var} = 0; {var} < {self.ctx.num_nodes()}; {var}++)"
        elif isinstance(dom, ir.AllEdges):
            head = f"for (int {var} = 0; {var} < {self.ctx.num_edges()}; {var}++)"
        elif isinstance(dom, (ir.Neighbors, ir.InNeighbors)):
            if isinstance(dom, ir.Neighbors) and dom.role != "out":
                self.d.missing(f"a neighbour loop with BFS role '{dom.role}' (the analyses "
                               "should have lowered it)", s.loc)
            forward = isinstance(dom, ir.Neighbors)
            offsets = self.ctx.graph_array("offsets" if forward else "rev_offsets")
            ends = self.ctx.graph_array("targets" if forward else "rev_sources")
            of = self.expr(dom.of)
            if not isinstance(dom.of, (ir.VarRef, P.KernelScalar)):
                of_name = self.ctx.names.fresh(f"{var}_of")
                prologue = [self._line(depth, f"int {of_name} = {of};")]
                of = of_name
            if forward:
                pos = self.ctx.names.bind(dom.edge)
            else:
                pos = self.ctx.names.fresh(f"{var}_in")
            begin, end = self.d.index(offsets, of), self.d.index(offsets, of + ' + 1')
            ranged = split_range_filter(s, self._private)
            if ranged is not None:
                bounds, begin, end = self._sorted_range(ranged, var, ends, begin, end, s, depth)
                prologue += bounds
                s = dataclasses.replace(s, filter=ranged.rest)
            cursors = cursor_rows(s, self._private)
            for row, query in cursors.items():
                prologue += self._edge_cursor(s.var, var, row, query, depth)
            head = f"for (int {pos} = {begin}; {pos} < {end}; {pos}++)"
            prologue_inner = []
            # A loop whose filter became its range may no longer read the neighbour itself.
            if ranged is None or _mentions(s, s.var):
                prologue_inner.append(
                    self._line(inner, f"int {var} = {self.d.index(ends, pos)};"))
            if not forward and _mentions(s, dom.edge):
                edge = self.ctx.names.bind(dom.edge)
                rev_ids = self.ctx.graph_array("rev_edge_ids")
                prologue_inner.append(
                    self._line(inner, f"int {edge} = {self.d.index(rev_ids, pos)};"))
            body = self._filtered(s, inner)
            for row in cursors:
                del self._cursors[(s.var, row)]
            return prologue + self._braced(head, prologue_inner + body, depth)
        else:
            self.d.missing(f"a loop over {type(dom).__name__} inside a kernel", s.loc)
        return prologue + self._braced(head, self._filtered(s, inner), depth)

    def _private(self, sym: ir.Symbol) -> bool:
        """``sym`` is printed as a work-item local or a by-value argument (not shared)."""
        return self.ctx.names.lookup(sym) is not None or sym.uid in self.ctx.by_value

    def _sorted_range(self, ranged: RangeFilter, var: str, ends: str, begin: str, end: str,
                      s: ir.Loop, depth: int) -> Tuple[List[str], str, str]:
        """Binary searches for the run of a sorted CSR row that passes the filter's bounds
        on the loop variable: the lines declaring them and the loop's new begin and end."""
        lines: List[str] = []
        for bound in ranged.bounds:
            # start: the first id > c (>= c); stop: the first id >= c (> c), which fails.
            helper = "starc_upper_bound" if bound.inclusive == (bound.side == "stop") \
                else "starc_lower_bound"
            name = self.ctx.names.fresh(f"{var}_{bound.side}")
            call = f"{helper}({ends}, {begin}, {end}, {self.expr(bound.value)})"
            comment = "" if lines else self.comment(s)
            lines.append(self._line(depth, f"int {name} = {call};{comment}"))
            if bound.side == "start":
                begin = name
            else:
                end = name
        return lines, begin, end

    def _edge_cursor(self, loop_var: ir.Symbol, var: str, row: ir.Symbol,
                     query: ir.GraphQuery, depth: int) -> List[str]:
        """Declares the cursor answering the loop's edge queries (row, var): u's whole row
        (``offsets`` is read here, before the loop); registers it for the body."""
        offsets = self.ctx.graph_array("offsets")
        u = self.expr(ir.VarRef(row, type=row.type))
        pos = self.ctx.names.fresh(f"{var}_in_{u}_pos")
        end = self.ctx.names.fresh(f"{var}_in_{u}_end")
        self._cursors[(loop_var, row)] = (pos, end)
        return [self._line(depth, f"int {pos} = {self.d.index(offsets, u)};"
                                  f"{self.comment(query)}"),
                self._line(depth, f"int {end} = {self.d.index(offsets, u + ' + 1')};")]

    def _filtered(self, s: ir.Loop, depth: int) -> List[str]:
        if s.filter is None:
            return self.block(s.body, depth)
        return self._braced(f"if ({self.expr(s.filter)})", self.block(s.body, depth + 1),
                            depth)

    # --- lowered statements -------------------------------------------------------------------
    def _address(self, target: ir.Expr) -> Tuple[str, Scalar]:
        if isinstance(target, ir.PropRead):
            array = self.ctx.prop(target.prop, target.loc, written=True)
            return self.d.address(array, self.expr(target.index)), target.prop.type.elem
        if isinstance(target, ir.VarRef) and target.sym.uid in self.ctx.reduction_arrays:
            arg = self.ctx.reduction_arrays[target.sym.uid]
            return self.d.address(arg.name, "0"), target.sym.type
        self.d.missing(f"an atomic update of {type(target).__name__}", target.loc)

    def _stmt_AtomicReduce(self, s: P.AtomicReduce, depth: int):
        private = self._accumulate(s, s.target, s.value, depth)
        if private is not None:
            return private
        address, elem = self._address(s.target)
        self._note_type(elem)
        comment = self.comment(s)
        if elem is Scalar.BOOL:
            # All-writers-agree stores: v &= c clears when c is false, v |= c sets when true;
            # byte-sized atomics do not exist everywhere and are not needed.
            if s.op not in "&|":
                self.d.missing(f"the reduction '{s.op}=' on bool", s.loc)
            target = self.expr(s.target)
            if s.op == "|":
                cond, value = self.expr(s.value), self.d.bool_literal(True)
            else:
                cond = self.expr(ir.Unary("!", s.value, type=Scalar.BOOL))
                value = self.d.bool_literal(False)
            return [self._line(depth, f"if ({cond}) {target} = {value};{comment}")]
        op = ATOMIC_OPS[s.op]
        self.ctx.features.add(f"atomic_{op}_{elem}")
        call = self.d.atomic(op, elem, address, self.expr(s.value))
        return [self._line(depth, f"{call};{comment}")]

    def _stmt_AtomicMinMax(self, s: P.AtomicMinMax, depth: int):
        if not s.others and not s.then and not s.locked:
            private = self._accumulate(s, s.target, s.candidate, depth)
            if private is not None:
                return private
        address, elem = self._address(s.target)
        self._note_type(elem)
        op = ATOMIC_OPS[s.func]
        self.ctx.features.add(f"atomic_{op}_{elem}")
        comment = self.comment(s)
        if not s.others and not s.then and not s.locked:
            call = self.d.atomic(op, elem, address, self.expr(s.candidate))
            return [self._line(depth, f"{call};{comment}")]
        base = s.target.prop.name if isinstance(s.target, ir.PropRead) else s.target.sym.name
        cand = self.ctx.names.fresh(f"{base}_new")
        lines = [self._line(depth, f"{self.d.type_name(elem)} {cand} = "
                                   f"{self.expr(s.candidate)};")]
        # The helper returns the old value: the update won iff the candidate beats it.
        won = f"{self.d.atomic(op, elem, address, cand)} {'>' if s.func == 'Min' else '<'} {cand}"
        if not s.locked:
            return lines + self._braced(f"if ({won})", self._effects(s, depth + 1), depth,
                                        comment=comment)
        if s.lock is None:
            self.d.missing("a locked Min/Max without a lock array", s.loc)
        lock_arg = self.ctx.array(s.lock, written=True)
        lock_index = self.expr(s.target.index) if s.lock.extent != "one" else "0"
        lock_address = self.d.address(lock_arg.name, lock_index)
        done = self.ctx.names.fresh("done")
        # Retry until this work item owns the lock; the holder's branch always completes, so
        # work items of one SIMD group cannot deadlock each other. The target is still
        # updated atomically so readers outside the lock never see a torn value.
        critical = self._braced(f"if ({won})", self._effects(s, depth + 3), depth + 2) + [
            self._line(depth + 2, self.d.lock_release(lock_address)),
            self._line(depth + 2, f"{done} = true;")]
        inner = self._braced(f"if ({self.d.lock_try(lock_address)})", critical, depth + 1)
        return lines + self._braced(f"for (bool {done} = false; !{done}; )", inner, depth,
                                    comment=comment)

    def _effects(self, s: P.AtomicMinMax, depth: int) -> List[str]:
        lines = [self._line(depth, f"{self._lvalue(t)} = {self.expr(v)};") for t, v in s.others]
        for stmt in s.then:
            lines += [line.split("  //")[0] for line in self.stmt(stmt, depth)]
        return lines

    def _stmt_FlagSet(self, s: P.FlagSet, depth: int):
        arg = self.ctx.array(s.flag, written=True)
        store = self.d.flag_set(arg.name)
        if s.value is None:
            return [self._line(depth, store + self.comment(s))]
        return [self._line(depth, f"if ({self.expr(s.value)}) {store}{self.comment(s)}")]

    def _stmt_ScalarStore(self, s: P.ScalarStore, depth: int):
        arg = self.ctx.array(s.array, written=True)
        return [self._line(depth, f"{self.d.index(arg.name, '0')} = {self.expr(s.value)};"
                                  f"{self.comment(s)}")]


def lower_kernel(kernel: P.Kernel, dialect: Dialect) -> KernelCode:
    """Print ``kernel``'s guard and body; the argument list is complete afterwards."""
    if kernel.extent not in ("nodes", "edges", "single"):
        dialect.missing(f"a kernel over '{kernel.extent}'", kernel.loc)
    ctx = KernelContext(kernel, dialect)
    printer = CPrinter(dialect, ctx)
    index = ctx.names.bind(kernel.index)
    body: List[str] = []
    if kernel.guard is not None:
        guard = printer.expr(ir.Unary("!", kernel.guard, type=Scalar.BOOL))
        body.append(INDENT + f"if ({guard}) return;")
    # Exclusive scalar reductions: a private per work item, one atomic combine at the end
    # (a forall body has no return, so the end is always reached after the guard).
    body += printer.open_accumulators(private_reductions(kernel), 1)
    body += printer.block(kernel.body, 1)
    body += printer.close_accumulators(1)
    index_used = kernel.extent != "single" or any(
        isinstance(x, ir.VarRef) and x.sym == kernel.index for x in ir.walk(kernel.body))
    loc = kernel.loc
    comment = f"// {_base(loc.file)}:{loc.line}" if loc is not None and loc.line > 0 else ""
    return KernelCode(kernel.name, kernel.extent, index if index_used else None,
                      ctx.arguments(), body, comment, ctx.features)
