"""The shared C++ host printer: a plan's host tree and the ``main`` of every C++ backend.

CUDA, SYCL, OpenACC and MPI programs share everything on the host but the device operations:
the command line (``starc::CommandLine``), reading the graph, binding ``propEdge`` parameters to
the file's weights, host scalars, the control flow, ``FixedPointLoop`` and ``BFSLoop``, the
results and ``--time``. A backend supplies a ``HostDialect`` (``host_dialect``) whose hooks
spell the device operations (allocate, copy, fill, swap, single-element access, launch,
synchronise, timing); a hook it lacks raises ``BackendError`` naming the operation. Host
expressions go through the shared ``cfamily`` printer with a host context (``host_expressions``);
the host tree is printed by ``host_statements``; this module adds the program around it. The C++
the program calls (``starc::edge_weights``, ``starc::min_weight`` ...) is the header-only
runtime in ``common/runtime``.

Use::

    printer = CppHostPrinter(plan, dialect, kernels)   # kernels: name -> cfamily.KernelCode
    text = printer.main()                             # "int main(...) { ... }"
    printer.includes()                                # standard headers main needs
"""

from __future__ import annotations

import json
import os
from typing import List, Optional

from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.backends.common.cfamily import INDENT
from starc.backends.common.host_dialect import (BATCH_TIMER, CXX_KEYWORDS, UPDATE_TIMER,
                                                HostDialect, HostExprDialect, location)
from starc.backends.common.host_statements import HostStatementPrinter
from starc.backends.common.host_updates import UPDATES_OPTION
from starc.analysis.host_tree import walk_host
from starc.ir import nodes as ir
from starc.ir.types import GraphType, PropType, Scalar, SetType, UpdatesType, c_name

__all__ = ["CXX_KEYWORDS", "HostDialect", "HostExprDialect", "CppHostPrinter", "location"]

_PARAM_KINDS = {Scalar.INT: ("Int", "get_int"), Scalar.LONG: ("Long", "get_int"),
                Scalar.FLOAT: ("Float", "get_double"), Scalar.DOUBLE: ("Double", "get_double"),
                Scalar.BOOL: ("Bool", "get_bool"), Scalar.NODE: ("Node", "get_node"),
                Scalar.EDGE: ("Int", "get_int")}

#: Arrays that are the graph (CSR and the file's edge weights): allocated and copied to the
#: device before the timer starts, as GAPBS times its kernels on a graph already built.
RESIDENT_ROLES = frozenset({"graph", "weight"})
#: the graph arrays that are a binned kernel's vertex order (``starc::Graph::binned_order``)
BINNED_ORDERS = ("in_binned_order", "out_binned_order")


def _option_text(value) -> str:
    """A default value as the command line would spell it."""
    return str(int(value)) if isinstance(value, bool) else str(value)


