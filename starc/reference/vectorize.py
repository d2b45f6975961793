"""Vectorised kernels: a forall over all vertices, or one BFS level, run with numpy at once.

A kernel evaluates the loop body for all active vertices ("lanes") together; an inner
neighbour loop expands to one lane per edge (nested loops nest further), and statements run
on lane subsets (``if``). It is used only where the result equals that of the closure
interpreter under some legal order of the iterations (LANGUAGE.md §6: forall iterations may run
in any order); everything else falls back to the closure interpreter. The static rules
(``KernelCompiler.check``) and why each case is legal:

* **Own writes** (``v.p = e``, ``v.p op= e``, ``Min`` on ``v.p`` where ``v`` is the loop
  variable) write only the lane's own element. When every read of such a property is at the
  lane's own index (or, in a BFS body, at a BFS parent/child, which is in another level and
  not written by this level), iterations do not observe one another: any order gives the
  same result, in particular the ascending one.
* **Accumulation into an outer lane** from an inner loop (``sum = sum + x``, ``v.p += x``,
  ``v.p = Min(v.p, x)``, a plain ``v.p = x`` where the last iteration wins) is a fold over the
  inner iterations, computed segment-wise *in iteration order* (floating-point folds step
  through the segments one position at a time, so rounding is exactly the sequential one).
  The target may not be touched otherwise inside that inner loop.
* **Scalar reductions** (``s += e`` on a scalar declared outside the kernel, never read in
  it) are folded in ascending lane order (exactly the sequential order when the scalar is
  reduced at one loop depth; otherwise a reordering that §6 allows for reductions).
* **Reductions on other elements** (``w.p += e``) of a property never read in the kernel
  commute with everything in it: applied in lane order with ``ufunc.at``.
* **Plain writes to other elements** (a data race, warned by sema) of a property never read
  in the kernel: applied in sequential order, the last write wins.
* **Min/Max on other elements** (strategy M, forall only): one primary property ``p``, read
  only at the lane's own index; all updates are computed from the values before the loop.
  This equals the sequential order sigma that runs vertices by descending old ``p`` (Min;
  ascending for Max), ties by id, provided every *effective* update ``u -> x`` (candidate
  better than old ``x``) of a vertex ``x`` that reads ``p`` has ``x`` before ``u`` in sigma:
  then every vertex reads its old value, an update is effective in sigma iff it is better
  than the running best, and the final value and secondary targets are those of the first
  update in sigma achieving the best candidate. This is checked at run time; when it fails
  (e.g. negative weights, an improving self-loop) the loop is re-run by the interpreter.
* **Reductions on other elements that are read** (strategy H, forall only; e.g. k-core's
  ``w.degree -= 1`` with ``v.degree`` read): evaluated with the values before the loop, the
  lanes that perform no such reduction ("pure" lanes) behave as if run first in the order;
  their effects are kept, the others ("writer" lanes) are undone and re-run one by one by
  the interpreter, in ascending order, after them.
"""

from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from starc.ir import nodes as ir
from starc.reference.kernelcompiler import KernelCompiler
from starc.reference.lanes import Frame, NotVectorizable, Run, Sel, full, scalar_fold

__all__ = ["compile_node_loop", "compile_bfs_bodies", "Kernel"]

