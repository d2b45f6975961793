"""The shared C++ host printer: a plan's host tree and the ``main`` of every C++ backend.

CUDA, SYCL, OpenACC and MPI programs share everything on the host but the device operations:
the command line (``starc::CommandLine``), reading the graph, binding ``propEdge`` parameters to
the file's weights, host scalars, the control flow, ``FixedPointLoop`` and ``BFSLoop``, the
results and ``--time``. A backend supplies a ``HostDialect`` whose hooks spell the device
operations (allocate, copy, fill, swap, single-element access, launch, synchronise, timing);
a hook it lacks raises ``BackendError`` naming the operation. Host expressions go through the
shared ``cfamily`` printer with a host context (graph queries on ``starc::Graph``, device reads
through the dialect).

Use::

    printer = CppHostPrinter(plan, dialect, kernels)   # kernels: name -> cfamily.KernelCode
    text = printer.main()                             # "int main(...) { ... }"
    printer.support()                                 # helper functions main needs (or "")
    printer.includes()                                # standard headers main needs
"""

from __future__ import annotations

import os
import types
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.backends.common import cfamily
from starc.backends.common.cfamily import INDENT, KernelCode, NameTable
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar, SetType, c_name

__all__ = ["CXX_KEYWORDS", "HostDialect", "HostExprDialect", "CppHostPrinter", "location"]

#: C++17 keywords and names a generated C++ program must not shadow.
CXX_KEYWORDS = cfamily.C_KEYWORDS | frozenset("""
    alignas alignof and and_eq asm bitand bitor catch char16_t char32_t compl concept const_cast
    constexpr decltype dynamic_cast explicit export final friend mutable noexcept not not_eq
    nullptr or or_eq override reinterpret_cast requires static_assert static_cast thread_local
    throw try typeid wchar_t xor xor_eq co_await co_return co_yield char8_t consteval constinit
    main argc argv std starc NULL errno assert
""".split())

_EXTENT_COUNT = {"nodes": "{g}.num_nodes", "nodes+1": "{g}.num_nodes + 1",
                 "edges": "{g}.num_edges", "one": "1"}

_PARAM_KINDS = {Scalar.INT: ("Int", "get_int"), Scalar.LONG: ("Long", "get_int"),
                Scalar.FLOAT: ("Float", "get_double"), Scalar.DOUBLE: ("Double", "get_double"),
                Scalar.BOOL: ("Bool", "get_bool"), Scalar.NODE: ("Node", "get_node"),
                Scalar.EDGE: ("Int", "get_int")}


def location(loc, fallback: str = "<input>") -> str:
    """``"prog.sp:12"`` for a source location (the file's base name), else the fallback."""
    if loc is None or loc.line <= 0:
        return fallback
    return f"{os.path.basename(loc.file) or fallback}:{loc.line}"


class HostExprDialect(cfamily.Dialect):
    """Host expressions in C++: the DSL's C types, ``std::min``/``std::max``, and the edge
    search of the runtime (a backend whose device helper is not callable on the host
    overrides ``find_edge``)."""

    name = "c++ host"
    scalar_types = {s: c_name(s) for s in Scalar}
    storage_types = scalar_types
    reserved = CXX_KEYWORDS

    def minmax(self, func: str, t: Scalar, left: str, right: str) -> str:
        return f"std::{func.lower()}({left}, {right})"

    def find_edge(self, offsets: str, targets: str, u: str, w: str) -> str:
        return f"starc_find_edge({offsets}.data(), {targets}.data(), {u}, {w})"


