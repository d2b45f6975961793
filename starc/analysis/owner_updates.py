"""A distributed run's loop over a batch's updates: each statement whose node properties are all
at one update endpoint runs on that endpoint's owner only (owner computes).

Every rank runs each update of a batch (``distribution.UPDATE_LOOP_WHY``). A statement that
reads and writes node properties only at one endpoint (``u.source``, ``u.destination``, or a
variable holding one: ``d.gone = True`` under ``if (d.parent == u.source)``) needs no other
vertex's values: ``owner_updates`` guards it by ``RankTable("owns", endpoint)``, so it runs
on the endpoint's owner alone, where the endpoint's values are exact, and those properties
live in the rank's local index space like any other (own vertices, ghosts). The owner then
refreshes the ghost copies of what it wrote where other ranks read them (one superstep after
the loop: ``distribution``). A statement without node properties (``node d = u.source``, a
row loop ``owner_rows`` guards) runs on every rank as before.

A statement that reads or writes node properties at two vertices (both endpoints, a vertex
read from a property), or that also writes something every rank must agree on (a variable
declared outside it, a scalar, a flag), cannot run on one owner: then the whole loop runs
on every rank alike, its node properties full-length replicas, with the reason (``why``,
``loc``) shown by ``starc explain``.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Dict, List, Optional, Set, Tuple

from starc.analysis import plan as P
from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.analysis.local_index import RankTable
from starc.analysis.owner_rows import Endpoints, update_fields
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["OwnerUpdates", "owner_updates", "OWNER_UPDATES_WHY"]

#: why a statement at one update endpoint runs on the endpoint's owner only
OWNER_UPDATES_WHY = ("a statement that reads and writes node properties only at one update "
                     "endpoint needs no other vertex's values, and that endpoint's owner holds "
                     "them exactly, so it runs there alone (owner computes) and those "
                     "properties live in each rank's local index space, not as full-length "
                     "replicas; the owner refreshes their ghost copies after the loop where "
                     "other ranks read them")


@record
class OwnerUpdates(Record):
    """An update kernel with its statements at one endpoint guarded by that endpoint's owner,
    or, where one cannot be (``why``, at ``loc``), the kernel unchanged."""

    kernel: P.Kernel
    #: node properties the guarded statements read or write (all of the kernel's)
    arrays: Tuple[str, ...] = ()
    written: Tuple[str, ...] = ()
    why: str = ""
    loc: object = None
    #: whether a guarded statement may fail a run-time check (then the ranks must agree on
    #: it); an endpoint as an index cannot: the stream reader checked every id
    checks: bool = False

    @property
    def located(self) -> str:
        """``why`` after its file's name and line, or "" where owners compute."""
        if not self.why or self.loc is None:
            return self.why
        return f"{pathlib.PurePath(self.loc.file).name}:{self.loc.line}: {self.why}"


class _NotOwner(Exception):
    def __init__(self, why: str, loc) -> None:
        super().__init__(why)
        self.why = why
        self.loc = loc


def owner_updates(kernel: P.Kernel, plan: P.Plan) -> OwnerUpdates:
    """``kernel`` (a loop over a batch's updates, its row loops already guarded by
    ``owner_rows``) with each statement at one endpoint run by that endpoint's owner only
    (see the module docstring)."""
    nodes = {a.sym.uid: a.name for a in plan.arrays
             if a.sym is not None and a.extent == "nodes" and a.role != "graph"}
    scan = _Owner(kernel, update_fields(plan), nodes)
    try:
        if kernel.guard is not None and scan.accesses(kernel.guard):
            raise _NotOwner("its filter reads a node property", kernel.loc)
        body = scan.block(kernel.body)
    except _NotOwner as exc:
        return OwnerUpdates(kernel, why=exc.why, loc=exc.loc or kernel.loc)
    return OwnerUpdates(dataclasses.replace(kernel, body=body),
                        tuple(dict.fromkeys(scan.arrays)), tuple(dict.fromkeys(scan.written)),
                        checks=scan.checks)


