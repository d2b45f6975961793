"""The host-tree half of the shared C++ host printer: host statements, device operations,
kernel launches, ``FixedPointLoop`` and ``BFSLoop``.

``HostStatementPrinter`` holds what every part of the host needs (names of the graph, of the
device arrays and host vectors, the scalars the program reads) and prints a plan's host tree
as C++ lines; every device operation goes through the backend's ``HostDialect``.
``cpp_host.CppHostPrinter`` adds the program around it (``main``).
"""

from __future__ import annotations

import json
import os
from typing import Dict, Iterable, List, Sequence, Tuple

from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.backends.common.cfamily import INDENT, KernelCode, NameTable
from starc.backends.common.host_dialect import CXX_KEYWORDS, HostDialect, location
from starc.backends.common.host_expressions import HostExprPrinter
from starc.backends.common.host_tree import (GRAPH_EXTENTS, arrays_of, host_exprs,
                                             kernels_launched_by, walk_host)
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar, c_name

__all__ = ["HostStatementPrinter"]

_EXTENT_COUNT = {"nodes": "{g}.num_nodes", "nodes+1": "{g}.num_nodes + 1",
                 "edges": "{g}.num_edges", "one": "1"}


class HostStatementPrinter:
    """Prints one plan's host tree as C++ (see the module docstring)."""

    def __init__(self, plan: P.Plan, dialect: HostDialect,
                 kernels: Dict[str, KernelCode]) -> None:
        self.plan = plan
        self.dialect = dialect
        self.kernels = kernels
        self.function = plan.function
        self.source = os.path.basename(plan.program.filename) or "<input>"
        self.names = NameTable(sorted(CXX_KEYWORDS))
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
        self.exprs = HostExprPrinter(self)
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
        return self.extent_count(array.extent)

    def extent_count(self, extent: str) -> str:
        if extent not in _EXTENT_COUNT:
            self.dialect.missing(f"a device array of extent '{extent}'")
        return _EXTENT_COUNT[extent].format(g=self.graph)

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
        for stmt in walk_host(self.plan.host):
            used.update(a.name for a in arrays_of(stmt))
            used.update(n.array.name for n in host_exprs(stmt)
                        if isinstance(n, P.DeviceRead))
        used.update(a.name for a in self.plan.arrays
                    if a.role == "result" and a.sym in self.function.params)
        arrays = [a for a in self.plan.arrays if a.name in used]
        known = {a.name for a in arrays}
        for name in sorted(used - known):
            if name not in GRAPH_EXTENTS:
                raise BackendError(f"the device array '{name}' is not in the plan")
            arrays.append(P.DeviceArray(name, Scalar.INT, GRAPH_EXTENTS[name], "graph",
                                        copy_in=True))
        self._arrays = arrays
        return arrays

    def _graph_array(self, name: str) -> P.DeviceArray:
        for array in self._all_arrays():
            if array.role == "graph" and array.name == name:
                return array
        raise BackendError(f"the graph array '{name}' is not in the plan")

    def _read_scalars(self) -> set:
        """Uids of the scalars the program reads somewhere. The others are never declared
        and their assignments are not printed (they could not change any result, and
        compilers rightly warn about variables that are set but never used)."""
        read = set()
        for stmt in walk_host(self.plan.host):
            read.update(n.sym.uid for n in host_exprs(stmt) if isinstance(n, ir.VarRef))
            if isinstance(stmt, P.ToDevice):
                read.add(stmt.sym.uid)
            elif isinstance(stmt, P.HostForSet):
                read.add(stmt.set.uid)
            elif isinstance(stmt, P.FixedPointLoop) and stmt.forced:
                read.add(stmt.flag_var.uid)
            for kernel in kernels_launched_by(stmt):
                read.update(p.sym.uid for p in kernel.params if p.sym is not None)
                read.update(r.sym.uid for r in kernel.reductions)
                read.update(a.sym.uid for a in kernel.stores if a.sym is not None)
        return read

    def _is_read(self, sym: ir.Symbol) -> bool:
        return sym.uid in self._read

    # --- minWt / maxWt -----------------------------------------------------------------------
    def weight_bound(self, e: ir.WeightBound) -> str:
        vector = self._host_vectors.get(e.prop.uid)
        if vector is None:
            self.dialect.missing(f"{e.func} of '{e.prop.name}' (not a propEdge parameter)", e.loc)
        for node in walk_host(self.plan.host):
            if self._writes_weight(node, e.prop):
                self.dialect.missing(f"{e.func} of '{e.prop.name}' after the program changes "
                                     "it", e.loc)
        empty = self.dialect.expr_dialect.inf(e.type, e.func == "maxWt")
        helper = "starc::min_weight" if e.func == "minWt" else "starc::max_weight"
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
                + self._loop_check(s, depth + 1)
                + self._loop_body("loop", s.body, depth + 1) + [pad + "}"])

    def _stmt_HostDoWhile(self, s: P.HostDoWhile, depth: int):
        pad = INDENT * depth
        return ([pad + f"do {{{self.comment(s.loc)}"]
                + self._loop_check(s, depth + 1)
                + self._loop_body("loop", s.body, depth + 1)
                + [pad + f"}} while ({self.expr(s.cond)});"])

    def _stmt_HostForSet(self, s: P.HostForSet, depth: int):
        pad = INDENT * depth
        var = self.names.bind(s.var)
        return ([pad + f"for (int {var} : {self.scalar(s.set)}) {{{self.comment(s.loc)}"]
                + self._loop_check(s, depth + 1)
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

    # --- the run-time error word (starc.analysis.checks) -------------------------------------
    def sites_table(self) -> List[str]:
        """The static table of check sites ``error_check`` reports from (none: no lines)."""
        if self.plan.error is None:
            return []
        self._sites_var = self.names.fresh("check_sites")
        rows = [f'{{"{c.kind}", {json.dumps(str(c.loc))}, {json.dumps(c.name)}, '
                f'{str(c.extent == "edges").lower()}}}' for c in self.plan.error.sites]
        return [f"static const starc::CheckSite {self._sites_var}[] = {{"] + \
            [INDENT + row + "," for row in rows] + ["};"]

    def error_check(self, where: str) -> List[str]:
        """Read the error word; on a failed check throw ``starc::CheckError`` (the reference's
        message, exit status 1). Only the site word is read unless it is set."""
        if self.plan.error is None:
            return []
        site = self.names.fresh("failed_site")
        g = self.graph
        return [f"if (int {site} = {self._read_element(self.plan.error.site, '0', where)}) "
                f"starc::raise_check({site}, "
                f"{self._read_element(self.plan.error.value, '0', where)}, {g}.num_nodes, "
                f"{g}.num_edges, {self._sites_var});"]

    def _checks_in(self, block) -> bool:
        return any(k.checks for stmt in walk_host(block) for k in kernels_launched_by(stmt))

    def _loop_check(self, s, depth: int) -> List[str]:
        """A host loop whose body launches checked kernels reads the error word at the top
        of every iteration (also after a ``continue``), so a failure cannot keep it going."""
        if not self._checks_in(s.body):
            return []
        return self._indent(self.error_check(self.where(s.loc)), depth)

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
            for stmt in walk_host(s.body) for n in host_exprs(stmt))
        swap = d.swap(current, nxt, s.current.elem, where)
        body = [f"{fin} = true;"] if reads_fin else []
        body += d.write_element(flag, s.flag.elem, "0", "0", where)
        body += d.fill(nxt, s.next.elem, "false", self.count(s.next), where)
        lines = [pad + f"do {{{self.comment(s.loc)}"] + self._indent(body, depth + 1)
        lines += self._loop_body("fixedPoint", s.body, depth + 1, swap)
        lines += self._indent(swap, depth + 1)
        if self._checks_in(s.body):   # a failed check must not leave the loop spinning
            lines += self._indent(self.error_check(where), depth + 1)
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
        if s.forward.checks:
            step += self.error_check(where)
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
