"""Backend-neutral analyses: kernel outlining, transfers, reductions, fixedPoint and BFS lowering."""

from starc.analysis.dump import plan_dump
from starc.analysis.lower import lower_function

__all__ = ["lower_function", "plan_dump"]
