"""The worklist form's constants and its queue length's slots (``frontier.py`` re-exports
them), in a module of their own so that the passes ``frontier`` calls (``worklist_rounds``)
and ``bfs_rounds`` read them without importing ``frontier``."""

from __future__ import annotations

from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["DENSE_DIVISOR", "FRONTIER_COUNT", "FRONTIER_ROUND", "length_slot"]

#: A round whose queue holds more than n / DENSE_DIVISOR vertices launches over all vertices
#: (the filtered kernel): then most vertices are active anyway, and a launch in vertex order
#: reads the graph sequentially where queue order scatters. GAPBS switches direction at about
#: n/15 to n/20 active vertices; Gunrock's default frontier-density switch is 5% (1/20).
DENSE_DIVISOR = 20

#: The by-value kernel arguments of the worklist kernels: the queue's length (the launch size
#: of a ``"frontier"`` kernel) and the round number (the stamp an append claims).
FRONTIER_COUNT = "frontier_count"
FRONTIER_ROUND = "frontier_round"


def length_slot(rounds: ir.Expr, following: bool = False) -> ir.Expr:
    """The slot of a worklist's two-slot length that round ``rounds`` (never negative)
    appends to or counts in: ``rounds % 2``; ``following``: the next round's, ``1 - rounds %
    2``, which the round zeroes (``P.QueueReset``; ``control.expand_worklist``)."""
    loc = rounds.loc
    two, one = (ir.Const(k, type=Scalar.INT, loc=loc) for k in (2, 1))
    slot = ir.Binary("%", rounds, two, type=Scalar.INT, loc=loc)
    return ir.Binary("-", one, slot, type=Scalar.INT, loc=loc) if following else slot
