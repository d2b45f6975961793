"""Lane structures and folds shared by the vectorised kernels (see ``vectorize``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from starc.ir.types import Scalar, is_integer
from starc.reference.values import normalizer, numpy_dtype

__all__ = ["LANE_LIMIT", "NotVectorizable", "Frame", "Sel", "Run", "Access", "full",
           "segments", "segmented_fold", "scalar_fold"]

LANE_LIMIT = 1 << 21       # inner-loop lanes materialised at once (larger loops go in chunks)


class NotVectorizable(Exception):
    pass


# --- run-time lane structures -----------------------------------------------------------------

class Frame:
    """The lanes of one loop level: ``up`` maps each lane to its parent frame's lane."""

    __slots__ = ("depth", "n", "parent", "up", "vars", "run")

    def __init__(self, depth, n, parent, up, run):
        self.depth, self.n, self.parent, self.up, self.run = depth, n, parent, up, run
        self.vars: Dict[int, np.ndarray] = {}

    def compress(self, mask: np.ndarray) -> "Frame":
        frame = Frame(self.depth, int(mask.sum()), self.parent,
                      None if self.up is None else self.up[mask], self.run)
        frame.vars = {slot: values[mask] for slot, values in self.vars.items()}
        return frame


class Sel:
    """A subset of a frame's lanes (``idx`` ascending, or None for all of them)."""

    __slots__ = ("frame", "idx", "size", "_cache")

    def __init__(self, frame: Frame, idx: Optional[np.ndarray]):
        self.frame, self.idx = frame, idx
        self.size = frame.n if idx is None else idx.size
        self._cache = {}

    @property
    def run(self):
        return self.frame.run

    def lanes_at(self, depth: int) -> Optional[np.ndarray]:
        """Indices into the lanes of the enclosing frame at ``depth`` (None: all, same frame)."""
        if depth == self.frame.depth:
            return self.idx
        if depth in self._cache:
            return self._cache[depth]
        lanes, frame = self.idx, self.frame
        while frame.depth > depth:
            lanes = frame.up if lanes is None else frame.up[lanes]
            frame = frame.parent
        self._cache[depth] = lanes
        return lanes

    def owners(self) -> np.ndarray:
        lanes = self.lanes_at(0)
        return np.arange(self.size) if lanes is None else lanes

    def frame_at(self, depth: int) -> Frame:
        frame = self.frame
        while frame.depth > depth:
            frame = frame.parent
        return frame

    def subset(self, mask) -> "Sel":
        positions = np.flatnonzero(mask)
        return Sel(self.frame, positions if self.idx is None else self.idx[positions])


class Run:
    """One execution of a kernel: the env, deferred writes and the BFS levels."""

    def __init__(self, env, view, level):
        self.env, self.view, self.level = env, view, level
        self.scalar_records: List[tuple] = []   # (slot, op, scalar, owners, values)
        self.shared_records: List[tuple] = []   # (kind, slot, op, seq, targets, values, owners)
        self.mm_records: List[tuple] = []       # (seq, targets, candidates, secondaries, owners)


def full(value, size: int) -> np.ndarray:
    value = np.asarray(value)
    return np.broadcast_to(value, (size,)) if value.ndim == 0 else value


# --- folds ----------------------------------------------------------------------------------

_UFUNC = {"+": np.add, "-": np.subtract, "*": np.multiply}


def segmented_fold(op: str, scalar: Scalar, init: np.ndarray, starts: np.ndarray,
                   counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``init[i] op values[starts[i]] op values[starts[i]+1] ...`` per segment, evaluated in
    order with the C semantics of ``scalar`` (integers wrap; floating point rounds per step)."""
    dtype = numpy_dtype(scalar)
    if op in ("Min", "Max"):
        ufunc = np.fmin if op == "Min" else np.fmax
        return ufunc(init, ufunc.reduceat(values, starts))
    if scalar is Scalar.BOOL:
        ufunc = np.logical_and if op == "&" else np.logical_or
        return ufunc(init, ufunc.reduceat(values, starts))
    if is_integer(scalar):
        if op in ("&", "|"):
            ufunc = np.bitwise_and if op == "&" else np.bitwise_or
            return ufunc(init, ufunc.reduceat(values, starts))
        wide = values.astype(np.int64)
        if op == "*":
            total = init.astype(np.int64) * np.multiply.reduceat(wide, starts)
        else:
            sums = np.add.reduceat(wide, starts)
            total = init.astype(np.int64) + (sums if op == "+" else -sums)
        return total.astype(dtype)
    # floating point: one step per position, longest segments first, exactly sequential
    ufunc = _UFUNC[op]
    order = np.argsort(-counts, kind="stable")
    sorted_counts, sorted_starts = counts[order], starts[order]
    acc = init[order].astype(dtype)
    active = np.searchsorted(-sorted_counts, -np.arange(int(sorted_counts[0])), side="left")
    for step, k in enumerate(active.tolist()):
        acc[:k] = ufunc(acc[:k], values[sorted_starts[:k] + step])
    result = np.empty_like(acc)
    result[order] = acc
    return result


def segments(anchors: np.ndarray):
    """Unique anchors (non-decreasing input), their first positions and counts."""
    uniq, starts, counts = np.unique(anchors, return_index=True, return_counts=True)
    return uniq, starts, counts


def scalar_fold(op: str, scalar: Scalar, init, values: np.ndarray):
    dtype = numpy_dtype(scalar)
    if values.size == 0:
        return init
    if scalar is Scalar.BOOL:
        return bool(init and values.all()) if op == "&" else bool(init or values.any())
    if is_integer(scalar):
        norm = normalizer(scalar)
        if op == "&":
            return norm(int(np.bitwise_and.reduce(values.astype(np.int64), initial=init)))
        if op == "|":
            return norm(int(np.bitwise_or.reduce(values.astype(np.int64), initial=init)))
        if op == "*":
            product = init
            for value in values.astype(np.int64).tolist():
                product = norm(product * value)
            return product
        total = int(np.add.reduce(values.astype(np.int64)))
        return norm(init + total if op == "+" else init - total)
    seq = np.concatenate([np.array([init], dtype=dtype), values.astype(dtype)])
    return _UFUNC[op].accumulate(seq)[-1].item()


@dataclass
class Access:
    key: tuple
    kind: str            # read, own, acc, red, racy, mm, mmsec, sred
    index: str           # own, nbr, other, local
    path: Tuple[int, ...]
    stmt: int