class HostDialect:
    """How one C++ backend spells the host's device operations. Every hook returns C++ text
    (statements as a list of lines without indentation, expressions as a string); ``where`` is
    the quoted DSL location (``"\\"sssp.sp:12\\""``) for error messages. The defaults raise."""

    #: backend name printed in the results header
    name = "c++"
    #: the cfamily dialect of host expressions
    expr_dialect: cfamily.Dialect = HostExprDialect()

    #: the printer using this dialect (set by ``attach``)
    host: "CppHostPrinter" = None

    def attach(self, printer: "CppHostPrinter") -> None:
        """Called once by the printer, before anything is printed: take names for the
        dialect's own variables from ``printer.names`` (``printer.names.fresh("queue")``)."""
        self.host = printer

    def missing(self, operation: str, loc=None):
        raise BackendError(f"the {self.name} backend cannot express {operation} on the host",
                           loc)

    # --- types -------------------------------------------------------------------------------
    def storage_type(self, elem: Scalar) -> str:
        """Element type of a device array and of its host staging vector."""
        return "unsigned char" if elem is Scalar.BOOL else c_name(elem)

    def array_declaration(self, var: str, elem: Scalar) -> str:
        return f"{self.storage_type(elem)}* {var} = nullptr;"

    # --- program phases ----------------------------------------------------------------------
    def options(self, cl: str) -> List[str]:
        """After the command line is parsed: read backend options (e.g. ``--block-size``)."""
        return []

    def setup(self, where: str) -> List[str]:
        """Before the timer: device selection, context/queue creation, timing events."""
        return []

    def teardown(self, where: str) -> List[str]:
        return []

    def timer_start(self, where: str) -> List[str]:
        self.missing("timing")

    def timer_stop(self, where: str) -> List[str]:
        self.missing("timing")

    def timer_seconds(self) -> str:
        self.missing("timing")

    # --- device memory -----------------------------------------------------------------------
    def allocate(self, var: str, elem: Scalar, count: str, where: str) -> List[str]:
        self.missing("allocating a device array")

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        self.missing("freeing a device array")

    def copy_to_device(self, var: str, elem: Scalar, host: str, count: str,
                       where: str) -> List[str]:
        self.missing("a host-to-device copy")

    def copy_to_host(self, host: str, var: str, elem: Scalar, count: str,
                     where: str) -> List[str]:
        self.missing("a device-to-host copy")

    def fill(self, var: str, elem: Scalar, value: str, count: str, where: str) -> List[str]:
        self.missing("filling a device array")

    def copy_device(self, dst: str, src: str, elem: Scalar, count: str,
                    where: str) -> List[str]:
        self.missing("a device-to-device copy")

    def swap(self, a: str, b: str, elem: Scalar, where: str) -> List[str]:
        return [f"std::swap({a}, {b});"]

    def write_element(self, var: str, elem: Scalar, index: str, value: str,
                      where: str) -> List[str]:
        self.missing("writing one device element")

    def read_element(self, var: str, elem: Scalar, index: str, where: str) -> str:
        self.missing("reading one device element")

    # --- kernels -----------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        self.missing("a kernel launch")

    def synchronize(self, where: str) -> List[str]:
        return []


class _HostContext:
    """What the cfamily printer asks of a context, answered for host code."""

    def __init__(self, printer: "CppHostPrinter") -> None:
        self.printer = printer
        self.names = printer.names
        self.by_value: Dict[int, object] = {}
        self.reduction_arrays: Dict[int, object] = {}
        self.kernel = types.SimpleNamespace(name="the host code")
        self.features: set = set()
        self.kernel_scalar_values: Dict[str, str] = {}

    def graph_array(self, name: str) -> str:
        return f"{self.printer.graph}.{name}"

    def num_nodes(self) -> str:
        return f"{self.printer.graph}.num_nodes"

    def num_edges(self) -> str:
        return f"{self.printer.graph}.num_edges"

    def prop(self, sym: ir.Symbol, loc=None) -> str:
        self.printer.dialect.missing(f"reading property '{sym.name}' without a device read", loc)

    def kernel_scalar(self, name: str, t: Scalar) -> str:
        if name not in self.kernel_scalar_values:
            self.printer.dialect.missing(f"the kernel scalar '{name}'")
        return self.kernel_scalar_values[name]


class _HostExprPrinter(cfamily.CPrinter):
    """The cfamily expression printer plus the two host-only expressions."""

    def __init__(self, printer: "CppHostPrinter") -> None:
        super().__init__(printer.dialect.expr_dialect, _HostContext(printer))
        self.host = printer

    def _expr_DeviceRead(self, e: P.DeviceRead):
        host = self.host
        text = host.dialect.read_element(host.array_var(e.array), e.array.elem,
                                         self.expr(e.index), host.where(e.loc))
        if e.array.elem is Scalar.BOOL and host.dialect.storage_type(Scalar.BOOL) != "bool":
            return f"{text} != 0", cfamily._PREC["!="]
        return text, cfamily._POSTFIX

    def _expr_WeightBound(self, e: ir.WeightBound):
        return self.host.weight_bound(e), cfamily._POSTFIX