class _Owner(Endpoints):
    def __init__(self, kernel: P.Kernel, fields, nodes: Dict[int, str]) -> None:
        super().__init__(kernel, fields)
        self.nodes = nodes
        self.arrays: List[str] = []
        self.written: List[str] = []
        self.checks = False

    def accesses(self, node: ir.Node) -> List[ir.PropRead]:
        """The node-property elements ``node`` reads or writes."""
        return [n for n in ir.walk(node) if isinstance(n, ir.PropRead) and n.prop.uid in self.nodes]

    def block(self, block: ir.Block) -> ir.Block:
        return dataclasses.replace(block, stmts=tuple(self.stmt(s) for s in block.stmts))

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.Block):
            return self.block(s)
        found = self.accesses(s)
        if not found:
            return s                      # (on every rank: it holds no node property)
        if isinstance(s, ir.If) and not self.accesses(s.cond):
            # a condition every rank evaluates alike: each branch's statements on their own
            return dataclasses.replace(s, then=self.block(s.then),
                                       orelse=None if s.orelse is None else self.block(s.orelse))
        if isinstance(s, ir.Declare):
            # (guarded, its variable would be the owner's alone, and out of scope after it)
            raise _NotOwner("a variable declared from a node property (every rank would need "
                            "its value)", s.loc)
        ends = {self.endpoint(access.index) for access in found}
        if len(ends) != 1 or None in ends:
            bad = next((a for a in found if self.endpoint(a.index) is None), found[0])
            raise _NotOwner(
                f"'{bad.prop.name}' is read or written at a vertex that is not one update "
                "endpoint" if None in ends else
                "a statement reads or writes node properties at both endpoints of an update, "
                "which no one rank owns", bad.loc or s.loc)
        self._check_writes(s)
        (end,) = ends
        self.arrays += [self.nodes[a.prop.uid] for a in found]
        self.checks |= any(isinstance(n, CheckedDivide) or isinstance(n, CheckedIndex)
                           and (n.extent != "nodes" or self.endpoint(n.index) is None)
                           for n in ir.walk(s))
        owns = RankTable("owns", self.reads[end], type=Scalar.BOOL, loc=s.loc)
        return ir.If(owns, ir.Block((s,), loc=s.loc), loc=s.loc)

    def _check_writes(self, s: ir.Stmt) -> None:
        """``s`` may write only node properties (at its endpoint: ``stmt`` checked every
        access) and variables declared inside it: anything else would differ between ranks."""
        inner: Set[int] = {n.sym.uid for n in ir.walk(s) if isinstance(n, ir.Declare)}
        inner |= {n.var.uid for n in ir.walk(s) if isinstance(n, ir.Loop)}
        for node in ir.walk(s):
            if isinstance(node, (P.FlagSet, P.ScalarStore, P.QueueAppend)) or \
                    (isinstance(node, ir.Loop) and isinstance(node.domain, (ir.Neighbors,
                                                                            ir.InNeighbors))):
                raise _NotOwner("a statement at an update endpoint that also sets a flag, a "
                                "scalar, a queue or walks a row", node.loc or s.loc)
            targets: List[Optional[ir.Expr]] = [getattr(node, "target", None)] \
                if isinstance(node, (ir.Assign, ir.Reduce, P.AtomicReduce, P.AtomicMinMax,
                                     ir.MinMaxAssign)) else []
            if isinstance(node, (P.AtomicMinMax, ir.MinMaxAssign)):
                targets += [t for t, _ in node.others]
            for target in targets:
                if isinstance(target, ir.PropRead) and target.prop.uid in self.nodes:
                    self.written.append(self.nodes[target.prop.uid])
                elif not (isinstance(target, ir.VarRef) and target.sym.uid in inner):
                    raise _NotOwner(
                        "a statement at an update endpoint writes something other than the "
                        "endpoint's node properties and its own variables (run on the owner "
                        "alone, it would differ between ranks)", node.loc or s.loc)
