"""Neighbour and vertex loops of a kernel body to C text: row scans, sorted ranges, edge
cursors, merges and vector directives.

A mixin of ``c_statements.CPrinter``, which gives it the statement printer it calls back
(``block``, ``_line``, ``_braced``, ``comment``) and the state the loops share with the
expressions (``_cursors``, ``_merged``: ``c_expressions``).
"""

from __future__ import annotations

import dataclasses
from typing import List, Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir

__all__ = ["EnclosingLoop", "NeighbourLoopPrinter"]


def _mentions(loop: ir.Loop, sym: ir.Symbol) -> bool:
    """``loop``'s body or filter reads ``sym``."""
    parts = (loop.body,) if loop.filter is None else (loop.body, loop.filter)
    return any(isinstance(x, ir.VarRef) and x.sym == sym for part in parts
               for x in ir.walk(part))


@dataclasses.dataclass
class EnclosingLoop:
    """A loop of the kernel body being printed: its depth, and the lines of inner loops that
    go before it (their sorted-range searches: ``RowScan.hoist``)."""

    depth: int
    hoisted: List[str] = dataclasses.field(default_factory=list)


class NeighbourLoopPrinter:
    """The loop statements of ``CPrinter`` (see the module docstring)."""

    def _stmt_Loop(self, s: ir.Loop, depth: int):
        frame = EnclosingLoop(depth)
        self._enclosing.append(frame)
        try:
            prologue, loop = self._loop(s, depth)
        finally:
            self._enclosing.pop()
        # then what inner loops compute the same at every iteration of this one
        return prologue + frame.hoisted + loop

    def _loop(self, s: ir.Loop, depth: int) -> Tuple[List[str], List[str]]:
        """The lines before the loop (its bounds, cursors) and the loop itself."""
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
            ends_array = "targets" if forward else "rev_sources"   # passed only if read
            of = self.expr(dom.of)
            if not isinstance(dom.of, (ir.VarRef, P.KernelScalar)):
                of_name = self.ctx.names.fresh(f"{var}_of")
                prologue = [self._line(depth, f"int {of_name} = {of};")]
                of = of_name
            if forward:
                pos = self.ctx.names.bind(dom.edge)
            else:
                pos = self.ctx.names.fresh(f"{var}_in")
            begin, end = self.ctx.row_bounds(forward, of)
            scan = self.ctx.kernel.row_scan(s.var) or P.RowScan(s.var)
            start = next((b for b in scan.bounds if b.side == "start"), None)
            if scan.bounds:
                # tc's w > v over v's row inside the loop over u: searched once per v
                outer = self._enclosing[-1 - scan.hoist] if scan.hoist else None
                bounds, begin, end = self._sorted_range(
                    scan.bounds, var, self.ctx.graph_array(ends_array), begin, end, s,
                    depth if outer is None else outer.depth)
                if outer is None:
                    prologue += bounds
                else:
                    outer.hoisted += bounds
            cursors = dict(scan.cursors)
            hoists = scan.cursor_hoists or (0,) * len(scan.cursors)
            for (row, query), hoist in zip(scan.cursors, hoists):
                outer = self._enclosing[-1 - hoist] if hoist else None
                prologue += self._edge_cursor(s.var, var, row, query, start, depth, outer)
            if isinstance(dom, ir.InNeighbors) and dom.descending:   # no cursor here
                head = f"for (int {pos} = {end} - 1; {pos} >= {begin}; {pos}--)"
            else:
                stop = f"{pos} < {end}"
                exhausted = scan.exhausted
                if exhausted is not None:
                    # The body only acts on an edge u -> w: once the cursor has passed u's
                    # last id, no later (larger) w is one, so the loop stops there.
                    cursor, cursor_end = self._cursors[(s.var, exhausted)]
                    stop += f" && {cursor} < {cursor_end}"
                    if s.var != self.strided and s.var not in self.vector:
                        merge = self._merge(s.var, exhausted, begin, end, depth)
                        prologue.append(merge)
                if s.var == self.strided:
                    head = (f"for (int {pos} = {begin} + starc_lane; {stop}; "
                            f"{pos} += starc_lanes)")
                else:
                    head = f"for (int {pos} = {begin}; {stop}; {pos}++)"
            prologue_inner = []
            # Declared only when read: a loop that only counts (or whose filter became its
            # range) would leave an unused variable, an error in warnings-as-errors builds.
            if _mentions(s, s.var) or self._scans_read(s, s.var):
                ends = self.ctx.graph_array(ends_array)
                prologue_inner.append(
                    self._line(inner, f"int {var} = {self.d.index(ends, pos)};"))
            if not forward and _mentions(s, dom.edge):
                edge = self.ctx.names.bind(dom.edge)
                rev_ids = self.ctx.graph_array("rev_edge_ids")
                prologue_inner.append(
                    self._line(inner, f"int {edge} = {self.d.index(rev_ids, pos)};"))
            merged = self._merged.get(s.var)
            if merged is not None:
                # The merge's step, before the body's queries compare the cursor's id.
                cursor, cursor_end = self._cursors[(s.var, merged[0])]
                prologue_inner += [
                    self._line(inner, self.d.advance(self.ctx.graph_array("targets"), cursor,
                                                     cursor_end, var, merged[1])),
                    self._line(inner, f"if ({cursor} == {cursor_end}) break;")]
            body = self._filtered(s, inner)
            self._merged.pop(s.var, None)
            for row in cursors:
                del self._cursors[(s.var, row)]
            # (the directive right above the loop: hoisted searches come between the two)
            return prologue, self._vector_directive(s.var, depth) + \
                self._braced(head, prologue_inner + body, depth)
        else:
            self.d.missing(f"a loop over {type(dom).__name__} inside a kernel", s.loc)
        return prologue, self._braced(head, self._filtered(s, inner), depth)

    def _scans_read(self, loop: ir.Loop, sym: ir.Symbol) -> bool:
        """Whether the row scan of a loop inside ``loop`` reads ``sym``: a filter that became
        a searched range (``w > u``: u's value is the search's key) or a cursor into
        ``sym``'s row is no longer in the body that ``_mentions`` reads."""
        inner = {n.var for n in ir.walk(loop.body) if isinstance(n, ir.Loop)}
        for scan in self.ctx.kernel.row_scans:
            if scan.var not in inner:
                continue
            values = [b.value for b in scan.bounds] + [query for _, query in scan.cursors]
            if any(row == sym for row, _ in scan.cursors) or any(
                    isinstance(x, ir.VarRef) and x.sym == sym
                    for value in values for x in ir.walk(value)):
                return True
        return False

    def _vector_directive(self, var: ir.Symbol, depth: int) -> List[str]:
        """The dialect's directive before a loop the gang's lanes share (none for others)."""
        shared = self.vector.get(var)
        if shared is None:
            return []
        names = [(op, self.accumulators[sym.uid].name if sym.uid in self.accumulators
                  else self.ctx.names.lookup(sym)) for op, sym in shared.reductions]
        return [self._line(depth, self.d.vector_loop(names))]

    def _sorted_range(self, bounds, var: str, ends: str, begin: str, end: str,
                      s: ir.Loop, depth: int) -> Tuple[List[str], str, str]:
        """Binary searches for the run of a sorted CSR row that passes the loop's bounds
        (``RowScan.bounds``): the lines declaring them and the loop's new begin and end."""
        lines: List[str] = []
        for bound in bounds:
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
                     query: ir.GraphQuery, start, depth: int, outer=None) -> List[str]:
        """Declares the cursor answering the loop's edge queries (row, var): u's row
        (``offsets`` is read here, before the loop), from the loop's ``start`` bound when
        the loop has one (every w queried passes it, so no id before it is an answer: ordered
        triangle counting skips u's lower neighbours in one search instead of a gallop per
        u); registers it for the body. With ``outer`` (the enclosing loop's frame, from
        ``RowScan.cursor_hoists``) that search runs before that loop, and the cursor starts
        at its result."""
        u = self.expr(ir.VarRef(row, type=row.type))
        pos = self.ctx.names.fresh(f"{var}_in_{u}_pos")
        end = self.ctx.names.fresh(f"{var}_in_{u}_end")
        self._cursors[(loop_var, row)] = (pos, end)
        first, row_end = self.ctx.row_bounds(True, u)
        at = depth if outer is None or start is None else outer.depth
        lines = [self._line(at, f"int {end} = {row_end};")]
        if start is not None:
            helper = "starc_upper_bound" if not start.inclusive else "starc_lower_bound"
            first = (f"{helper}({self.ctx.graph_array('targets')}, {first}, {end}, "
                     f"{self.expr(start.value)})")
        if at == depth:
            return lines + [self._line(depth, f"int {pos} = {first};{self.comment(query)}")]
        searched = self.ctx.names.fresh(f"{var}_in_{u}_first")
        outer.hoisted += lines + [self._line(at, f"int {searched} = {first};"
                                                 f"{self.comment(query)}")]
        return [self._line(depth, f"int {pos} = {searched};")]

    def _merge(self, loop_var: ir.Symbol, row: ir.Symbol, begin: str, end: str,
               depth: int) -> str:
        """Makes the loop over ``loop_var`` (``RowScan.exhausted`` on ``row``: it only acts on
        edges to ``row``) a merge of its run [begin, end) with the cursor's row: each iteration
        first advances the cursor (``starc_advance``), so the body's queries compare one id.
        Returns the line deciding, per loop, whether the cursor steps linearly or gallops."""
        cursor, cursor_end = self._cursors[(loop_var, row)]
        linear = self.ctx.names.fresh(f"{cursor.removesuffix('_pos')}_linear")
        self._merged[loop_var] = (row, linear)
        return self._line(depth, f"const int {linear} = starc_merge_linear({cursor}, "
                                 f"{cursor_end}, {end} - {begin});")

    def _filtered(self, s: ir.Loop, depth: int) -> List[str]:
        if s.filter is None:
            return self.block(s.body, depth)
        return self._braced(f"if ({self.expr(s.filter)})", self.block(s.body, depth + 1),
                            depth)

    # --- lowered statements -------------------------------------------------------------------
