"""The worklist form's constants (``frontier.py`` re-exports them), in a module of their own so
that the passes ``frontier`` calls (``worklist_rounds``) and ``bfs_rounds`` read them without
importing ``frontier``."""

from __future__ import annotations

__all__ = ["DENSE_DIVISOR", "FRONTIER_COUNT", "FRONTIER_ROUND"]

#: A round whose queue holds more than n / DENSE_DIVISOR vertices launches over all vertices
#: (the filtered kernel): then most vertices are active anyway, and a launch in vertex order
#: reads the graph sequentially where queue order scatters. GAPBS switches direction at about
#: n/15 to n/20 active vertices; Gunrock's default frontier-density switch is 5% (1/20).
DENSE_DIVISOR = 20

#: The by-value kernel arguments of the worklist kernels: the queue's length (the launch size
#: of a ``"frontier"`` kernel) and the round number (the stamp an append claims).
FRONTIER_COUNT = "frontier_count"
FRONTIER_ROUND = "frontier_round"
