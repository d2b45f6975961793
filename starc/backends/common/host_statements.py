"""The host-tree half of the shared C++ host printer: host statements, device operations and
kernel launches, printed as the plan says (the analysis passes made every decision).

``HostStatementPrinter`` holds what every part of the host needs (names of the graph, of the
device arrays and host vectors, the scalars the program reads) and prints a plan's host tree
as C++ lines; every device operation goes through the backend's ``HostDialect``.
``cpp_host.CppHostPrinter`` adds the program around it (``main``).
"""

from __future__ import annotations

import dataclasses

import json
import math
import os
from typing import Dict, Iterable, List, Tuple

from starc.analysis import plan as P
from starc.analysis.frontier import FRONTIER_COUNT
from starc.analysis.host_tree import walk_host
from starc.backends.base import BackendError
from starc.backends.common.cfamily import INDENT, KernelCode, NameTable
from starc.backends.common.host_dialect import (CXX_KEYWORDS, Count, HostDialect, HostValue,
                                                location)
from starc.backends.common.host_expressions import HostExprPrinter
from starc.backends.common.host_updates import UpdateStatements
from starc.backends.common.sourcemap import mark
from starc.diagnostics import tracks_construct
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar, c_name

__all__ = ["HostStatementPrinter"]

#: extent -> (count as text, as a factor of ``*``, whether an empty graph makes it 0)
_EXTENT_COUNT = {"nodes": ("{g}.num_nodes", "{g}.num_nodes", True),
                 "nodes+1": ("{g}.num_nodes + 1", "({g}.num_nodes + 1)", False),
                 "levels": ("{g}.num_nodes + 1", "({g}.num_nodes + 1)", False),
                 "edges": ("{g}.num_edges", "{g}.num_edges", True),
                 "one": ("1", "1", False), "two": ("2", "2", False),
                 "rounds": (str(P.ROUND_SLOTS),) * 2 + (False,),
                 "window": (str(P.WINDOW_SLOTS),) * 2 + (False,)}