class CppHostPrinter(HostStatementPrinter):
    """Prints one plan's host side as C++: the host tree inside ``main`` (see the module
    docstring)."""

    # --- the program -------------------------------------------------------------------------
    def includes(self) -> List[str]:
        """Standard headers the printed code needs."""
        # std::memcpy reads a scalar pack's slots
        return ["cstdio", "vector"] + (["cstring"] if self._packs else [])

    def main(self) -> str:
        d, g, cl, fn = self.dialect, self.graph, self.cl, self.function
        where = self.where(fn.loc)
        body: List[str] = []
        specs = self._param_specs()
        order = self.degree_order_option()
        flags = list(d.program_flags())
        if order:
            flags.append(("degree-order", "auto|always|never",
                          "renumber the vertices by degree: auto (when skewed), always or never "
                          "(default auto)"))
        flags = ", {" + ", ".join("{" + ", ".join(json.dumps(x) for x in f) + "}" for f in flags) + "}" if flags else ""
        body.append(f"starc::CommandLine {cl}(argc, argv, {{{', '.join(specs)}}}, "
                    f'"{fn.name}"{flags});')
        body += d.options(cl)
        body += order
        body += d.read_graph(g, cl)
        body += self._bind_params()
        result_vectors = []
        for p in self._results:
            array = self._result_array(p)
            elem = p.type.elem
            vector = self._host_vectors[p.uid]
            body += d.result_vector(vector, elem, g)
            result_vectors.append((p, array, vector))
        body += self.sites_table()
        body += d.setup(where)
        arrays = self.plan.arrays   # exactly those something uses
        resident = [a for a in arrays if a.role in RESIDENT_ROLES]
        per_run = [a for a in arrays if a.role not in RESIDENT_ROLES]
        if resident:
            body.append("")
            body.append("// The graph, resident where the algorithm runs before the clock starts.")
            for array in resident:
                body += self._allocate(array)
        warm_up = d.warm_up(where)
        if resident or warm_up:
            body += warm_up + d.synchronize(where)
        body.append("")
        body.append("// Timed (the --time contract, docs/architecture.md): the algorithm, from the "
                    "graph resident")
        body.append("// and the kernels ready to the results back in host memory; --trials N runs "
                    "it N times")
        body.append("// (as GAPBS's -n), one starc-time line each, and keeps the last run's "
                    "results.")
        # allocated (printed) before the algorithm, whose batch updates may reallocate them
        allocations = [line for array in per_run for line in self._allocate(array)]
        algorithm = self._algorithm()
        if fn.return_type is not None:
            body.append(f"{c_name(fn.return_type)} {self._return_var}{{}};")
        trial = self.names.fresh("trial")
        body += self.snapshot_graph()
        timed = self.restore_graph(trial, resident)
        timed += allocations if d.allocates_before_clock else []
        timed += d.timer_start(where)
        dynamic = self.update_stream_param() is not None
        if dynamic:
            timed += [f"starc::Timer {UPDATE_TIMER};", f"starc::Timer {BATCH_TIMER};"]
        if not d.allocates_before_clock:
            timed += allocations
        timed += algorithm
        timed += self.error_check(where)     # before any result is copied or printed
        for p, array, vector in result_vectors:
            if array is not None:
                timed += d.copy_to_host(f"{vector}.data()", self.array_var(array), array.elem,
                                        self.count(array), where)
        timed += d.synchronize(where)
        timed += d.timer_stop(where)
        for array in per_run:
            timed += self._free(array, where)
        timed += d.trial_end(where)
        reports = [f"if ({cl}.time) starc::report_time({d.timer_seconds()});"]
        if dynamic:
            for timer, name in ((UPDATE_TIMER, "starc-update-time"),
                                (BATCH_TIMER, "starc-batch-time")):
                lines, seconds = d.stopwatch_seconds(timer)
                timed += lines
                reports.append(f'if ({cl}.time) starc::report_part_time("{name}", {seconds});')
        timed += d.report(reports)
        body.append(f"for (int {trial} = 0; {trial} < {cl}.trials; ++{trial}) {{")
        body += [(INDENT + line) if line else "" for line in timed]
        body.append("}")
        for array in resident:
            body += self._free(array, where)
        body += d.teardown(where)
        body.append("")
        results = self.names.fresh("results")
        body += d.results(results, cl, fn.name, [(p.name, vector) for p, _, vector in result_vectors],
                          self._return_var if fn.return_type is not None else None, g)
        program = os.path.splitext(self.source)[0] or "prog"
        lines = ["int main(int argc, char** argv) {",
                 f"{INDENT}return {d.guarded_main(program)}"]
        lines += [(INDENT * 2 + line) if line else "" for line in body]
        lines += [f"{INDENT}}});", "}"]
        return "\n".join(lines)

    def _param_specs(self) -> List[str]:
        specs = []
        defaults = dict(self.function.defaults)
        for p in self.function.params:
            if isinstance(p.type, Scalar):
                if p.type not in _PARAM_KINDS:
                    self.dialect.missing(f"a parameter of type '{p.type}'", p.loc)
                kind = _PARAM_KINDS[p.type][0]
            elif isinstance(p.type, SetType) and p.type.kind == "node":
                kind = "NodeSet"
            elif isinstance(p.type, UpdatesType):
                specs.append(f'{{"{UPDATES_OPTION}", starc::ParamKind::File, true}}')
                continue
            elif isinstance(p.type, (GraphType, PropType)):
                continue
            else:
                raise BackendError(f"the parameter '{p.name}' of type {p.type} is not supported "
                                   "by the generated program's command line", p.loc)
            default = defaults.get(p.name)
            if default is None:
                specs.append(f'{{"{p.name}", starc::ParamKind::{kind}, true}}')
            else:     # an optional option: CommandLine gives the default when not given
                specs.append(f'{{"{p.name}", starc::ParamKind::{kind}, false, '
                             f'"{_option_text(default)}"}}')
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
            elem = self.dialect.storage_type(p.type.elem)
            lines.append(f"std::vector<{elem}> {self._host_vectors[p.uid]} = "
                         f'starc::edge_weights<{elem}>({g}, "{p.name}", "{p.type}");')
        return lines + self.read_update_stream()


    def _result_array(self, p: ir.Symbol) -> Optional[P.DeviceArray]:
        for array in self.plan.arrays:
            if array.sym is not None and array.sym.uid == p.uid and array.role != "scalar":
                return array
        return None

    def _allocate(self, array: P.DeviceArray) -> List[str]:
        d = self.dialect
        var, count = self.array_var(array), self.count(array)
        where = self.where(array.sym.loc if array.sym is not None else self.function.loc)
        if array.name in self._packs:
            return self._allocate_member(array, where)
        lines = [d.array_declaration(var, array.elem)]
        lines += d.allocate(var, array.elem, count, where)
        if array.copy_in:
            if array.role == "graph":
                host = self.graph_array_data(array)
            elif array.role == "weight" and array.sym is not None \
                    and array.sym.uid in self._host_vectors:
                host = f"{self._host_vectors[array.sym.uid]}.data()"
            else:
                d.missing(f"copying the '{array.role}' array '{array.name}' in")
            lines += d.copy_to_device(var, array.elem, host, count, where)
        if array.lockstep_only:     # built and copied only where a variant runs
            lines = lines[:1] + self.on_lockstep_device_only(lines[1:])
        return lines

    def _pack_order(self, pack: P.ScalarPack) -> List[str]:
        members = {a.name for a in pack.members}
        return [a.name for a in self.plan.arrays if a.name in members]

    def _allocate_member(self, array: P.DeviceArray, where: str) -> List[str]:
        """A member of a scalar pack: the block (and its host staging) with its first member
        in the plan's order, then the member as a slot of it."""
        d = self.dialect
        pack, slot = self._packs[array.name]
        block, staging, size = self._pack_vars[pack.name]
        lines: List[str] = []
        if self._pack_order(pack)[0] == array.name:
            count = self.pack_count(pack)
            lines += d.pack_slot_lines(size, where)
            lines.append(d.array_declaration(block, Scalar.LONG))
            lines += d.allocate(block, Scalar.LONG, count, where)
            lines.append(f"std::vector<{d.storage_type(Scalar.LONG)}> {staging}({count});  "
                         "// its copy, read back in one transfer")
        var = self.array_var(array)
        lines.append(d.array_declaration(var, array.elem))
        return lines + d.pack_member(var, array.elem, block, self.pack_offset(pack, slot),
                                     where)

    def _free(self, array: P.DeviceArray, where: str) -> List[str]:
        if array.name in self._packs:
            pack = self._packs[array.name][0]
            lines = self.dialect.free_member(self.array_var(array), array.elem, where)
            if self._pack_order(pack)[-1] == array.name:
                lines += self.dialect.free(self._pack_vars[pack.name][0], Scalar.LONG, where)
            return lines
        lines = self.dialect.free(self.array_var(array), array.elem, where)
        return self.on_lockstep_device_only(lines) if array.lockstep_only else lines

    def graph_array_data(self, array: P.DeviceArray) -> str:
        """The host data of graph array ``array`` (a binned order: built on first use)."""
        if array.name in BINNED_ORDERS:
            inward = "true" if array.name == "in_binned_order" else "false"
            return f"{self.graph}.binned_order({inward}, {P.BINNED_RUN}).data()"
        if array.name in P.ROW_ENDS.values():
            return f"{self.slack_rows}.{array.name}.data()"
        return f"{self.graph}.{array.name}.data()"

    def _algorithm(self) -> List[str]:
        """The host tree; inside a lambda when it returns (early returns leave the lambda)."""
        fn = self.function
        returns = any(isinstance(s, P.HostReturn) for s in walk_host(self.plan.host))
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
            lines.append(f"{self._return_var} = {algorithm}();")   # declared before the trials
        else:
            lines.append(f"{algorithm}();")
        return lines
