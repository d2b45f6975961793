"""Language rules checked during semantic analysis: definite assignment of scalars (E0401)
and plain writes to shared data inside parallel constructs (the ``data-race`` warning)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set

from starc.diagnostics import DiagnosticSink, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["Flow", "ParallelFrame", "RaceChecker", "RACE_HINT"]

# ``None`` as a state means "unreachable": every variable counts as assigned there.
State = Optional[FrozenSet[int]]

RACE_HINT = "use a reduction (+=, -=, *=, &=, |=, ++, --) or a Min/Max assignment"


def join(a: State, b: State) -> State:
    """The state where two control-flow paths meet."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


class Flow:
    """Forward "definitely assigned" analysis of local scalars over structured statements.

    Only scalars declared without an initialiser are tracked; parameters, loop variables and
    properties are always assigned. The statement checker drives it in program order."""

    def __init__(self) -> None:
        self.state: State = frozenset()
        self.tracked: Set[int] = set()
        self.reported: Set[int] = set()

    def declare(self, sym: ir.Symbol, initialised: bool) -> None:
        if isinstance(sym.type, Scalar) and not initialised:
            self.tracked.add(sym.uid)
            if self.state is not None:
                self.state = self.state - {sym.uid}
        else:
            self.assign(sym)

    def assign(self, sym: ir.Symbol) -> None:
        if self.state is not None:
            self.state = self.state | {sym.uid}

    def read(self, sym: ir.Symbol, loc: SourceLoc, sink: DiagnosticSink) -> None:
        if sym.uid not in self.tracked or self.state is None or sym.uid in self.state:
            return
        if sym.uid in self.reported:
            return
        self.reported.add(sym.uid)
        sink.error("E0401", f"'{sym.name}' is read before it is assigned", loc,
                   hint=f"initialise it where it is declared, e.g. '{sym.type} {sym.name} = 0;'")

    def unreachable(self) -> None:
        self.state = None


@dataclass
class ParallelFrame:
    """A construct whose iterations may run in parallel: a ``forall`` or an iterateInBFS
    body / reverse sweep (``var`` is the loop or BFS variable)."""

    label: str                      # "a forall", "iterateInBFS", "iterateInReverse"
    var: ir.Symbol
    # edge symbols owned by this frame's iterations: the edge of a neighbour loop over ``var``
    owned_edges: Set[int] = field(default_factory=set)
    edge: Optional[int] = None      # uid of this loop's own edge (a forall over neighbours)