class HostStatementPrinter(UpdateStatements):
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
        self._edge_capacity = ""     # named by a graph update's printing (``edge_capacity``)
        self._kept_staging = ""      # likewise (``kept_staging``)
        # the graph's rows with slack (``Specialization.slack_rows``): their host variable
        target = plan.target
        self.slack_rows = (self.names.fresh(f"{self.graph}_rows")
                           if target is not None and target.slack_rows else "")
        for array in self.plan.arrays:
            self._array_vars[array.name] = self.names.fresh("d_" + array.name)
        # the blocks of one-value arrays read back with one copy: member name -> (pack, slot);
        # pack name -> its device block, host staging and slot size variables
        self._packs: Dict[str, Tuple[P.ScalarPack, int]] = {}
        self._pack_vars: Dict[str, Tuple[str, str, str]] = {}
        for pack in target.scalar_packs if target is not None else ():
            self._pack_vars[pack.name] = (self.names.fresh("d_" + pack.name),
                                          self.names.fresh("h_" + pack.name),
                                          self.names.fresh(pack.name + "_slot"))
            for slot, array in enumerate(pack.members):
                self._packs[array.name] = (pack, slot)
        self._weight_params = [p for p in self.function.params
                               if isinstance(p.type, PropType) and p.type.kind == "edge"]
        for p in self._weight_params:
            self._host_vectors[p.uid] = self.names.fresh("h_" + p.name)
        self._results = [p for p in self.function.params
                         if isinstance(p.type, PropType) and p.type.kind == "node"]
        for p in self._results:
            self._host_vectors[p.uid] = self.names.fresh("h_" + p.name)
        self.exprs = HostExprPrinter(self)
        self._return_var = ""
        self._degree_mode = ""
        #: the C++ condition that the run renumbered the graph (``_stmt_OrderByDegree``)
        self._renumbered = ""
        dialect.attach(self)

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

    def count(self, array: P.DeviceArray) -> Count:
        return self.extent_count(array.extent)

    def extent_count(self, extent: str) -> Count:
        if extent == "updates":
            return self.update_count()
        if extent not in _EXTENT_COUNT:
            self.dialect.missing(f"a device array of extent '{extent}'")
        if extent == "edges" and self.slack_rows:   # the slots, free ones included
            return Count(f"{self.slack_rows}.capacity", f"{self.slack_rows}.capacity", True)
        text, factor, may_be_zero = _EXTENT_COUNT[extent]
        return Count(text.format(g=self.graph), factor.format(g=self.graph), may_be_zero)

    def value(self, e: ir.Expr) -> HostValue:
        """``e`` printed, knowing whether its bytes are all zero (see ``HostValue``)."""
        return HostValue(self.expr(e), _zero_bytes(e))

    def scalar(self, sym: ir.Symbol) -> str:
        name = self.names.lookup(sym)
        if name is None:
            raise BackendError(f"the host scalar '{sym.name}' is used before its declaration",
                               sym.loc)
        return name

    def expr(self, e: ir.Expr) -> str:
        return self.exprs.expr(e)

    def _graph_array(self, name: str) -> P.DeviceArray:
        for array in self.plan.arrays:
            if array.role == "graph" and array.name == name:
                return array
        raise BackendError(f"the graph array '{name}' is not in the plan")

    def _is_read(self, sym: ir.Symbol) -> bool:
        return sym.uid in self.plan.read_scalars

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
        # rows with slack: the free slots' weights are no edge's
        rows = (f"{self.graph}.offsets, {self.slack_rows}.ends, " if self.slack_rows else "")
        return self.dialect.weight_bound(f"{helper}({vector}, {rows}static_cast<"
                                         f"{c_name(e.type)}>({empty}))", e.func == "maxWt")

    def window_delta(self, e: P.WindowDelta) -> str:
        """A priority window's width from the host's copy of the weights (a scale estimate,
        so a copy the program has since changed on the device serves too)."""
        vector = self._host_vectors.get(e.weight.uid)
        if vector is None:
            self.dialect.missing(f"a priority window over '{e.weight.name}' (not a propEdge "
                                 "parameter)", e.loc)
        return (f"starc::window_delta({vector}, {self.graph}.num_edges, {self.graph}.num_nodes, "
                f"{e.scale})")

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
            return [INDENT * depth + "{" + self.comment(block.loc)] + lines + [INDENT * depth + "}"]
        return lines

    def _body(self, block: P.HostBlock, depth: int) -> List[str]:
        lines: List[str] = []
        for stmt in block.stmts:
            lines += self.stmt(stmt, depth)
        return lines

    @tracks_construct
    def stmt(self, s: P.HostStmt, depth: int) -> List[str]:
        method = getattr(self, "_stmt_" + type(s).__name__, None)
        if method is None:
            self.dialect.missing(f"the host operation {type(s).__name__}", s.loc)
        return mark(method(s, depth), s)

    def _indent(self, lines: Iterable[str], depth: int) -> List[str]:
        return [INDENT * depth + line for line in lines]

    def on_lockstep_device_only(self, lines: List[str]) -> List[str]:
        """``lines`` run only on a device whose kernels' variants run (``lockstep_only``)."""
        return [f"if ({self.dialect.on_lockstep_device()}) {{"] + self._indent(lines, 1) + ["}"]

    def _stmt_HostBlock(self, s: P.HostBlock, depth: int):
        return self.block(s, depth)

    def _stmt_HostDeclare(self, s: P.HostDeclare, depth: int):
        if not isinstance(s.sym.type, Scalar):
            self.dialect.missing(f"declaring '{s.sym.name}' of type {s.sym.type} on the host",
                                 s.loc)
        init = "{}" if s.init is None else f" = {self.expr(s.init)}"
        name = self.names.bind(s.sym)
        return [INDENT * depth + f"{c_name(s.sym.type)} {name}{init};{self.comment(s.loc)}"]

    def _stmt_HostAssign(self, s: P.HostAssign, depth: int):
        return [INDENT * depth + f"{self.scalar(s.sym)} = {self.expr(s.value)};"]

    def _stmt_HostReduce(self, s: P.HostReduce, depth: int):
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

    def _stmt_HostWhile(self, s: P.HostWhile, depth: int):
        pad = INDENT * depth
        return ([pad + f"while ({self.expr(s.cond)}) {{{self.comment(s.loc)}"]
                + self._body(s.body, depth + 1) + [pad + "}"])

    def _stmt_HostDoWhile(self, s: P.HostDoWhile, depth: int):
        pad = INDENT * depth
        return ([pad + f"do {{{self.comment(s.loc)}"] + self._body(s.body, depth + 1)
                + [pad + f"}} while ({self.expr(s.cond)});"])

    def _stmt_HostForSet(self, s: P.HostForSet, depth: int):
        pad = INDENT * depth
        var = self.names.bind(s.var)
        return ([pad + f"for (int {var} : {self.scalar(s.set)}) {{{self.comment(s.loc)}"]
                + self._body(s.body, depth + 1) + [pad + "}"])

    def _stmt_HostForRange(self, s: P.HostForRange, depth: int):
        pad = INDENT * depth
        var = self.names.bind(s.var)
        test, step = (">=", f"--{var}") if s.step == -1 else \
            ("<=", f"++{var}") if s.step == 1 else \
            (">=" if s.step < 0 else "<=", f"{var} += {s.step}")
        return ([pad + f"for (int {var} = {self.expr(s.first)}; {var} {test} "
                       f"{self.expr(s.last)}; {step}) {{{self.comment(s.loc)}"]
                + self._body(s.body, depth + 1) + [pad + "}"])

    def _stmt_HostBreak(self, s, depth):
        return [INDENT * depth + "break;"]

    def _stmt_HostContinue(self, s, depth):
        return [INDENT * depth + "continue;"]

    def _stmt_HostReturn(self, s: P.HostReturn, depth: int):
        value = "" if s.value is None else " " + self.expr(s.value)
        return [INDENT * depth + f"return{value};"]

    # --- device operations -------------------------------------------------------------------
    def _stmt_Launch(self, s: P.Launch, depth: int):
        bindings = {name: self.expr(value) for name, value in s.scalar_args}
        return self._indent(self.launch(s.kernel, bindings, s.loc), depth)

    def edge_bound(self, extent: str) -> str:
        """A kernel's ``m``: the edge count, or for a kernel over the edge ids of rows with
        slack every slot in use (``offsets[n]``), each item testing its own
        (``P.LiveSlot``; the plan keeps a compact CSR where such a kernel reads
        ``g.num_edges()``)."""
        if extent == "edges" and self.slack_rows:
            return f"{self.graph}.offsets[{self.graph}.num_nodes]"
        return f"{self.graph}.num_edges"

    def _either(self, condition: str, comment: str, variant: str, kernel: P.Kernel,
                kernel_scalars: Dict[str, str], loc) -> List[str]:
        """``if (condition)`` launch the kernel named ``variant``, else ``kernel``. A lockstep
        variant inherits its kernel's ``renumbered_variant``, which the enclosing choice has
        decided already."""
        chosen = next(k for k in self.plan.kernels if k.name == variant)
        chosen = dataclasses.replace(chosen, renumbered_variant="")
        return ([f"if ({condition}) {{{comment}"]
                + self._indent(self.launch(chosen, kernel_scalars, loc), 1)
                + ["} else {"] + self._indent(self.launch(kernel, kernel_scalars, loc), 1)
                + ["}"])

    def launch(self, kernel: P.Kernel, kernel_scalars: Dict[str, str], loc) -> List[str]:
        """The launch of ``kernel`` with its arguments in the printed kernel's order; of its
        variant instead on a lockstep device, where it has one (``Kernel.lockstep_variant``);
        of its swapped-row variant where the run renumbered the graph
        (``Kernel.renumbered_variant``)."""
        if kernel.renumbered_variant:
            if not self._renumbered:
                raise BackendError(f"the kernel '{kernel.name}' has a variant for a renumbered "
                                   "graph but the graph is never renumbered", kernel.loc)
            return self._either(self._renumbered,
                                "  // symmetric and simple: walk the shorter row",
                                kernel.renumbered_variant,
                                dataclasses.replace(kernel, renumbered_variant=""),
                                kernel_scalars, loc)
        if kernel.lockstep_variant:
            return self._either(self.dialect.on_lockstep_device(), "", kernel.lockstep_variant,
                                dataclasses.replace(kernel, lockstep_variant=""),
                                kernel_scalars, loc)
        d = self.dialect
        code = self.kernels.get(kernel.name)
        if code is None:
            raise BackendError(f"the kernel '{kernel.name}' was not printed", kernel.loc)
        where = self.where(loc if loc is not None and loc.line > 0 else kernel.loc)
        args = []
        for arg in code.args:
            kind, what = arg.source
            if kind == "size" and what == "frontier":   # a worklist's length
                if FRONTIER_COUNT not in kernel_scalars:
                    raise BackendError(f"no worklist length in the launch of {kernel.name}",
                                       kernel.loc)
                args.append(kernel_scalars[FRONTIER_COUNT])
            elif kind == "size":
                args.append(f"{self.graph}.num_nodes" if what == "nodes"
                            else self.edge_bound(kernel.extent))
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
        return d.launch(code, args, where)

    def _read_element(self, array: P.DeviceArray, index: str, where: str) -> str:
        text = self.dialect.read_element(self.array_var(array), array.elem, index, where)
        if array.elem is Scalar.BOOL and self.dialect.storage_type(Scalar.BOOL) != "bool":
            return f"{text} != 0"
        return text

    def _stmt_Fill(self, s: P.Fill, depth: int):
        a = s.array
        return self._indent(self.dialect.fill(self.array_var(a), a.elem, self.value(s.value),
                                              self.count(a), self.where(s.loc)), depth)

    def _stmt_CopyArray(self, s: P.CopyArray, depth: int):
        if s.dst.extent != s.src.extent:
            self.dialect.missing(f"copying '{s.src.name}' into '{s.dst.name}' of another size",
                                 s.loc)
        return self._indent(self.dialect.copy_device(
            self.array_var(s.dst), self.array_var(s.src), s.dst.elem, self.count(s.dst),
            self.where(s.loc)), depth)

    def _stmt_LeastLabels(self, s: P.LeastLabels, depth: int):
        return self._indent(self.dialect.least_labels(self.array_var(s.labels), s.labels.name,
                                                      self.where(s.loc)), depth)

    def _stmt_SwapArrays(self, s: P.SwapArrays, depth: int):
        return self._indent(self.dialect.swap(self.array_var(s.a), self.array_var(s.b),
                                              s.a.elem, self.where(s.loc)), depth)

    def _stmt_WriteElement(self, s: P.WriteElement, depth: int):
        a = s.array
        return self._indent(self.dialect.write_element(
            self.array_var(a), a.elem, self.value(s.index), self.value(s.value),
            self.where(s.loc)), depth)

    def _stmt_ToDevice(self, s: P.ToDevice, depth: int):
        a = s.array
        return self._indent(self.dialect.write_element(
            self.array_var(a), a.elem, HostValue("0", zero_bytes=True),
            HostValue(self.scalar(s.sym)), self.where(s.loc)), depth)

    def _stmt_FromDevice(self, s: P.FromDevice, depth: int):
        return [INDENT * depth + f"{self.scalar(s.sym)} = "
                f"{self._read_element(s.array, '0', self.where(s.loc))};"]

    def _stmt_ReadSlots(self, s: P.ReadSlots, depth: int):
        # one copy of the first slots into a host array, then each to its scalar
        count = len(s.syms)
        lines = ["{", f"{INDENT}int starc_slots[{count}];"]
        lines += [INDENT + line for line in self.dialect.copy_to_host(
            "starc_slots", self.array_var(s.array), Scalar.INT, Count(str(count)),
            self.where(s.loc))]
        lines += [f"{INDENT}{self.scalar(sym)} = starc_slots[{at}];"
                  for at, sym in enumerate(s.syms)]
        return self._indent(lines + ["}"], depth)

    def _stmt_FromDeviceMany(self, s: P.FromDeviceMany, depth: int):
        # one copy of the whole block into its host staging, then each slot to its scalar
        block, staging, _ = self._pack_vars[s.pack.name]
        lines = self.dialect.copy_to_host(f"{staging}.data()", block, Scalar.LONG,
                                          self.pack_count(s.pack), self.where(s.loc))
        for array, sym in zip(s.arrays, s.syms):
            var = self.scalar(sym)
            offset = self.pack_offset(s.pack, self._packs[array.name][1])
            lines.append(f"std::memcpy(&{var}, {staging}.data() + {offset}, sizeof({var}));")
        return self._indent(lines, depth)

    def pack_count(self, pack: P.ScalarPack) -> Count:
        """The block's length in 8-byte words: its slots times a slot's words."""
        size = self.dialect.pack_slot_words(self._pack_vars[pack.name][2])
        k = len(pack.members)
        return Count(str(k) if size == "1" else f"{k} * {size}")

    def pack_offset(self, pack: P.ScalarPack, slot: int) -> str:
        """Where slot ``slot`` of ``pack`` starts, in 8-byte words from the block's start."""
        size = self.dialect.pack_slot_words(self._pack_vars[pack.name][2])
        return str(slot) if size == "1" else f"{slot} * {size}"

    def degree_order_option(self) -> List[str]:
        """The ``--degree-order`` option, checked with the command line (outside the timed
        span), when the plan renumbers the graph; else nothing."""
        order = next((s for s in walk_host(self.plan.host) if isinstance(s, P.OrderByDegree)),
                     None)
        if order is None:
            return []
        self._degree_mode = self.names.fresh("degree_order_mode")
        if order.keeps_ids:
            return [f"starc::degree_order_mode({self.cl});  // checked, but {order.keeps_ids}"]
        return [f"const starc::DegreeOrderMode {self._degree_mode} = "
                f"starc::degree_order_mode({self.cl});  // --degree-order auto|always|never"]

    def _stmt_OrderByDegree(self, s: P.OrderByDegree, depth: int):
        if s.keeps_ids:
            return []
        d, where = self.dialect, self.where(s.loc)
        order = self.names.fresh("degree_order")
        lines = ["// Renumber the vertices by degree when the graph is symmetric, simple and "
                 "skewed (no result",
                 "// depends on ids): timed, as GAPBS times its relabelling."]
        renumber, applied, data = d.order_by_degree(order, self.graph, self._degree_mode)
        self._renumbered = d.renumbered(order)
        lines += renumber
        copies = [(s.offsets, "offsets"), (s.targets, "targets")]
        sources: List[str] = []
        if s.sources is not None and s.sources.lockstep_only:
            # only a variant reads the sources, allocated only where it runs: filled there
            sources = self.on_lockstep_device_only(
                [f"starc::fill_sources({order});"] + d.copy_to_device(
                    self.array_var(s.sources), s.sources.elem, data.format("sources"),
                    self.count(s.sources), where))
        elif s.sources is not None:
            lines.append(f"if ({applied}) starc::fill_sources({order});")
            copies.append((s.sources, "sources"))
        copied = [line for array, host in copies for line in d.copy_to_device(
            self.array_var(array), array.elem, data.format(host), self.count(array), where)]
        copied += sources
        if applied == "true":
            lines += copied
        else:
            lines += [f"if ({applied}) {{"] + [INDENT + line for line in copied] + ["}"]
        return self._indent(lines, depth)

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

    def _stmt_CheckErrors(self, s: P.CheckErrors, depth: int):
        return self._indent(self.error_check(self.where(s.loc)), depth)


def _zero_bytes(e: ir.Expr) -> bool:
    """Whether ``e`` is a constant all of whose bytes are zero: ``0``, ``false``, ``+0.0``
    (not ``-0.0``, whose sign bit is set), through casts."""
    while isinstance(e, ir.Cast):
        e = e.expr
    if not isinstance(e, ir.Const):
        return False
    return e.value == 0 and math.copysign(1.0, float(e.value)) > 0
