"""The dynamic-graph half of the shared C++ host printer (issue 31): the update stream read with
the command line, and the plan's ``BatchLoop``, ``ApplyUpdates`` and ``UpdateLoop`` printed
as calls into the runtime's ``starc_updates.hpp`` and the dialect's device operations."""

from __future__ import annotations

import json
from typing import List, Optional

from starc.analysis import plan as P
from starc.backends.common.cfamily import INDENT
from starc.backends.common.host_dialect import BATCH_TIMER, UPDATE_TIMER, Count, HostValue
from starc.ir import nodes as ir
from starc.ir.types import UpdatesType

__all__ = ["UpdateStatements", "UPDATES_OPTION", "ROW_BOUNDS"]

#: the generated program's option for the update stream, as ``starc run --updates FILE``
UPDATES_OPTION = "updates"

#: each side's row starts and ends of rows with slack: after a batch, scattered at the rows it
#: touched
_SIDE_BOUNDS = (("forward", ("offsets", "ends")), ("reverse", ("rev_offsets", "rev_ends")))
ROW_BOUNDS = tuple(name for _, names in _SIDE_BOUNDS for name in names)
_KIND_CHAR = {"delete": "'d'", "add": "'a'", "all": "0", "none": "'-'"}


class UpdateStatements:
    """Mixin of ``HostStatementPrinter``: what a Dynamic program's host adds."""

    def update_stream_param(self) -> Optional[ir.Symbol]:
        return next((p for p in self.function.params if isinstance(p.type, UpdatesType)), None)

    def update_count(self) -> Count:
        """The length of the update arrays: the whole stream's, which bounds every batch."""
        stream = self.update_stream_param()
        # an int, as the graph's counts are
        return Count(f"static_cast<int>({self.names.bind(stream)}.size())", may_be_zero=True)

    def read_update_stream(self) -> List[str]:
        """The stream of ``--updates FILE``, read against the graph's vertices (both directions
        of each update when the run is --undirected), before the clock starts; a weighted
        program's additions must carry weights."""
        stream = self.update_stream_param()
        if stream is None:
            return []
        var, g, cl = self.names.bind(stream), self.graph, self.cl
        lines = [f'starc::UpdateStream {var} = starc::read_updates({cl}.get_text('
                 f'"{UPDATES_OPTION}"), {g}.num_nodes);',
                 f"if ({cl}.undirected) {var} = starc::symmetrised({var});"]
        for p in self._weight_params:
            elem = self.dialect.storage_type(p.type.elem)
            lines.append(f'starc::check_update_weights<{elem}>({var}, {g}, '
                         f'"{self.function.name}", "{p.name}", "{p.type}");')
        return lines + self._lay_out_slack_rows()

    def _lay_out_slack_rows(self) -> List[str]:
        """The graph laid out in rows with slack (its edge ids become slots), the edge weights
        carried to the slots."""
        if not self.slack_rows:
            return []
        rows, laid = self.slack_rows, self.names.fresh("laid")
        keep = "true" if self._keeps_reverse_ids() else "false"
        # rows in any order (Specialization.unsorted_rows): no kernel reads them as sorted
        sort = "false" if self.plan.target.unsorted_rows else "true"
        lines = ["// Rows with slack: a batch moves only the rows it touches (edge ids are slots).",
                 f"starc::SlackRows {rows};",
                 f"const starc::SlotChange {laid} = starc::make_slack_rows({self.graph}, {rows}, "
                 f"/*keep_rev_edge_ids=*/{keep}, /*sorted=*/{sort});"]
        return lines + [f"{laid}.carry({self._host_vectors[p.uid]});"
                        for p in self._weight_params]

    def _keeps_reverse_ids(self) -> bool:
        return any(a.name == "rev_edge_ids" for a in self.plan.arrays if a.role == "graph")

    def each_array(self, items, lines_of) -> List[str]:
        """``lines_of`` of each of ``items`` (arrays, or (array, host data) pairs, unpacked),
        those of the arrays only kernels' variants take (``lockstep_only``: the edges'
        sources of a kernel over edge ids) under one test of the device, after the others:
        another device neither holds them nor refreshes them after a graph update."""
        others, lockstep = [], []
        for item in items:
            array, args = (item[0], item) if isinstance(item, tuple) else (item, (item,))
            (lockstep if array.lockstep_only else others).extend(lines_of(*args))
        return others + (self.on_lockstep_device_only(lockstep) if lockstep else [])

    def snapshot_graph(self) -> List[str]:
        """A Dynamic program's input graph and weights, kept for ``restore_graph``."""
        if self.update_stream_param() is None:
            return []
        state = self.dialect.graph_state(self.graph)
        self._snapshots = [(state, self.names.fresh(f"{state}_input"))]
        if self.slack_rows:
            self._snapshots.append((self.slack_rows, self.names.fresh(f"{self.slack_rows}_input")))
        self._snapshots += [(self._host_vectors[p.uid],
                             self.names.fresh(f"{self._host_vectors[p.uid]}_input"))
                            for p in self._weight_params]
        lines = ["// The input graph: each trial starts from it (the batches change the graph)."] \
            + [f"const auto {copy} = {var};" for var, copy in self._snapshots]
        if self._capacity_used():
            # the length of the edge arrays a graph update refreshes: they are reallocated
            # only when the edges outgrow it (every trial starts them at the input's m)
            lines.append(f"int {self.edge_capacity()} = {self._edge_count()};")
        if self._kept_staging:
            lines += self.dialect.staging_kept(self._kept_staging)
        return lines

    def _edge_count(self) -> str:
        """The length the edge arrays need: the edges, or the slots of rows with slack."""
        return f"{self.slack_rows}.capacity" if self.slack_rows else f"{self.graph}.num_edges"

    def edge_capacity(self) -> str:
        """The host variable of the edge arrays' capacity (named on first use)."""
        if not self._edge_capacity:
            self._edge_capacity = self.names.fresh("edge_capacity")
        return self._edge_capacity

    def staging(self) -> str:
        """The device staging of a batch's slots and moves, declared once (``staging_kept``)
        and kept across the batches and the trials with its buffers' capacities."""
        if not self._kept_staging:
            self._kept_staging = self.names.fresh("batch_staging")
        return self._kept_staging

    def _capacity_used(self) -> bool:
        return bool(self._edge_capacity)

    def restore_graph(self, trial: str, resident: List[P.DeviceArray]) -> List[str]:
        """From the second trial on, before its clock starts: the input graph again, on the
        host and on the device."""
        if self.update_stream_param() is None:
            return []
        d, where = self.dialect, self.where(self.function.loc)
        lines = [f"{var} = {copy};" for var, copy in self._snapshots]
        if self._capacity_used():   # the input's length again, as the per-trial arrays'
            lines += self._reallocate([a for a in resident if a.extent == "edges"],
                                      self._edge_count(), where)
        def copy(array):
            if array.role == "graph":
                data = self.graph_array_data(array)
            else:
                data = f"{self._host_vectors[array.sym.uid]}.data()"
            return d.copy_to_device(self.array_var(array), array.elem, data, self.count(array),
                                    where)
        lines += self.each_array(resident, copy)
        lines += d.synchronize(where)
        return [f"if ({trial} > 0) {{"] + [INDENT + line for line in lines] + ["}"]

    def _stmt_BatchLoop(self, s: P.BatchLoop, depth: int):
        # the reference's "<file>:<line>:<col>: runtime error: ..." (as the check sites')
        pad, where = INDENT * depth, json.dumps(str(s.loc))
        stream = self.names.bind(s.stream) if self.names.lookup(s.stream) is None \
            else self.names.lookup(s.stream)
        size = self.names.fresh("batch_size")
        first, last = self.names.bind(s.first), self.names.bind(s.last)
        lines = [f"{pad}{{{self.comment(s.loc)}",
                 f"{pad}{INDENT}const long long {size} = static_cast<long long>("
                 f"{self.expr(s.size)});",
                 f"{pad}{INDENT}if ({size} < 1) throw starc::CheckError(std::string({where}) + "
                 f"\": runtime error: the batch size is \" + std::to_string({size}) + "
                 f"\"; it must be at least 1\");",
                 f"{pad}{INDENT}for (long long {first} = 0; {first} < {stream}.line_count(); "
                 f"{first} += {size}) {{",
                 f"{pad}{INDENT * 2}const long long {last} = std::min({first} + {size}, "
                 f"{stream}.line_count());"]
        lines += self._body(s.body, depth + 2)
        lines += [f"{pad}{INDENT}}}"]
        # the batches' stopwatch (``starc-batch-time``), from a synchronise after the static
        # part to one after the last batch, so that it holds the batches' device work alone
        synchronize = self.dialect.synchronize(self.where(s.loc))
        start = [pad + line for line in synchronize + [f"{BATCH_TIMER}.start();"]]
        stop = [pad + INDENT + line for line in synchronize + [f"{BATCH_TIMER}.stop();"]]
        return start + lines + stop + [f"{pad}}}"]

    def _part(self, kind: str, stream: ir.Symbol, first: ir.Symbol, last: ir.Symbol) -> str:
        return (f"starc::batch_part({self.names.lookup(stream)}, {self.scalar(first)}, "
                f"{self.scalar(last)}, {_KIND_CHAR[kind]})")

    def _stmt_UpdateLoop(self, s: P.UpdateLoop, depth: int):
        d, where = self.dialect, self.where(s.loc)
        part, count = self.names.fresh("part"), self.names.bind(s.count)
        lines = [f"const starc::BatchPart {part} = {self._part(s.kind, s.stream, s.first, s.last)};",
                 f"const int {count} = static_cast<int>({part}.src.size());",
                 f"if ({count} > 0) {{"]
        for field, array in s.fields:
            if field == "weight":
                host = self.names.fresh("weights")
                elem = d.storage_type(array.elem)
                lines.append(f"{INDENT}const std::vector<{elem}> {host} = "
                             f"starc::part_weights<{elem}>({part});")
                data = f"{host}.data()"
            else:
                data = f"{part}.{'src' if field == 'source' else 'dst'}.data()"
            lines += [INDENT + line for line in d.copy_to_device(
                self.array_var(array), array.elem, data, Count(count), where)]
        # a copy may still read the host data when it returns (SYCL's queue.copy): the part
        # dies with this block
        lines += [INDENT + line for line in d.synchronize(where)]
        body = self._body(s.body, 1)
        lines += body + ["}"]
        pad = INDENT * depth
        return [f"{pad}{{{self.comment(s.loc)}"] + self._indent(lines, depth + 1) + [f"{pad}}}"]

    def _stmt_ApplyUpdates(self, s: P.ApplyUpdates, depth: int):
        """The batch applied to the graph, on the update stopwatch (``starc-update-time``):
        started once the device has finished what came before (which the update needs anyway:
        those kernels may use the arrays it frees and the host data it changes), stopped after
        the block's own final synchronise."""
        if s.slack_rows:
            lines = self._apply_to_slack_rows(s, depth)
        elif s.distributed:
            lines = self._apply_on_ranks(s, depth)
        else:
            lines = self._apply_to_compact_rows(s, depth)
        pad = INDENT * depth
        start = self.dialect.synchronize(self.where(s.loc)) + [f"{UPDATE_TIMER}.start();"]
        return [pad + line for line in start] + lines + [f"{pad}{UPDATE_TIMER}.stop();"]

    def _apply_to_compact_rows(self, s: P.ApplyUpdates, depth: int) -> List[str]:
        d, g, where = self.dialect, self.graph, self.where(s.loc)
        keep = "" if s.reverse_ids else ", /*keep_rev_edge_ids=*/false"
        lines, uploads, carried = [], [], None
        for kind in s.kinds:    # (fused: the additions carry what the deletions carried)
            changed, _, uploads, carried = self._changed_edges(s, "EdgeRenumbering", g, keep, "",
                                                               kind=kind, carried=carried)
            lines += changed
        lines += self._grow_edge_arrays([array for array, _ in uploads], where)
        lines += self.each_array(uploads, lambda array, data: d.copy_to_device(
            self.array_var(array), array.elem, data, self.count(array), where))
        lines += d.synchronize(where)     # the host data may change once the copies are done
        pad = INDENT * depth
        return [f"{pad}{{{self.comment(s.loc)}"] + self._indent(lines, depth + 1) + [f"{pad}}}"]

    def _changed_edges(self, s: P.ApplyUpdates, change_type: str, graph: str, options: str,
                       edges_change: str, read_back=None, kind: str = "", carried=None):
        """The lines applying ``s``'s batch part of ``kind`` (its own by default) to ``graph``
        (the runtime's ``delete_edges`` / ``add_edges`` of a ``change_type`` with
        ``options``), then carrying the edge properties through ``change{edges_change}``; also
        the change's name, the (array, host data) pairs to upload and the carried host vectors
        (given ``carried``, a fused update's second part's: current, nothing read back).
        ``read_back(change, carried)``: the lines that read the device's values back once the
        change is known (None: whole, before it)."""
        d, where, kind = self.dialect, self.where(s.loc), kind or s.kind
        part, change = self.names.fresh("part"), self.names.fresh("change")
        # (the device already finished the kernels before it, which may use the arrays it frees
        # and the host data it changes: ``_stmt_ApplyUpdates`` synchronises first)
        lines = [f"const starc::BatchPart {part} = "
                 f"{self._part(kind, s.stream, s.first, s.last)};"]
        if carried is None:
            carried = self._edge_vectors(s, lines, where, read_back is None)
        args = f"{part}.src, {part}.dst" + (f", {part}.weights" if kind == "add" else "")
        lines.append(f"const starc::{change_type} {change} = starc::{kind}_edges({graph}, "
                     f"{args}{options});")
        if read_back is not None:
            lines += read_back(change, carried)
        host_only = [(self._host_vectors[sym.uid], d.storage_type(sym.type.elem))
                     for sym in s.host_weights]
        for vector, elem, weight in ([(v, e, a.role == "weight") for a, v, e in carried]
                                     + [(v, e, True) for v, e in host_only]):
            if kind == "add" and weight:   # an added edge: its own weight
                added = self.names.fresh("added")
                lines.append(f"const std::vector<{elem}> {added} = "
                             f"starc::part_weights<{elem}>({part});")
                lines.append(f"{change}{edges_change}.carry({vector}, {elem}(), &{added});")
            else:
                lines.append(f"{change}{edges_change}.carry({vector});")
        uploads = [(array, f"{vector}.data()") for array, vector, _ in carried]
        uploads += [(array, self.graph_array_data(array)) for array in s.graph]
        return lines, change, uploads, carried

    def _read_moved_slots(self, s: P.ApplyUpdates, change: str, carried,
                          on_device: str = "") -> List[str]:
        """The device's values of the edge properties it may have written, read back where the
        batch moves them from (gathered into one transfer), or whole after a re-layout; not
        at all where the moves are applied on the device (``on_device``: the C++ flag)."""
        d, where = self.dialect, self.where(s.loc)
        read = [(array, vector) for array, vector, _ in carried
                if array.name in {a.name for a in s.read_back}]
        if not read:
            return []
        staging = self.staging()
        # whole: the device arrays' length, which the re-layout's new capacity may exceed
        length = Count(self.edge_capacity(), self.edge_capacity(), may_be_zero=True)
        lines = [f"if ({change}.forward.whole()) {{"]
        lines += [INDENT + line for array, vector in read for line in d.copy_to_host(
            f"{vector}.data()", self.array_var(array), array.elem, length, where)]
        slots = self.names.fresh("moved_slots")
        lines += [f"}} else if (!{on_device}) {{" if on_device else "} else {",
                  f"{INDENT}const std::vector<int> {slots} = {change}.forward.sources();"]
        lines += [INDENT + line for line in d.stage_slots(staging, slots, where)]
        lines += [INDENT + line for array, vector in read for line in d.gather_from_device(
            f"{vector}.data()", self.array_var(array), array.elem, staging, where)]
        return lines + ["}"]

    def _edge_vectors(self, s: P.ApplyUpdates, lines: List[str], where: str, read: bool):
        """The host vectors of the edge properties an update carries (declared, and, with
        ``read``, read back when the device may have changed them, into ``lines``): (array,
        vector, type)."""
        d, carried = self.dialect, []
        read_back = {a.name for a in s.read_back}
        for array in s.edge_props:
            elem = d.storage_type(array.elem)
            vector = self._host_vectors.get(array.sym.uid) if array.sym is not None else None
            if vector is None:
                vector = self.names.fresh(f"h_{array.name}")
                lines.append(f"std::vector<{elem}> {vector}({self.count(array)});")
            if read and array.name in read_back:     # before the edge ids change
                lines += d.copy_to_host(f"{vector}.data()", self.array_var(array), array.elem,
                                        self.count(array), where)
            carried.append((array, vector, elem))
        return carried

    def _grow_edge_arrays(self, arrays: List[P.DeviceArray], where: str) -> List[str]:
        """The edge arrays reallocated, with room for more edges (``P.EDGE_ROOM``), when the
        graph's edges no longer fit their capacity."""
        edges = [a for a in arrays if a.extent == "edges"]
        if not edges:
            return []
        m = f"{self.graph}.num_edges"
        grown = f"static_cast<int>(std::min<long long>(INT_MAX, {m} + {m} / {P.EDGE_ROOM}LL))"
        lines = [f"if ({m} > {self.edge_capacity()}) {{"]
        lines += [INDENT + line for line in self._reallocate(edges, grown, where)]
        return lines + ["}"]

    def _reallocate(self, arrays: List[P.DeviceArray], capacity: str, where: str) -> List[str]:
        """Edge arrays freed (while the capacity variable still holds their length, which a
        dialect's free may name) and allocated again with ``capacity``."""
        d, var_capacity = self.dialect, self.edge_capacity()
        count = Count(var_capacity, f"static_cast<size_t>({var_capacity})", may_be_zero=True)
        lines = self.each_array(arrays, lambda a: d.free(self.array_var(a), a.elem, where))
        lines.append(f"{var_capacity} = {capacity};")
        return lines + self.each_array(arrays, lambda a: d.allocate(self.array_var(a), a.elem,
                                                                    count, where))

    def _move_records(self, s: P.ApplyUpdates, change: str, moves) -> List[str]:
        """With ``span_moves``: each side's move records (``SlotChange::move_records``) and
        whether the device applies them (not after a re-layout, nor where a move chains),
        their C++ names kept in ``moves`` by side."""
        if not s.span_moves:
            return []
        lines = []
        for side in self._sides(s):
            records, moved = self.names.fresh(f"{side}_moves"), self.names.fresh(f"{side}_moved")
            on_device = self.names.fresh(f"{side}_moves_on_device")
            lines += [f"std::vector<int> {records};", f"int {moved} = 0;",
                      f"const bool {on_device} = !{change}.forward.whole() && "
                      f"{change}.{side}.move_records({records}, {moved});"]
            moves[side] = (records, moved, on_device)
        return lines

    @staticmethod
    def _sides(s: P.ApplyUpdates) -> List[str]:
        """The sides (forward, reverse) with slot arrays the device holds."""
        names = [a.name for a in s.graph + s.edge_props if a.extent == "edges"]
        return [side for side in ("forward", "reverse")
                if any(name.startswith("rev_") == (side == "reverse") for name in names)]

    def _refresh_side(self, s: P.ApplyUpdates, change: str, side: str, arrays, moves) -> List[str]:
        """One side's slot arrays refreshed after a change that laid nothing out again: its
        moves applied on the device where ``moves`` has them, then the slots written besides
        (all written slots otherwise) packed into one transfer and scattered."""
        d, where = self.dialect, self.where(s.loc)
        staging, slots = self.staging(), self.names.fresh(f"{side}_slots")
        written = f"{change}.{side}.slots()"
        lines = []
        if side in moves:
            records, moved, on_device = moves[side]
            lines.append(f"if ({on_device}) {{")
            lines += [INDENT + line for line in d.stage_moves(staging, records, moved, where)]
            lines += [INDENT + line for line in self.each_array(arrays, lambda a, _: (
                d.move_on_device(self.array_var(a), a.elem, staging, where)))]
            lines.append("}")
            written = (f"{on_device} ? {change}.{side}.written_besides_moves() : "
                       f"{change}.{side}.slots()")
        lines.append(f"const std::vector<int> {slots} = {written};")
        lines += d.stage_slots(staging, slots, where)
        return lines + self.each_array(arrays, lambda a, data: d.scatter_to_device(
            self.array_var(a), a.elem, data, staging, where))

    def _apply_to_slack_rows(self, s: P.ApplyUpdates, depth: int) -> List[str]:
        """``ApplyUpdates`` on rows with slack: the batch moves only the rows it touches, and
        the device copies are refreshed at the slots it wrote, packed into one transfer and
        scattered on the device (all of them, reallocated when their length changed, after a
        re-layout), the row bounds at the rows it touched; with ``span_moves``, the moves are applied
        on the device from their records and only the other written slots scattered."""
        d, rows, where = self.dialect, self.slack_rows, self.where(s.loc)
        if s.fused:     # (the plan keeps them apart on rows with slack: refresh_lists)
            raise ValueError("a fused graph update on rows with slack")
        moves = {}

        def after_change(change, carried):
            return (self._move_records(s, change, moves)
                    + self._read_moved_slots(s, change, carried, moves.get("forward", ("",) * 3)[2]))
        lines, change, uploads, _ = self._changed_edges(
            s, "SlackChange", f"{self.graph}, {rows}", "", ".forward", after_change)
        whole = [INDENT + line for line in self.each_array(uploads, lambda array, data: (
            d.copy_to_device(self.array_var(array), array.elem, data, self.count(array), where)))]
        edges = [array for array, _ in uploads if array.extent == "edges"]
        lines.append(f"if ({change}.forward.whole()) {{  // every row laid out again")
        if edges:
            lines.append(f"{INDENT}if ({rows}.capacity != {self.edge_capacity()}) {{")
            lines += [INDENT * 2 + line for line in self._reallocate(edges, f"{rows}.capacity",
                                                                       where)]
            lines.append(f"{INDENT}}}")
        lines += whole + ["} else {"]
        for side in ("forward", "reverse"):     # the changed slots, packed and scattered
            in_side = [(a, data) for a, data in uploads if a.extent == "edges" and
                       (a.name.startswith("rev_") == (side == "reverse"))]
            if in_side:
                lines += [INDENT + line for line in self._refresh_side(s, change, side, in_side,
                                                                       moves)]
        lines += [INDENT + line for line in self._refresh_bounds(
            change, [(a, data) for a, data in uploads if a.extent != "edges"], where)]
        lines.append("}")
        lines += d.synchronize(where)     # the host data may change once the copies are done
        pad = INDENT * depth
        return [f"{pad}{{{self.comment(s.loc)}"] + self._indent(lines, depth + 1) + [f"{pad}}}"]

    def _refresh_bounds(self, change: str, uploads, where: str) -> List[str]:
        """The row starts and ends after a change that laid nothing out again: each side's
        changed rows (``SlotChange::bound_rows``) packed and scattered, the slot count in use
        (``offsets[n]``) written apart, instead of four n-long uploads per update (a batch
        touches a few thousand rows of Kronecker 18's 262 k); any other array whole."""
        d, lines = self.dialect, []
        for side, (start, end) in _SIDE_BOUNDS:
            bounds = [(a, data) for a, data in uploads if a.name in (start, end)]
            if not bounds:
                continue
            rows = self.names.fresh(f"{side}_rows")
            lines.append(f"const std::vector<int> {rows} = {change}.{side}.bound_rows();")
            lines += d.stage_slots(self.staging(), rows, where)
            for array, data in bounds:
                lines += d.scatter_to_device(self.array_var(array), array.elem, data,
                                             self.staging(), where)
                if array.name == start:
                    n = f"{self.graph}.num_nodes"
                    lines += d.write_element(self.array_var(array), array.elem, HostValue(n),
                                             HostValue(f"{data}[{n}]"), where)
        rest = self.each_array([(a, data) for a, data in uploads if a.name not in ROW_BOUNDS],
                               lambda array, data: d.copy_to_device(
                                   self.array_var(array), array.elem, data, self.count(array),
                                   where))
        return lines + rest

    def _rebuilt_weights(self, param: ir.Symbol) -> List[str]:
        """The host vector of the input weights ``param`` read from a rank's rebuilt rows."""
        elem = self.dialect.storage_type(param.type.elem)
        return [f'starc::assign_edge_weights<{elem}>({self._host_vectors[param.uid]}, '
                f'{self.graph}, "{param.name}", "{param.type}");']

    def _apply_on_ranks(self, s: P.ApplyUpdates, depth: int) -> List[str]:
        """``ApplyUpdates`` on a distributed graph: each rank applies the batch to the rows it
        owns and lays its part out again (the dialect's ``rebuild_part``); the per-vertex
        arrays of its local index space follow (``carry_local``), input edge weights are
        those of the rebuilt rows, the edge properties kernels write are carried to their
        edges' new slots (``carry_edges``), and the graph's arrays are the rebuilt ones."""
        d, where = self.dialect, self.where(s.loc)
        change, lines, parts = self.names.fresh("change"), [], []
        for kind in s.kinds:    # (fused: the deletions and the additions in one rebuild)
            part = self.names.fresh("part")
            lines.append(f"const starc::BatchPart {part} = "
                         f"{self._part(kind, s.stream, s.first, s.last)};")
            parts.append((part, _KIND_CHAR[kind]))
        read_back = {a.name for a in s.read_back}
        # input weights come with the rebuilt rows; what kernels write is carried by slot
        carried = [a for a in s.edge_props if a.role != "weight" or a.name in read_back]
        lines += d.rebuild_part(change, parts, in_place=not carried)
        for array in s.local_arrays:
            lines += d.carry_local(self.array_var(array), array.elem, change)
        uploads, moves = [], []
        for sym in s.host_weights:      # only the host reads them (minWt, maxWt)
            lines += self._rebuilt_weights(sym)
        for array in s.edge_props:
            param = next((p for p in self._weight_params if p.uid == array.sym.uid), None)
            vector = None
            if param is not None:   # the rebuilt rows' input weights (an added edge's)
                vector = self._host_vectors[param.uid]
                lines += self._rebuilt_weights(param)
            if array in carried:
                moves.append((array, vector))
            else:
                uploads.append((array, f"{vector}.data()"))
        # (grown first: a carry raises the capacity the other edge arrays compare with)
        lines += self._grow_edge_arrays([array for array, _ in uploads], where)
        for array, vector in moves:
            lines += d.carry_edges(self.array_var(array), array.elem, change,
                                   self.edge_capacity(), vector)
        uploads += [(array, self.graph_array_data(array)) for array in s.graph]
        for array, data in uploads:
            lines += d.copy_to_device(self.array_var(array), array.elem, data,
                                      self.count(array), where)
        pad = INDENT * depth
        return [f"{pad}{{{self.comment(s.loc)}"] + self._indent(lines, depth + 1) + [f"{pad}}}"]
