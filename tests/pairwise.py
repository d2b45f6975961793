"""pairwise: a small set of cases that covers every pair of values of any two axes (CI time).

A test matrix of programs x backends x schedules x graphs grows as a product; most faults show
with one value of two axes together, so the tests run a covering set of combinations rather
than all of them ("all pairs"): every value of every axis appears, and every pair of values of
any two axes appears in at least one case. Deterministic (greedy over the product, first best
in product order), so a case's id is stable between runs and on every worker of pytest-xdist.
"""

from __future__ import annotations

import itertools
from typing import Iterable, List, Sequence, Tuple

__all__ = ["all_pairs"]


def all_pairs(*axes: Iterable) -> List[Tuple]:
    """Cases (one value per axis, in axis order) covering every pair of values of two axes."""
    values: List[Sequence] = [list(axis) for axis in axes]
    if any(not axis for axis in values):
        return []
    if len(values) < 3:
        return list(itertools.product(*values))
    axis_pairs = list(itertools.combinations(range(len(values)), 2))
    uncovered = {(i, a, j, b) for i, j in axis_pairs
                 for a in range(len(values[i])) for b in range(len(values[j]))}
    candidates = list(itertools.product(*(range(len(axis)) for axis in values)))
    chosen = []
    while uncovered:
        best, best_gain = None, 0
        for case in candidates:
            gain = sum((i, case[i], j, case[j]) in uncovered for i, j in axis_pairs)
            if gain > best_gain:
                best, best_gain = case, gain
        chosen.append(best)
        uncovered -= {(i, best[i], j, best[j]) for i, j in axis_pairs}
    return [tuple(values[k][index] for k, index in enumerate(case)) for case in chosen]
