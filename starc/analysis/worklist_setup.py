"""A data-driven fixedPoint's worklist state (stamps, length, next flags), set up on its first run.

``control.expand_worklist`` prints it before the loop; ``frontier_seed.update_seed`` before a
batch's update kernel that appends the loop's first queue: one set-up, two places, hence its
own module (``frontier_seed`` cannot import ``control``, which imports ``frontier`` lazily).
"""

from __future__ import annotations

from typing import Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["ROUND_LIMIT", "first_run", "first_run_fills"]

#: a round count a worklist kept across its runs starts again (its stamps refilled) past this
ROUND_LIMIT = 1 << 30


def first_run(w: P.Worklist, following: P.DeviceArray, loc, seed: bool = False) -> P.HostIf:
    """``if (round == 0 || round > LIMIT) { fill stamp = -1;  fill size = 0;  fill next =
    False;  round = 0; }``: the worklist state of a fixedPoint that runs many times, set up on
    its first run (and when its round count grows past the limit); ``following`` is the loop's
    next flags, and the seed's flag fill (``w.fill``) joins them (``expand_worklist``).
    ``seed``: the copy before an update kernel's ``round += 1`` (``frontier_seed``) tests
    ``round >= LIMIT``, so that the loop's own test after that seed never holds (it would
    empty the seeded queue)."""
    rounds = ir.VarRef(w.round, type=Scalar.INT, loc=loc)
    fills = first_run_fills(w, following, loc)
    first = ir.Binary("||", ir.Binary("==", rounds, _int(0, loc), type=Scalar.BOOL, loc=loc),
                      ir.Binary(">=" if seed else ">", rounds, _int(ROUND_LIMIT, loc),
                                type=Scalar.BOOL, loc=loc), type=Scalar.BOOL, loc=loc)
    return P.HostIf(first, P.HostBlock(fills + (P.HostAssign(w.round, _int(0, loc), loc=loc),),
                                       loc=loc), None, loc=loc)


def first_run_fills(w: P.Worklist, following: P.DeviceArray, loc) -> Tuple[P.HostStmt, ...]:
    """The fills of ``first_run``: stamps -1, length 0, next flags False (and the seed's)."""
    fills = (P.Fill(w.stamp, _int(-1, loc), loc=loc), P.Fill(w.size, _int(0, loc), loc=loc),
             P.Fill(following, _bool(False, loc), loc=loc))
    if w.fill is not None:      # the seed's flag fill: a later run finds the flags False
        fills = (w.fill,) + fills
    return fills


def _int(value: int, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.INT, loc=loc)


def _bool(value: bool, loc) -> ir.Const:
    return ir.Const(value, type=Scalar.BOOL, loc=loc)