class Kernel:
    """A compiled vectorised loop; ``run`` returns False when the interpreter must run it."""

    def __init__(self, compiler: "KernelCompiler", var_slot: int, filt, body) -> None:
        self.c = compiler
        self.view = compiler.view
        self.var_slot = var_slot
        self.filter = filt
        self.body = body

    def run(self, env, layer, iteration) -> bool:
        c, view = self.c, self.view
        level = env[c.bfs_slot].level if c.bfs_slot is not None else None
        run = Run(env, view, level)
        if layer is None:
            lanes = np.arange(view.num_nodes, dtype=np.int32)
        else:
            lanes = layer.astype(np.int32)
        frame = Frame(0, lanes.size, None, None, run)
        frame.vars[self.var_slot] = lanes
        all_vertices = lanes
        with np.errstate(all="ignore"):
            if self.filter is not None and frame.n:
                mask = full(self.filter(Sel(frame, None)), frame.n).astype(bool)
                frame = frame.compress(mask)
            vertices = frame.vars[self.var_slot]
            snapshot = None
            if c.mm or c.h_storages:
                snapshot = {slot: env[slot].copy() for slot in c.own_storages}
            if frame.n:
                self.body(Sel(frame, None))
            writers = None
            if c.mm:
                readers = all_vertices if c.filter_reads_primary else vertices
                if not self._finish_mm(run, vertices, readers):
                    for slot, saved in snapshot.items():
                        env[slot][...] = saved
                    return False
            if c.h_storages:
                owners = [rec[6] for rec in run.shared_records if rec[1] in c.h_storages]
                if owners:
                    writers = np.unique(np.concatenate(owners))
                    if writers.size == 0:
                        writers = None
            self._finish_shared(run, writers)
            self._finish_scalars(run, writers)
        if writers is not None:
            restore = vertices[writers]
            for slot, saved in snapshot.items():
                env[slot][restore] = saved[restore]
            for v in restore.tolist():
                iteration(env, v)
        return True

    # -- deferred writes ----------------------------------------------------------------------
    @staticmethod
    def _keep(owners: np.ndarray, writers: Optional[np.ndarray]) -> Optional[np.ndarray]:
        if writers is None:
            return None
        return ~np.isin(owners, writers)

    def _finish_scalars(self, run: Run, writers) -> None:
        by_slot: Dict[int, list] = {}
        for record in run.scalar_records:
            by_slot.setdefault(record[0], []).append(record)
        for slot, records in by_slot.items():
            scalar = records[0][2]
            values = np.concatenate([r[4] for r in records])
            ops = np.concatenate([np.full(r[4].size, r[1]) for r in records])
            owners = np.concatenate([r[3] for r in records])
            keep = self._keep(owners, writers)
            if keep is not None:
                owners, values, ops = owners[keep], values[keep], ops[keep]
            if len(records) > 1:
                # Records come statement by statement; a stable sort by iteration restores
                # the sequential order (statement order within one iteration).
                order = np.argsort(owners, kind="stable")
                values, ops = values[order], ops[order]
            run.env[slot] = _fold_runs(ops, scalar, run.env[slot], values)

    def _finish_shared(self, run: Run, writers) -> None:
        h = self.c.h_storages
        groups: Dict[tuple, list] = {}
        for record in run.shared_records:
            kind, slot, op = record[0], record[1], record[2]
            if kind == "red" and writers is not None and slot in h:
                continue                    # writer lanes redo these; pure lanes have none
            groups.setdefault((kind, slot, op), []).append(record)
        for (kind, slot, op), records in groups.items():
            owners = np.concatenate([r[6] for r in records])
            seqs = np.concatenate([np.full(r[6].size, r[3]) for r in records])
            targets = np.concatenate([r[4] for r in records])
            values = np.concatenate([r[5] for r in records])
            keep = self._keep(owners, writers)
            if keep is not None:
                owners, seqs, targets, values = owners[keep], seqs[keep], targets[keep], values[keep]
            if len(records) > 1:
                order = np.lexsort((seqs, owners))
                targets, values = targets[order], values[order]
            array = run.env[slot]
            if kind == "racy":
                rev_targets = targets[::-1]
                uniq, first = np.unique(rev_targets, return_index=True)
                array[uniq] = values[::-1][first]
            else:
                _apply_at(array, op, targets, values)

    def _finish_mm(self, run: Run, vertices: np.ndarray, readers: np.ndarray) -> bool:
        c = self.c
        if not run.mm_records:
            return True
        env = run.env
        primary = env[c.mm_primary]
        old = primary.copy()
        seqs = np.concatenate([np.full(r[1].size, r[0]) for r in run.mm_records])
        targets = np.concatenate([r[1] for r in run.mm_records]).astype(np.int64)
        cands = np.concatenate([r[2] for r in run.mm_records]).astype(primary.dtype)
        owners = np.concatenate([r[4] for r in run.mm_records])
        secondaries = [np.concatenate([r[3][j] for r in run.mm_records])
                       for j in range(len(c.mm_secondaries))]
        is_min = c.mm_func == "Min"
        effective = cands < old[targets] if is_min else cands > old[targets]
        if not effective.any():
            return True
        arrival = np.arange(targets.size)
        sel = np.flatnonzero(effective)
        targets, cands, owners, seqs, arrival = (targets[sel], cands[sel], owners[sel],
                                                 seqs[sel], arrival[sel])
        secondaries = [s[sel] for s in secondaries]
        writers_v = vertices[owners].astype(np.int64)
        # sigma: Min -> descending old value, Max -> ascending; ties by ascending id
        ids = readers.astype(np.int64)
        vertices_all = np.union1d(ids, writers_v)
        keys = old[vertices_all]
        if is_min:
            order = np.lexsort((-vertices_all, keys))[::-1]
        else:
            order = np.lexsort((vertices_all, keys))
        rank = np.full(self.view.num_nodes, -1, dtype=np.int64)
        rank[vertices_all[order]] = np.arange(order.size)
        is_reader = np.zeros(self.view.num_nodes, dtype=bool)
        is_reader[ids] = True
        constrained = is_reader[targets]
        if np.any(rank[targets[constrained]] >= rank[writers_v[constrained]]):
            return False
        cand_key = cands if is_min else _negate(cands)
        order = np.lexsort((arrival, seqs, rank[writers_v], cand_key, targets))
        sorted_targets = targets[order]
        _, first = np.unique(sorted_targets, return_index=True)
        winners = order[first]
        write = env[c.mm_primary]
        write[targets[winners]] = cands[winners]
        for slot, values in zip(c.mm_secondaries, secondaries):
            env[slot][targets[winners]] = values[winners]
        return True


