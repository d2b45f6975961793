"""A worklist's sparse rounds in priority order: an entry whose key is past a window waits.

A data-driven fixedPoint whose one kernel pushes ``Min(w.p, v.p + e.weight)`` along edges
(Bellman-Ford with an active set: dsl/sssp.sp; the winner may store more, as
dsl/dynamic/dyn_sssp.sp's parent, under a lock) relaxes every queued vertex each round,
whatever its distance. Most of that work is undone later: on a 512x512 grid with weights
1..100 the rounds process 24 entries a vertex (bench/RESULTS.md, session 60). Delta-stepping
(Meyer and Sanders; GAPBS, Galois and Gunrock's near-far pile) runs the vertices in buckets of
width delta, least first, so a vertex mostly runs once, with its final value.

The sparse round here does the same with no buckets: it runs the entries whose key (``v.p``)
is below the window, the least key its queue holds plus delta, and appends the others again,
flagged, to the next queue (deferred). Min relaxations reach the same fixed point in any order,
and a deferred entry still holds its flag, so the loop ends only when every entry has run
with its last value. The least key comes from the round before: each update that wins, and
each entry deferred, takes an atomic min of its value into a slot (read first: most values
are above it). Three slots rotate with the round number (``WINDOW_SLOTS``): round ``r``
reads slot ``(r + 2) % 3`` (the round before's), takes its mins in slot ``r % 3``, and its
first item clears slot ``(r + 1) % 3`` for the round after, which no item of this round
reads; a slot that no sparse round filled holds INT_MAX, and a window from it lets every entry
run. The host fills the slots with INT_MAX before the loop and before each dense round (the
dense round and the compaction after it take no mins).

Delta is ``WINDOW_SCALE`` times the mean weight over the mean out-degree (Davidson et al.'s
near-far heuristic, "Work-Efficient Parallel GPU Methods for Single-Source Shortest Paths",
2014), from up to 4,096 weights sampled on the host (``WindowDelta``). A NumPy model of the
rounds (``bench/window_model.py``; bench/RESULTS.md, session 62) sets the scale: on a grid,
R-MAT and uniform graphs of scale 18 it takes the work to 1.1, 1.1 and 1.0 entries a vertex (24, 2.3 and 4.8 before),
with 20% more rounds on the grid and 70% more on R-MAT, where a round is cheap.

Built by the ``frontier`` pass where the round qualifies (``window_refusal``). It holds in
every schedule: with one work item an entry, the item appends an entry past the window again;
where a work-group splits its entries' edges (the ``edges`` schedule a lockstep device gets),
the entry's item does so while it sums the entries' work, and gives it none
(``frontier_edges``), so the group walks only the edges of the entries that run.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar

__all__ = ["WINDOW_DELTA", "WINDOW_SCALE", "window_refusal", "windowed_round"]

#: the ``KernelScalar`` of a window's width (a by-value argument of the sparse round)
WINDOW_DELTA = "window_delta"

#: delta = WINDOW_SCALE x mean weight / mean out-degree (the runtime's starc::window_delta)
WINDOW_SCALE = 8

_INTS = (Scalar.INT, Scalar.NODE)


def _at(expr: ir.Expr, index: ir.Symbol) -> bool:
    return isinstance(expr, ir.VarRef) and expr.sym.uid == index.uid


def _key_and_weight(candidate: ir.Expr, index: ir.Symbol, key: ir.Symbol,
                    weights) -> Optional[ir.Symbol]:
    """The weight parameter of ``candidate`` when it is ``key[index] + weight[e]`` (either
    order), else None."""
    if not isinstance(candidate, ir.Binary) or candidate.op != "+":
        return None
    for own, other in ((candidate.left, candidate.right), (candidate.right, candidate.left)):
        if isinstance(own, ir.PropRead) and own.prop.uid == key.uid and \
                _at(own.index, index) and isinstance(other, ir.PropRead) and \
                other.prop.uid in weights:
            return weights[other.prop.uid]
    return None


def window_refusal(kernel: P.Kernel, loop: P.FixedPointLoop,
                   function: ir.Function) -> Tuple[Optional[Tuple[ir.Symbol, ir.Symbol]], str]:
    """``((key, weight), "")`` when the sparse round of ``kernel`` (the loop's one kernel,
    before the worklist rewrite) may defer entries, else ``(None, why not)``."""
    nxt, flag = loop.next.sym, loop.flag
    weights = {p.uid: p for p in function.params
               if isinstance(p.type, PropType) and p.type.kind == "edge"
               and p.type.elem is Scalar.INT}
    key = weight = None
    for node in ir.walk(kernel.body):
        if isinstance(node, P.AtomicMinMax):
            if node.func != "Min":
                return None, f"an update is a {node.func}, not a Min"
            target = node.target
            if not isinstance(target, ir.PropRead) or target.type not in _INTS:
                return None, "a Min's target is not a 32-bit integer property"
            if key is not None and target.prop.uid != key.uid:
                return None, "its Min updates move more than one property"
            key = target.prop
            if any(not (isinstance(s, P.FlagSet) and s.flag == flag) for s in node.then):
                return None, "a Min does more than set the loop's flag"
            found = _key_and_weight(node.candidate, kernel.index, key, weights)
            if found is None or (weight is not None and found.uid != weight.uid):
                return None, (f"a Min's candidate is not '{kernel.index.name}.{key.name}' "
                               "plus an integer edge weight parameter")
            weight = found
        elif isinstance(node, (P.AtomicReduce, P.QueueAppend, P.ScalarStore)):
            return None, "the round does more than Min updates that set the next flag"
        elif isinstance(node, P.FlagSet) and node.flag != flag:
            return None, "the round sets a flag other than the loop's"
        elif isinstance(node, ir.Assign) and not isinstance(node.target, ir.VarRef) and \
                not (isinstance(node.target, ir.PropRead) and node.target.prop.uid == nxt.uid):
            return None, "the round assigns other than by Min"
    if key is None:
        return None, "the round makes no Min update"
    targets = {id(n.target) for n in ir.walk(kernel.body) if isinstance(n, P.AtomicMinMax)}
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.PropRead) and node.prop.uid == key.uid and \
                id(node) not in targets and not _at(node.index, kernel.index):
            return None, f"the round reads '{key.name}' of another vertex"
    return (key, weight), ""


def _slot(slots: P.DeviceArray, rounds: ir.Expr, ahead: int, loc) -> ir.PropRead:
    """Element ``(rounds + ahead) % WINDOW_SLOTS`` of ``slots``."""
    at = rounds if not ahead else ir.Binary("+", rounds, _int(ahead, loc), type=Scalar.INT,
                                            loc=loc)
    index = ir.Binary("%", at, _int(P.WINDOW_SLOTS, loc), type=Scalar.INT, loc=loc)
    return ir.PropRead(slots.sym, index, type=Scalar.INT, loc=loc)


def _int(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)


def _long(expr: ir.Expr) -> ir.Cast:
    return ir.Cast(expr, type=Scalar.LONG, loc=expr.loc)


def windowed_round(tested: ir.If, reset: ir.If, vertex: ir.VarRef, window: P.PriorityWindow,
                   rounds: ir.Expr, nxt: ir.Symbol,
                   push: Callable[[ir.Expr, object], ir.Stmt]) -> Tuple[ir.If, ir.If]:
    """The sparse round's ``if (test of v) {body}`` and its first item's reset, with the
    window: the body only for a key below it, else the entry deferred (next flag set, queued
    again by ``push``); every win and every deferral takes its value's min into this round's
    slot, and the first item clears the next round's."""
    loc = tested.loc
    key = ir.PropRead(window.key, vertex, type=Scalar.INT, loc=loc)
    delta = P.KernelScalar(WINDOW_DELTA, type=Scalar.INT, loc=loc)
    below = ir.Binary("<", _long(key),
                      ir.Binary("+", _long(_slot(window.slots, rounds, 2, loc)), _long(delta),
                                type=Scalar.LONG, loc=loc), type=Scalar.BOOL, loc=loc)

    def record(value: ir.Expr, at=loc) -> P.AtomicMinMax:
        return P.AtomicMinMax("Min", _slot(window.slots, rounds, 0, at), value,
                              read_first=True, loc=at)

    def recorded(node):     # (at the Min's line: the source map sends it there)
        if isinstance(node, P.AtomicMinMax) and isinstance(node.target, ir.PropRead) and \
                node.target.prop.uid == window.key.uid:
            return dataclasses.replace(node, then=node.then + (record(node.target,
                                                                      node.loc),))
        return None
    body = ir.transform(tested.then, recorded)
    flag = ir.PropRead(nxt, vertex, type=Scalar.BOOL, loc=loc)
    defer = ir.Block((ir.Assign(flag, ir.Const(True, type=Scalar.BOOL, loc=loc), loc=loc),
                      push(vertex, loc), record(key)), loc=loc)
    inner = ir.If(below, body, defer, loc=loc)
    clear = ir.Assign(_slot(window.slots, rounds, 1, loc), ir.Inf(type=Scalar.INT, loc=loc),
                      loc=loc)
    reset = dataclasses.replace(reset, then=dataclasses.replace(
        reset.then, stmts=reset.then.stmts + (clear,)))
    return dataclasses.replace(tested, then=ir.Block((inner,), loc=loc)), reset
