"""Language rules checked during semantic analysis: definite assignment of scalars (E0401),
plain writes to shared data inside parallel constructs (the ``data-race`` warning) and the
updates of shared data that are no reduction (operators that do not commute, E0402; an update
reading its own target, a reduced scalar read in its forall: ``data-race``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from starc.diagnostics import DiagnosticSink, SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["Flow", "ParallelFrame", "RaceChecker", "RACE_HINT"]

# ``None`` as a state means "unreachable": every variable counts as assigned there.
State = Optional[FrozenSet[int]]

RACE_HINT = "use a reduction (+=, -=, *=, &=, |=, ++, --) or a Min/Max assignment"

#: The class of each update operator: updates of one shared target from the iterations of one
#: parallel construct give one result in every order only when they are all of one class
#: (``+=`` and ``-=`` commute; ``*=`` and ``+=``, or Min and Max, do not).
_COMMUTING = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "Min": "Min", "Max": "Max"}


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
    #: ("scalar" | "prop", uid) -> (operator class, spelling, line) of the first update of a
    #: target these iterations share
    updates: Dict[tuple, Tuple[str, str, int]] = field(default_factory=dict)
    #: targets whose update read the target itself (reported once, at the update)
    self_reads: Set[tuple] = field(default_factory=set)


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

    def check_update(self, target: ir.Expr, op: str, written: str,
                     values: Sequence[ir.Expr], loc: SourceLoc, text: str) -> None:
        """A reduction (``op`` is its operator) or a Min/Max assignment (``Min``/``Max``) of
        ``target`` computing from ``values``. On data other iterations share it is the
        language's atomic update only when every update of the target in that construct
        commutes with it (E0402 otherwise) and its value does not read the target (then it
        is a read and a plain write: a ``data-race`` warning)."""
        frame = self._sharing_frame(target)
        if frame is None:
            return
        key = _key(target)
        cls = _COMMUTING[op]
        first = frame.updates.setdefault(key, (cls, written, loc.line))
        if first[0] != cls:
            self.sink.error("E0402", f"'{text}' is updated with '{written}' here and with "
                                     f"'{first[1]}' at line {first[2]} in "
                                     f"{frame.label}: the two do not commute, so the result "
                                     "would depend on the order the iterations run", loc,
                            hint="update it with one kind of operator per parallel loop "
                                 "('+=' and '-=' mix), or in two loops one after the other")
        if key not in frame.self_reads and any(_mentions(v, target) for v in values):
            frame.self_reads.add(key)
            self._warn(f"'{written}' on '{text}' reads '{text}' in its value, so it is no "
                       f"reduction: other iterations of {frame.label} may update it between "
                       "the read and the write", loc,
                       hint="compute the value into a local first, or accumulate into a "
                            "local and update the shared target once")

    def _sharing_frame(self, target: ir.Expr) -> Optional[ParallelFrame]:
        """The outermost parallel construct whose iterations all write ``target``, or None
        when it is private to one iteration of the innermost one."""
        if not self.frames:
            return None
        if isinstance(target, ir.VarRef):
            depth = self.depth_of.get(target.sym.uid, 0)
            return self.frames[depth] if depth < self.depth else None
        if not isinstance(target, ir.PropRead) or self._owned(target.index):
            return None
        # v.p inside a forall nested in the one over v: shared by the inner iterations only
        if len(self.frames) > 1 and self._owned_by_outer(target.index):
            return self.frames[1]
        return self.frames[0]

    def check_reduced_scalar_reads(self, frame: ParallelFrame, parts) -> None:
        """A scalar that the iterations of ``frame`` (just left; ``parts``: its filter and
        body) update and that they also read: the value read depends on which other
        iterations ran first."""
        reduced = {uid: (written, line) for (kind, uid), (_, written, line)
                   in frame.updates.items() if kind == "scalar"}
        if not reduced:
            return
        skip: Set[int] = set()
        nodes = [n for part in parts if part is not None for n in ir.walk(part)]
        for node in nodes:
            if isinstance(node, (ir.Reduce, ir.MinMaxAssign)) and \
                    isinstance(node.target, ir.VarRef) and node.target.sym.uid in reduced:
                skip.add(id(node.target))
                if _key(node.target) in frame.self_reads:    # reported at the update
                    value = node.value if isinstance(node, ir.Reduce) else node.candidate
                    skip.update(id(n) for n in ir.walk(value))
        warned: Set[int] = set()
        for node in nodes:
            if isinstance(node, ir.VarRef) and node.sym.uid in reduced and \
                    id(node) not in skip and node.sym.uid not in warned:
                warned.add(node.sym.uid)
                written, line = reduced[node.sym.uid]
                self._warn(f"'{node.sym.name}' is read in {frame.label} whose iterations "
                           f"also update it ('{written}' at line {line}): the value read "
                           "depends on the order the iterations run", node.loc,
                           hint="read it after the loop, or keep a per-iteration value in a "
                                "local")

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

    def _owned_by_outer(self, index: ir.Expr) -> bool:
        if not isinstance(index, ir.VarRef):
            return False
        outer = self.frames[0]
        uid = self.edge_alias.get(index.sym.uid, index.sym.uid)
        return index.sym == outer.var or uid in outer.owned_edges

    def _warn(self, message: str, loc: SourceLoc, hint: str = RACE_HINT) -> None:
        self.sink.warning("data-race", message, loc, hint=hint)


def _key(target: ir.Expr) -> tuple:
    if isinstance(target, ir.VarRef):
        return ("scalar", target.sym.uid)
    return ("prop", target.prop.uid)


def _mentions(expr: ir.Expr, target: ir.Expr) -> bool:
    """Whether ``expr`` reads ``target``'s variable, or its property at the same index."""
    for node in ir.walk(expr):
        if isinstance(target, ir.VarRef) and isinstance(node, ir.VarRef) and \
                node.sym == target.sym:
            return True
        if isinstance(target, ir.PropRead) and node == target:
            return True
    return False