class RaceChecker:
    """Decides whether a plain write inside parallel constructs touches shared data.

    A write is private when it goes to (a) a scalar declared inside the innermost parallel
    construct, or (b) a property element of the loop variable of the only enclosing parallel
    construct, or of the edge of a neighbour loop over that variable (each such edge belongs to
    exactly one iteration). Writing one literal (``x = True``, ``v.flag = False``) to a shared
    scalar or bool property is benign: every thread stores the same value."""

    def __init__(self, sink: DiagnosticSink) -> None:
        self.sink = sink
        self.frames: List[ParallelFrame] = []
        self.depth_of: Dict[int, int] = {}      # symbol uid -> parallel depth at declaration
        self.edge_alias: Dict[int, int] = {}    # local edge uid -> loop edge uid it holds

    @property
    def depth(self) -> int:
        return len(self.frames)

    def declared(self, sym: ir.Symbol) -> None:
        self.depth_of[sym.uid] = self.depth

    def register_edge(self, edge: ir.Symbol, of: ir.Expr) -> None:
        """A neighbour loop over the variable of the only enclosing parallel construct: each
        of its edges belongs to exactly one iteration of that construct."""
        if len(self.frames) == 1:
            frame = self.frames[0]
            if of == ir.VarRef(frame.var, type=frame.var.type):
                frame.owned_edges.add(edge.uid)

    def alias(self, local: ir.Symbol, init: Optional[ir.Expr]) -> None:
        if isinstance(init, ir.VarRef) and init.sym.kind is ir.SymbolKind.EDGE:
            self.edge_alias[local.uid] = init.sym.uid
        else:
            self.edge_alias.pop(local.uid, None)

    def check_write(self, target: ir.Expr, value: Optional[ir.Expr], loc: SourceLoc,
                    constant: bool, text: str) -> None:
        if not self.frames:
            return
        if isinstance(target, ir.VarRef):
            if self.depth_of.get(target.sym.uid, 0) >= self.depth or constant:
                return
            self._warn(f"plain write to '{text}', declared outside {self.frames[-1].label}, "
                       "may race with other iterations", loc)
            return
        if isinstance(target, ir.PropRead):
            if constant and target.type is Scalar.BOOL:
                return
            if self._owned(target.index):
                return
            self._warn(f"plain write to '{text}' inside {self.frames[-1].label}: other "
                       "iterations may write the same element", loc)

    def check_whole_property(self, prop: ir.Symbol, loc: SourceLoc, what: str) -> None:
        if self.frames and self.depth_of.get(prop.uid, 0) < self.depth:
            self._warn(f"{what} of '{prop.name}' inside {self.frames[-1].label} writes every "
                       "element from every iteration", loc)

    def check_reduced_reads(self, var: ir.Symbol, parts, converging: bool = False) -> None:
        """An outermost forall over ``var`` (``parts``: its filter and body) that reads a
        property which its iterations also update on other elements, through a reduction
        (k-core's ``if (v.deg < k) { forall (w ...) { w.deg -= 1; } }`` in one pass) or a
        Min/Max assignment: the value read depends on which other iterations ran first.
        Inside a loop that repeats the forall (``converging``: fixedPoint, while, do-while)
        Min/Max are exempt: a relaxation reading a value another lowered only converges
        faster, and the loop runs until nothing changes."""
        own = ir.VarRef(var, type=var.type)
        updated: Dict[int, ir.Stmt] = {}
        targets: Set[int] = set()
        kinds = (ir.Reduce,) if converging else (ir.Reduce, ir.MinMaxAssign)
        nodes = [n for part in parts if part is not None for n in ir.walk(part)]
        for node in nodes:
            if isinstance(node, ir.MinMaxAssign):     # secondary targets are writes
                targets.update(id(t) for t, _ in node.others)
            if isinstance(node, kinds) and isinstance(node.target, ir.PropRead):
                targets.add(id(node.target))
                if node.target.index != own:
                    updated.setdefault(node.target.prop.uid, node)
        warned: Set[int] = set()
        for node in nodes:
            if isinstance(node, ir.PropRead) and node.prop.uid in updated and \
                    id(node) not in targets and node.prop.uid not in warned:
                warned.add(node.prop.uid)
                update = updated[node.prop.uid]
                how = f"'{update.written}'" if isinstance(update, ir.Reduce) else update.func
                self._warn(f"'{node.prop.name}' is read in a forall whose iterations also "
                           f"update it ({how} at line {update.loc.line}): the value "
                           "read depends on the order the iterations run", node.loc,
                           hint="read it in one forall and update it in a later one, or "
                                "repeat the forall until nothing changes (fixedPoint)")

    def _owned(self, index: ir.Expr) -> bool:
        if not isinstance(index, ir.VarRef):
            return False
        uid = self.edge_alias.get(index.sym.uid, index.sym.uid)
        outer = self.frames[0]
        if len(self.frames) == 1:
            return index.sym == outer.var or uid in outer.owned_edges
        # a forall over the neighbours of the outer variable: its edge is still private
        return len(self.frames) == 2 and uid in outer.owned_edges and self.frames[1].edge == uid

    def _warn(self, message: str, loc: SourceLoc, hint: str = RACE_HINT) -> None:
        self.sink.warning("data-race", message, loc, hint=hint)