class CppHostPrinter:
    """Prints one plan's host side as C++ (see the module docstring)."""

    def __init__(self, plan: P.Plan, dialect: HostDialect,
                 kernels: Dict[str, KernelCode]) -> None:
        self.plan = plan
        self.dialect = dialect
        self.kernels = kernels
        self.function = plan.function
        self.source = os.path.basename(plan.program.filename) or "<input>"
        self.names = NameTable(sorted(CXX_KEYWORDS))
        self._support: Dict[str, str] = {}
        self._includes = {"cstdio", "vector"}
        graph_params = [p for p in self.function.params if isinstance(p.type, GraphType)]
        self.graph = (self.names.bind(graph_params[0]) if graph_params
                      else self.names.fresh("graph"))
        for p in graph_params[1:]:
            raise BackendError("a function with more than one Graph parameter", p.loc)
        self.cl = self.names.fresh("cl")
        self._array_vars: Dict[str, str] = {}
        self._host_vectors: Dict[int, str] = {}
        for array in self._all_arrays():
            self._array_vars[array.name] = self.names.fresh("d_" + array.name)
        for array in self.plan.arrays:  # unused ones keep a name for messages
            self._array_vars.setdefault(array.name, "d_" + array.name)
        self._weight_params = [p for p in self.function.params
                               if isinstance(p.type, PropType) and p.type.kind == "edge"]
        for p in self._weight_params:
            self._host_vectors[p.uid] = self.names.fresh("h_" + p.name)
        self._results = [p for p in self.function.params
                         if isinstance(p.type, PropType) and p.type.kind == "node"]
        for p in self._results:
            self._host_vectors[p.uid] = self.names.fresh("h_" + p.name)
        self.exprs = _HostExprPrinter(self)
        self._read = self._read_scalars()
        self._return_var = ""
        dialect.attach(self)
        self._exit_actions: List[Tuple[str, List[str]]] = []  # (loop kind, lines before exit)

    # --- names and locations -----------------------------------------------------------------
    def where(self, loc) -> str:
        """The quoted DSL location of a construct, for error messages and launch checks."""
        return f'"{location(loc, location(self.function.loc, self.source))}"'

    def comment(self, loc) -> str:
        text = location(loc, "")
        return f"  // {text}" if text else ""

    def array_var(self, array: P.DeviceArray) -> str:
        if array.name not in self._array_vars:
            raise BackendError(f"the device array '{array.name}' is not in the plan")
        return self._array_vars[array.name]

    def count(self, array: P.DeviceArray) -> str:
        if array.extent not in _EXTENT_COUNT:
            self.dialect.missing(f"a device array of extent '{array.extent}'")
        return _EXTENT_COUNT[array.extent].format(g=self.graph)

    def scalar(self, sym: ir.Symbol) -> str:
        name = self.names.lookup(sym)
        if name is None:
            raise BackendError(f"the host scalar '{sym.name}' is used before its declaration",
                               sym.loc)
        return name

    def expr(self, e: ir.Expr) -> str:
        return self.exprs.expr(e)

    def _all_arrays(self) -> List[P.DeviceArray]:
        """The plan's arrays that something uses, plus graph arrays the printed kernels ask
        for (a CSR array no kernel reads is neither allocated nor copied)."""
        if hasattr(self, "_arrays"):
            return self._arrays
        used = set()
        for code in self.kernels.values():
            for arg in code.args:
                if arg.source[0] == "array":
                    used.add(arg.source[1].name)
                elif arg.source[0] == "graph":
                    used.add(arg.source[1])
        for stmt in _walk_host(self.plan.host):
            used.update(a.name for a in _arrays_of(stmt))
            used.update(n.array.name for n in _host_exprs(stmt)
                        if isinstance(n, P.DeviceRead))
        used.update(a.name for a in self.plan.arrays
                    if a.role == "result" and a.sym in self.function.params)
        arrays = [a for a in self.plan.arrays if a.name in used]
        known = {a.name for a in arrays}
        for name in sorted(used - known):
            if name not in _GRAPH_EXTENTS:
                raise BackendError(f"the device array '{name}' is not in the plan")
            arrays.append(P.DeviceArray(name, Scalar.INT, _GRAPH_EXTENTS[name], "graph",
                                        copy_in=True))
        self._arrays = arrays
        return arrays

    def _graph_array(self, name: str) -> P.DeviceArray:
        for array in self._all_arrays():
            if array.role == "graph" and array.name == name:
                return array
        raise BackendError(f"the graph array '{name}' is not in the plan")

    # --- the program -------------------------------------------------------------------------
    def includes(self) -> List[str]:
        """Standard headers the printed code needs (call after ``main``)."""
        return sorted(self._includes)

    def support(self) -> str:
        """Helper functions ``main`` uses, in a stable order (call after ``main``)."""
        return "\n".join(self._support[k] for k in sorted(self._support))

    def main(self) -> str:
        d, g, cl, fn = self.dialect, self.graph, self.cl, self.function
        where = self.where(fn.loc)
        body: List[str] = []
        specs = self._param_specs()
        body.append(f"starc::CommandLine {cl}(argc, argv, {{{', '.join(specs)}}}, "
                    f'"{fn.name}");')
        body += d.options(cl)
        body.append(f"starc::Graph {g} = starc::read_graph({cl}.graph_path, {cl}.undirected);")
        body += self._bind_params()
        result_vectors = []
        for p in self._results:
            array = self._result_array(p)
            elem = p.type.elem
            vector = self._host_vectors[p.uid]
            body.append(f"std::vector<{d.storage_type(elem)}> {vector}"
                        f"(static_cast<size_t>({g}.num_nodes));")
            result_vectors.append((p, array, vector))
        body += d.setup(where)
        body.append("")
        body.append("// Timed: from the graph in host memory to the results back in host memory.")
        body += d.timer_start(where)
        arrays = self._all_arrays()
        for array in arrays:
            body += self._allocate(array)
        algorithm = self._algorithm()
        body += algorithm
        for p, array, vector in result_vectors:
            if array is not None:
                body += d.copy_to_host(f"{vector}.data()", self.array_var(array), array.elem,
                                       self.count(array), where)
        body += d.synchronize(where)
        body += d.timer_stop(where)
        for array in arrays:
            body += d.free(self.array_var(array), array.elem, where)
        body += d.teardown(where)
        body.append("")
        results = self.names.fresh("results")
        body.append(f"if ({cl}.time) starc::report_time({d.timer_seconds()});")
        body.append(f'starc::Results {results}({cl}, "{fn.name}", "{d.name}");')
        for p, array, vector in result_vectors:
            body.append(f'{results}.prop("{p.name}", {vector}.data(), {g}.num_nodes);')
        if fn.return_type is not None:
            body.append(f"{results}.ret({self._return_var});")
        body.append(f"{results}.close();")
        program = os.path.splitext(self.source)[0] or "prog"
        lines = ["int main(int argc, char** argv) {",
                 f'{INDENT}return starc::guarded_main("{program}", [&] {{']
        lines += [(INDENT * 2 + line) if line else "" for line in body]
        lines += [f"{INDENT}}});", "}"]
        return "\n".join(lines)

    def _param_specs(self) -> List[str]:
        specs = []
        for p in self.function.params:
            if isinstance(p.type, Scalar):
                if p.type not in _PARAM_KINDS:
                    self.dialect.missing(f"a parameter of type '{p.type}'", p.loc)
                kind = _PARAM_KINDS[p.type][0]
            elif isinstance(p.type, SetType) and p.type.kind == "node":
                kind = "NodeSet"
            elif isinstance(p.type, (GraphType, PropType)):
                continue
            else:
                raise BackendError(f"the parameter '{p.name}' of type {p.type} is not supported "
                                   "by the generated program's command line", p.loc)
            specs.append(f'{{"{p.name}", starc::ParamKind::{kind}, true}}')
        return specs

    def _bind_params(self) -> List[str]:
        lines = []
        g, cl = self.graph, self.cl
        for p in self.function.params:
            if isinstance(p.type, Scalar):
                getter = _PARAM_KINDS[p.type][1]
                ctype = c_name(p.type)
                if getter == "get_node":
                    value = f'{cl}.get_node("{p.name}", {g})'
                else:
                    value = f'{cl}.{getter}("{p.name}")'
                    if ctype not in ("long long", "double", "bool"):
                        value = f"static_cast<{ctype}>({value})"
            elif isinstance(p.type, SetType):
                ctype, value = "std::vector<int>", f'{cl}.get_node_set("{p.name}", {g})'
            else:
                continue
            if self._is_read(p):
                lines.append(f"{ctype} {self.names.bind(p)} = {value};")
            else:
                lines.append(f"{value};  // checked, but the program does not use it")
        for p in self._weight_params:
            self._need_support("edge_weights")
            elem = p.type.elem
            lines.append(f"std::vector<{self.dialect.storage_type(elem)}> "
                         f"{self._host_vectors[p.uid]} = starc_edge_weights<"
                         f"{self.dialect.storage_type(elem)}>({g}, \"{p.name}\", "
                         f"\"{p.type}\");")
        return lines

    def _read_scalars(self) -> set:
        """Uids of the scalars the program reads somewhere. The others are never declared
        and their assignments are not printed (they could not change any result, and
        compilers rightly warn about variables that are set but never used)."""
        read = set()
        for stmt in _walk_host(self.plan.host):
            read.update(n.sym.uid for n in _host_exprs(stmt) if isinstance(n, ir.VarRef))
            kernels = []
            if isinstance(stmt, P.Launch):
                kernels = [stmt.kernel]
            elif isinstance(stmt, P.BFSLoop):
                kernels = [k for k in (stmt.forward, stmt.reverse) if k is not None]
            elif isinstance(stmt, P.ToDevice):
                read.add(stmt.sym.uid)
            elif isinstance(stmt, P.HostForSet):
                read.add(stmt.set.uid)
            elif isinstance(stmt, P.FixedPointLoop) and stmt.forced:
                read.add(stmt.flag_var.uid)
            for kernel in kernels:
                read.update(p.sym.uid for p in kernel.params if p.sym is not None)
                read.update(r.sym.uid for r in kernel.reductions)
                read.update(a.sym.uid for a in kernel.stores if a.sym is not None)
        return read

    def _is_read(self, sym: ir.Symbol) -> bool:
        return sym.uid in self._read

    def _result_array(self, p: ir.Symbol) -> Optional[P.DeviceArray]:
        for array in self.plan.arrays:
            if array.sym is not None and array.sym.uid == p.uid and array.role != "scalar":
                return array
        return None

    def _allocate(self, array: P.DeviceArray) -> List[str]:
        d = self.dialect
        var, count = self.array_var(array), self.count(array)
        where = self.where(array.sym.loc if array.sym is not None else self.function.loc)
        lines = [d.array_declaration(var, array.elem)]
        lines += d.allocate(var, array.elem, count, where)
        if array.copy_in:
            if array.role == "graph":
                host = f"{self.graph}.{array.name}.data()"
            elif array.role == "weight" and array.sym is not None \
                    and array.sym.uid in self._host_vectors:
                host = f"{self._host_vectors[array.sym.uid]}.data()"
            else:
                d.missing(f"copying the '{array.role}' array '{array.name}' in")
            lines += d.copy_to_device(var, array.elem, host, count, where)
        if array.role == "lock":  # every lock starts released
            lines += d.fill(var, array.elem, "0", count, where)
        return lines

    def _algorithm(self) -> List[str]:
        """The host tree; inside a lambda when it returns (early returns leave the lambda)."""
        fn = self.function
        returns = any(isinstance(s, P.HostReturn) for s in _walk_host(self.plan.host))
        ret_type = c_name(fn.return_type) if fn.return_type is not None else None
        if not returns and ret_type is None:
            return self.block(self.plan.host, 0, braces=False)
        algorithm = self.names.fresh("algorithm")
        head = f"auto {algorithm} = [&]()" + (f" -> {ret_type}" if ret_type else "") + " {"
        body = self.block(self.plan.host, 1, braces=False)
        stmts = self.plan.host.stmts
        if ret_type is not None and not (stmts and isinstance(stmts[-1], P.HostReturn)):
            body.append(INDENT + f"return {ret_type}{{}};")
        lines = [head] + body + ["};"]
        if ret_type is not None:
            self._return_var = self.names.fresh("returned")
            lines.append(f"{ret_type} {self._return_var} = {algorithm}();")
        else:
            lines.append(f"{algorithm}();")
        return lines

    # --- support code ------------------------------------------------------------------------
    def _need_support(self, key: str) -> None:
        if key == "edge_weights":
            self._includes.update({"limits", "string", "type_traits"})
            self._support[key] = _EDGE_WEIGHTS
        elif key == "weight_bounds":
            self._includes.update({"algorithm"})
            self._support[key] = _WEIGHT_BOUNDS

    def weight_bound(self, e: ir.WeightBound) -> str:
        vector = self._host_vectors.get(e.prop.uid)
        if vector is None:
            self.dialect.missing(f"{e.func} of '{e.prop.name}' (not a propEdge parameter)", e.loc)
        for node in _walk_host(self.plan.host):
            if self._writes_weight(node, e.prop):
                self.dialect.missing(f"{e.func} of '{e.prop.name}' after the program changes "
                                     "it", e.loc)
        self._need_support("weight_bounds")
        empty = self.dialect.expr_dialect.inf(e.type, e.func == "maxWt")
        helper = "starc_min_weight" if e.func == "minWt" else "starc_max_weight"
        return f"{helper}({vector}, static_cast<{c_name(e.type)}>({empty}))"

    def _writes_weight(self, node, prop: ir.Symbol) -> bool:
        def is_weight(array):
            return array.sym is not None and array.sym.uid == prop.uid
        if isinstance(node, (P.Fill, P.WriteElement)):
            return is_weight(node.array)
        if isinstance(node, P.CopyArray):
            return is_weight(node.dst)
        if isinstance(node, P.SwapArrays):
            return is_weight(node.a) or is_weight(node.b)
        if isinstance(node, P.Launch):
            return any(p.written and p.array is not None and is_weight(p.array)
                       for p in node.kernel.params)
        return False

    # --- host statements ---------------------------------------------------------------------
    def block(self, block: P.HostBlock, depth: int, braces: bool = True) -> List[str]:
        lines: List[str] = []
        inner = depth + 1 if braces else depth
        for stmt in block.stmts:
            lines += self.stmt(stmt, inner)
        if braces:
            return [INDENT * depth + "{"] + lines + [INDENT * depth + "}"]
        return lines

    def _body(self, block: P.HostBlock, depth: int) -> List[str]:
        lines: List[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt, depth)
        return lines

    def stmt(self, s: P.HostStmt, depth: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            self.dialect.missing(f"the host operation {type(s).__name__}", s.loc)
        return method(s, depth)

    def _indent(self, lines: Iterable[str], depth: int) -> List[str]:
        return [INDENT * depth + line for line in lines]

    def _stmt_HostBlock(self, s: P.HostBlock, depth: int):
        return self.block(s, depth)

    def _stmt_HostDeclare(self, s: P.HostDeclare, depth: int):
        if not isinstance(s.sym.type, Scalar):
            self.dialect.missing(f"declaring '{s.sym.name}' of type {s.sym.type} on the host",
                                 s.loc)
        if not self._is_read(s.sym):
            return []
        init = "{}" if s.init is None else f" = {self.expr(s.init)}"
        name = self.names.bind(s.sym)
        return [INDENT * depth + f"{c_name(s.sym.type)} {name}{init};{self.comment(s.loc)}"]

    def _stmt_HostAssign(self, s: P.HostAssign, depth: int):
        if not self._is_read(s.sym):
            return []
        return [INDENT * depth + f"{self.scalar(s.sym)} = {self.expr(s.value)};"]

    def _stmt_HostReduce(self, s: P.HostReduce, depth: int):
        if not self._is_read(s.sym):
            return []
        name = self.scalar(s.sym)
        value = self.expr(s.value)
        if s.sym.type is Scalar.BOOL and s.op in "&|":
            op = "&&" if s.op == "&" else "||"
            return [INDENT * depth + f"{name} = {name} {op} ({value});"]
        return [INDENT * depth + f"{name} {s.op}= {value};"]

    def _stmt_HostIf(self, s: P.HostIf, depth: int):
        pad = INDENT * depth
        lines = [pad + f"if ({self.expr(s.cond)}) {{{self.comment(s.loc)}"]
        lines += self._body(s.then, depth + 1)
        orelse = s.orelse
        while orelse is not None:
            if len(orelse.stmts) == 1 and isinstance(orelse.stmts[0], P.HostIf):
                nested = orelse.stmts[0]
                lines.append(pad + f"}} else if ({self.expr(nested.cond)}) {{")
                lines += self._body(nested.then, depth + 1)
                orelse = nested.orelse
            else:
                lines.append(pad + "} else {")
                lines += self._body(orelse, depth + 1)
                orelse = None
        return lines + [pad + "}"]

    def _loop_body(self, kind: str, block: P.HostBlock, depth: int,
                   exit_lines: Sequence[str] = ()) -> List[str]:
        self._exit_actions.append((kind, list(exit_lines)))
        try:
            return self._body(block, depth)
        finally:
            self._exit_actions.pop()

    def _stmt_HostWhile(self, s: P.HostWhile, depth: int):
        pad = INDENT * depth
        return ([pad + f"while ({self.expr(s.cond)}) {{{self.comment(s.loc)}"]
                + self._loop_body("loop", s.body, depth + 1) + [pad + "}"])

    def _stmt_HostDoWhile(self, s: P.HostDoWhile, depth: int):
        pad = INDENT * depth
        return ([pad + f"do {{{self.comment(s.loc)}"]
                + self._loop_body("loop", s.body, depth + 1)
                + [pad + f"}} while ({self.expr(s.cond)});"])

    def _stmt_HostForSet(self, s: P.HostForSet, depth: int):
        pad = INDENT * depth
        var = self.names.bind(s.var)
        return ([pad + f"for (int {var} : {self.scalar(s.set)}) {{{self.comment(s.loc)}"]
                + self._loop_body("loop", s.body, depth + 1) + [pad + "}"])

    def _exit(self, statement: str, depth: int, all_levels: bool) -> List[str]:
        """``break``/``continue`` (innermost loop) or ``return`` (every enclosing loop) after
        the actions the loops it leaves owe (a fixedPoint's pending buffer swap)."""
        actions: List[str] = []
        levels = reversed(self._exit_actions) if all_levels else self._exit_actions[-1:]
        for _, lines in levels:
            actions += lines
        return self._indent(actions + [statement], depth)

    def _stmt_HostBreak(self, s, depth):
        return self._exit("break;", depth, all_levels=False)

    def _stmt_HostContinue(self, s, depth):
        return self._exit("continue;", depth, all_levels=False)

    def _stmt_HostReturn(self, s: P.HostReturn, depth: int):
        value = "" if s.value is None else " " + self.expr(s.value)
        return self._exit(f"return{value};", depth, all_levels=True)

    # --- device operations -------------------------------------------------------------------
    def _stmt_Launch(self, s: P.Launch, depth: int):
        bindings = {name: self.expr(value) for name, value in s.scalar_args}
        return self._indent(self.launch(s.kernel, bindings, s.loc), depth)

    def launch(self, kernel: P.Kernel, kernel_scalars: Dict[str, str], loc) -> List[str]:
        """Host writes of the scalars it reduces or stores, the launch, the reads back."""
        d = self.dialect
        code = self.kernels.get(kernel.name)
        if code is None:
            raise BackendError(f"the kernel '{kernel.name}' was not printed", kernel.loc)
        where = self.where(loc if loc is not None and loc.line > 0 else kernel.loc)
        args = []
        for arg in code.args:
            kind, what = arg.source
            if kind == "size":
                args.append(f"{self.graph}.num_nodes" if what == "nodes"
                            else f"{self.graph}.num_edges")
            elif kind == "array":
                args.append(self.array_var(what))
            elif kind == "graph":
                args.append(self.array_var(self._graph_array(what)))
            elif kind == "host":
                args.append(self.scalar(what))
            elif kind == "kernel_scalar":
                if what not in kernel_scalars:
                    raise BackendError(f"no value for '{what}' in the launch of {kernel.name}",
                                       kernel.loc)
                args.append(kernel_scalars[what])
            else:
                d.missing(f"a kernel argument of kind '{kind}'")
        mirrored: List[Tuple[P.DeviceArray, ir.Symbol]] = []
        for array, sym in [(r.array, r.sym) for r in kernel.reductions] + \
                [(a, a.sym) for a in kernel.stores]:
            if sym is not None and all(a.name != array.name for a, _ in mirrored):
                mirrored.append((array, sym))
        lines: List[str] = []
        for array, sym in mirrored:
            lines += d.write_element(self.array_var(array), array.elem, "0", self.scalar(sym),
                                     where)
        lines += d.launch(code, args, where)
        for array, sym in mirrored:
            if self._is_read(sym):
                lines.append(f"{self.scalar(sym)} = "
                             f"{self._read_element(array, '0', where)};")
        return lines

    def _read_element(self, array: P.DeviceArray, index: str, where: str) -> str:
        text = self.dialect.read_element(self.array_var(array), array.elem, index, where)
        if array.elem is Scalar.BOOL and self.dialect.storage_type(Scalar.BOOL) != "bool":
            return f"{text} != 0"
        return text

    def _stmt_Fill(self, s: P.Fill, depth: int):
        a = s.array
        value = self.expr(s.value)
        return self._indent(self.dialect.fill(self.array_var(a), a.elem, value, self.count(a),
                                              self.where(s.loc)), depth)

    def _stmt_CopyArray(self, s: P.CopyArray, depth: int):
        if s.dst.extent != s.src.extent:
            self.dialect.missing(f"copying '{s.src.name}' into '{s.dst.name}' of another size",
                                 s.loc)
        return self._indent(self.dialect.copy_device(
            self.array_var(s.dst), self.array_var(s.src), s.dst.elem, self.count(s.dst),
            self.where(s.loc)), depth)

    def _stmt_SwapArrays(self, s: P.SwapArrays, depth: int):
        return self._indent(self.dialect.swap(self.array_var(s.a), self.array_var(s.b),
                                              s.a.elem, self.where(s.loc)), depth)

    def _stmt_WriteElement(self, s: P.WriteElement, depth: int):
        a = s.array
        return self._indent(self.dialect.write_element(
            self.array_var(a), a.elem, self.expr(s.index), self.expr(s.value),
            self.where(s.loc)), depth)

    def _stmt_ToDevice(self, s: P.ToDevice, depth: int):
        a = s.array
        return self._indent(self.dialect.write_element(
            self.array_var(a), a.elem, "0", self.scalar(s.sym), self.where(s.loc)), depth)

    def _stmt_FromDevice(self, s: P.FromDevice, depth: int):
        if not self._is_read(s.sym):
            return []
        return [INDENT * depth + f"{self.scalar(s.sym)} = "
                f"{self._read_element(s.array, '0', self.where(s.loc))};"]

    def _stmt_FixedPointLoop(self, s: P.FixedPointLoop, depth: int):
        """As the reference runs it: each iteration starts with the flag variable True and
        an all-false next buffer; it continues while any flag was set (or the body set the
        variable False); the new flags replace the old even when the body leaves early."""
        d, pad = self.dialect, INDENT * depth
        where = self.where(s.loc)
        used = self._is_read(s.flag_var)
        fin = self.scalar(s.flag_var) if used else None
        current, nxt = self.array_var(s.current), self.array_var(s.next)
        flag = self.array_var(s.flag)
        reads_fin = s.forced or any(
            isinstance(n, ir.VarRef) and n.sym == s.flag_var
            for stmt in _walk_host(s.body) for n in _host_exprs(stmt))
        swap = d.swap(current, nxt, s.current.elem, where)
        body = [f"{fin} = true;"] if reads_fin else []
        body += d.write_element(flag, s.flag.elem, "0", "0", where)
        body += d.fill(nxt, s.next.elem, "false", self.count(s.next), where)
        lines = [pad + f"do {{{self.comment(s.loc)}"] + self._indent(body, depth + 1)
        lines += self._loop_body("fixedPoint", s.body, depth + 1, swap)
        lines += self._indent(swap, depth + 1)
        cond = f"{self._read_element(s.flag, '0', where)}"
        cond = f"{cond} != 0" if not cond.endswith("!= 0") else cond
        if s.forced:
            cond += f" || !{fin}"
        lines.append(pad + f"}} while ({cond});")
        if used:
            lines.append(pad + f"{fin} = true;")
        return lines

    def _stmt_BFSLoop(self, s: P.BFSLoop, depth: int):
        d = self.dialect
        where = self.where(s.loc)
        level, flag = self.array_var(s.level), self.array_var(s.flag)
        depth_var = self.names.fresh(s.depth_name)
        lines = [f"{{{self.comment(s.loc)}"]
        inner = d.fill(level, s.level.elem, "-1", self.count(s.level), where)
        inner += d.write_element(level, s.level.elem, self.expr(s.root), "0", where)
        inner.append(f"int {depth_var} = 0;")
        inner.append("do {")
        step = d.write_element(flag, s.flag.elem, "0", "0", where)
        step += self.launch(s.forward, {s.depth_name: depth_var}, s.loc)
        step.append(f"++{depth_var};")
        inner += [INDENT + line for line in step]
        inner.append(f"}} while ({self._read_element(s.flag, '0', where)} != 0);")
        if s.reverse is not None:
            back = self.names.fresh(s.depth_name + "_back")
            inner.append(f"for (int {back} = {depth_var} - 1; {back} >= 0; --{back}) {{")
            inner += [INDENT + line
                      for line in self.launch(s.reverse, {s.depth_name: back}, s.loc)]
            inner.append("}")
        lines += [INDENT + line for line in inner]
        lines.append("}")
        return self._indent(lines, depth)


_GRAPH_EXTENTS = {"offsets": "nodes+1", "targets": "edges", "sources": "edges",
                  "rev_offsets": "nodes+1", "rev_sources": "edges", "rev_edge_ids": "edges"}


def _walk_host(node) -> Iterable[P.HostStmt]:
    """Every host statement below ``node`` (itself included)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for field in ("stmts",):
            if hasattr(current, field):
                stack.extend(reversed(getattr(current, field)))
        for field in ("then", "orelse", "body"):
            child = getattr(current, field, None)
            if isinstance(child, P.HostStmt):
                stack.append(child)


def _arrays_of(stmt: P.HostStmt) -> List[P.DeviceArray]:
    """The device arrays one host statement operates on (launched kernels included)."""
    fields = ("array", "dst", "src", "a", "b", "current", "next", "flag", "level")
    arrays = [getattr(stmt, f, None) for f in fields]
    kernels = []
    if isinstance(stmt, P.Launch):
        kernels = [stmt.kernel]
    elif isinstance(stmt, P.BFSLoop):
        kernels = [k for k in (stmt.forward, stmt.reverse) if k is not None]
    for kernel in kernels:
        arrays += [r.array for r in kernel.reductions] + list(kernel.stores)
    return [a for a in arrays if isinstance(a, P.DeviceArray)]


def _host_exprs(stmt: P.HostStmt) -> Iterable[ir.Node]:
    """Every IR node in the expressions of one host statement."""
    for field in ("init", "value", "cond", "index", "root"):
        value = getattr(stmt, field, None)
        if isinstance(value, ir.Node):
            yield from ir.walk(value)
    if isinstance(stmt, P.Launch):
        for _, value in stmt.scalar_args:
            yield from ir.walk(value)


_EDGE_WEIGHTS = """\
/// The file's edge weights as the elements of propEdge parameter `name` (of `type`).
template <typename T>
static std::vector<T> starc_edge_weights(const starc::Graph& g, const char* name,
                                         const char* type) {
  if (!g.has_weights)
    throw starc::InputError(g.path + ": the program reads edge weights (" + type + " " + name +
                            ") but the file has none");
  std::vector<T> weights(g.weights.size());
  for (size_t e = 0; e < weights.size(); ++e) {
    double w = g.weights[e];
    if constexpr (std::is_integral<T>::value && !std::is_same<T, unsigned char>::value) {
      if (!g.weights_integral)
        throw starc::InputError(g.path + ": " + type + " " + name +
                                " needs integer weights but the file has non-integer ones");
      if (w < static_cast<double>(std::numeric_limits<T>::lowest()) ||
          w > static_cast<double>(std::numeric_limits<T>::max()))
        throw starc::InputError(g.path + ": edge weight " + std::to_string(w) +
                                " does not fit in " + type);
    }
    weights[e] = static_cast<T>(w);
  }
  return weights;
}
"""

_WEIGHT_BOUNDS = """\
/// minWt/maxWt: the smallest/largest edge weight (`empty` when there are no edges).
template <typename T>
static T starc_min_weight(const std::vector<T>& w, T empty) {
  return w.empty() ? empty : *std::min_element(w.begin(), w.end());
}

template <typename T>
static T starc_max_weight(const std::vector<T>& w, T empty) {
  return w.empty() ? empty : *std::max_element(w.begin(), w.end());
}
"""