def _negate(values: np.ndarray) -> np.ndarray:
    if np.issubdtype(values.dtype, np.integer):
        return -values.astype(np.int64)
    return -values


def _apply_at(array: np.ndarray, op: str, targets: np.ndarray, values: np.ndarray) -> None:
    if array.dtype == np.bool_:
        ufunc = {"&": np.logical_and, "|": np.logical_or, "+": np.logical_or,
                 "*": np.logical_and}.get(op)
        if ufunc is None:
            raise NotVectorizable
        ufunc.at(array, targets, values.astype(bool))
        return
    ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and,
             "|": np.bitwise_or}[op]
    ufunc.at(array, targets, values.astype(array.dtype))


# --- compilation entry points ------------------------------------------------------------------

def compile_node_loop(fc, loop: ir.Loop) -> Optional[Kernel]:
    mode = "forall" if loop.parallel else "for"
    return _compile(fc, mode, loop.var, loop.filter, loop.body, None)


def compile_bfs_bodies(fc, bfs: ir.IterateBFS, bfs_slot: int):
    forward = _compile(fc, "bfs", bfs.var, bfs.filter, bfs.body, bfs_slot)
    backward = None
    if bfs.reverse is not None:
        backward = _compile(fc, "bfs", bfs.var, bfs.reverse.cond, bfs.reverse.body, bfs_slot)
    return forward, backward


def _compile(fc, mode, var, filt, body, bfs_slot) -> Optional[Kernel]:
    compiler = KernelCompiler(fc, mode, var, bfs_slot)
    try:
        filter_fn = compiler.filter(filt) if filt is not None else None
        body_fn = compiler.stmt(body, 0)
        if not compiler.check():
            return None
    except NotVectorizable:
        return None
    return Kernel(compiler, fc.slot(var), filter_fn, body_fn)


def _fold_runs(ops: np.ndarray, scalar, init, values: np.ndarray):
    """Fold ``values`` into ``init`` in order, each with its own operator: consecutive
    values with the same operator are folded in one vectorised step."""
    if values.size == 0:
        return init
    cuts = np.flatnonzero(ops[1:] != ops[:-1]) + 1
    for start, stop in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [values.size]])):
        init = scalar_fold(str(ops[start]), scalar, init, values[start:stop])
    return init
