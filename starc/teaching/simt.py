"""The SIMT lane-efficiency model of ``starc explain --graph G``: how busy the lanes of a warp
are in a kernel's neighbour loop, under each schedule, on one graph.

It is a model, not a measurement (it runs without a GPU). A kernel's lanes run in warps of
``W`` (``--warp-width``, 32 on NVIDIA GPUs); a warp takes as many steps as its busiest lane.
A lane's *work* is the number of iterations of the kernel's outermost neighbour loop for the
vertex it serves: that vertex's out-degree (``g.neighbors``) or in-degree (``g.nodes_to``);
of several such loops one after the other (cc's out- then in-edges, a BFS step's parents and
children), the sum of their degrees (a search that stops at the first edge found counted
whole: an upper bound, as for the vertex schedule). The binned order sorts the vertices by
the degrees of the first loop (a BFS step's parents), as the printed kernels take them.
The efficiency of a kernel is

    useful lane-iterations / (W x sum over warps of the busiest lane's iterations)

with, per schedule (``B`` the work-group size, a multiple of ``W``):

* ``vertex``: lane i serves vertex i; warps are ``W`` consecutive vertices. One hub makes its
  31 neighbours wait for it: on a power-law graph most lanes idle.
* ``binned``: the vertices are sorted into bins by degree. Below ``W`` a vertex gets one lane,
  and the bins are the powers of two (degree 1, 2-3, 4-7, ..., up to ``W - 1``), each packed
  into warps in id order, so the lanes of a warp differ in work by less than twice; a vertex
  of degree ``W`` up to ``B`` gets a whole warp, ``ceil(d/W)`` steps of ``W`` lanes; one of
  degree ``B`` or more a whole work-group, ``ceil(d/B)`` steps of ``B`` lanes. A vertex
  without neighbours is in no bin.
* ``binned-warp``: what a target with sub-groups prints (CUDA, ``analysis.binned``). The
  items take the vertices in the kernel's binned order (``binned_order``: the vertices of
  degree below 32 sorted by degree, in runs of 32, and the heavier ones in id order, in runs
  of 32 spread among them); a vertex of degree below ``W`` keeps its own lane (the lanes of
  heavier vertices idle in that phase); one of degree ``W`` up to ``4B``
  (``binned.GROUP_FROM_WITH_WARPS``) gets its warp, ``ceil(d/W)`` steps of ``W`` lanes; one of
  ``4B`` or more the whole work-group, ``ceil(d/B)`` steps of ``B`` lanes. (Where ``B`` is
  no more than ``W`` there is no warp tier: the group from ``B``.)
* ``binned-group``: what a target without sub-groups prints (OpenCL 1.2): in the same order,
  a vertex of degree below ``B`` keeps its own lane, a heavier one gets the work-group.
* ``gang-vector``: what a target of vector loops prints (OpenACC's binned: ``plan.VectorLoop``):
  every vertex gets a gang whose ``W`` vector lanes share its loop, ``ceil(d/W)`` steps of
  ``W`` lanes (a vertex without neighbours takes none).
* ``edges``: the edges are split evenly over the lanes, one edge per lane and step (each lane
  finds its vertex by a binary search over the row offsets, which the model does not count).
* ``frontier-edges``: a worklist round's ``edges`` (``analysis.frontier_edges``): each
  work-group takes ``B`` entries (here ``B`` consecutive vertices) and walks their ``T`` edges
  ``B`` at a time, ``T // B`` steps of ``B`` lanes, then the warps of the last step that have
  an edge, ``ceil((T mod B) / W)`` of ``W`` lanes (the search for the entry not counted).

A frontier kernel (a worklist's sparse round) is counted over every vertex: an upper bound on
the work of any round. Only the outermost neighbour loop counts; an inner loop's iterations
(triangle counting's second level) are not modelled.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from starc.analysis import plan as P
from starc.analysis.binned import GROUP_FROM_WITH_WARPS, warp_from
from starc.analysis.schedules import over_updates
from starc.ir import nodes as ir

__all__ = ["SCHEDULES", "lane_efficiency", "efficiencies", "kernel_rows", "model_schedule",
           "binned_order"]

#: the schedules the model knows, in the order ``explain`` lists them
SCHEDULES = ("vertex", "binned", "binned-warp", "binned-group", "gang-vector", "edges",
             "frontier-edges")


def _warp_maxima(work: np.ndarray, width: int) -> int:
    """Sum over warps of ``width`` consecutive lanes of the busiest lane's work."""
    if work.size == 0:
        return 0
    padded = np.zeros(-(-work.size // width) * width, dtype=np.int64)
    padded[:work.size] = work
    return int(padded.reshape(-1, width).max(axis=1).sum())


def lane_efficiency(degrees: np.ndarray, schedule: str, width: int = 32,
                    block: int = 256, order_by=None) -> Optional[float]:
    """The model's efficiency (0..1) of a neighbour loop whose lane work is ``degrees`` (one
    per vertex, in id order) under ``schedule``; None when there is no work at all (0/0: a
    graph without edges says nothing about a schedule).
    ``order_by``: the degrees the binned order sorts by, where not the work (a binned body of
    several loops is ordered by its first loop's: ``CooperativeLoop.order``)."""
    if schedule not in SCHEDULES:
        raise ValueError(f"no schedule named {schedule!r} (one of {', '.join(SCHEDULES)})")
    work = np.asarray(degrees, dtype=np.int64)
    useful = int(work.sum())
    if useful == 0:
        return None
    if schedule == "vertex":
        slots = width * _warp_maxima(work, width)
    elif schedule == "binned":
        slots = 0
        low = 1
        while low < width:
            bin_ = work[(work >= low) & (work < min(2 * low, width))]
            slots += width * _warp_maxima(bin_, width)
            low *= 2
        warp = work[(work >= width) & (work < block)]
        group = work[work >= block]
        slots += int((width * -(-warp // width)).sum()) + int((block * -(-group // block)).sum())
    elif schedule in ("binned-warp", "binned-group"):
        work = work[binned_order(work if order_by is None else np.asarray(order_by))]
        warps = schedule == "binned-warp" and block > width
        light = work < (warp_from(width) if warps else block)
        group = work >= (GROUP_FROM_WITH_WARPS * block if warps else block)
        warp = ~light & ~group
        slots = width * _warp_maxima(np.where(light, work, 0), width) + \
            int((width * -(-work[warp] // width)).sum()) + \
            int((block * -(-work[group] // block)).sum())
    elif schedule == "gang-vector":
        slots = int((width * -(-work // width)).sum())
    elif schedule == "edges":
        slots = width * -(-useful // width)
    else:       # frontier-edges
        # each group of B entries walks its T edges B at a time: T // B full steps, then the
        # warps of the last step that have an edge
        padded = np.zeros(-(-work.size // block) * block, dtype=np.int64)
        padded[:work.size] = work
        totals = padded.reshape(-1, block).sum(axis=1)
        slots = int((block * (totals // block) + width * -(-(totals % block) // width)).sum())
    return useful / slots


def binned_order(degrees: np.ndarray, run: int = P.BINNED_RUN) -> np.ndarray:
    """The vertex order of a binned kernel's items, as the runtime builds it
    (``degree_binned_order`` in ``starc_graph.hpp``): the vertices of degree below ``run``
    sorted by degree (stable) in runs of ``run``, the others in id order in runs of ``run``,
    the j-th of these at run ``j * runs // heavy runs``; the remainders of both at the end."""
    degrees = np.asarray(degrees)
    ids = np.arange(degrees.size)
    is_light = degrees < run
    light = ids[is_light][np.argsort(degrees[is_light], kind="stable")]
    heavy = ids[~is_light]
    light_runs, heavy_runs = light.size // run, heavy.size // run
    runs = light_runs + heavy_runs
    heavy_run = np.zeros(runs, dtype=bool)
    heavy_run[np.arange(heavy_runs) * runs // max(heavy_runs, 1)] = True
    whole = np.empty((runs, run), dtype=ids.dtype)
    whole[heavy_run] = heavy[:heavy_runs * run].reshape(heavy_runs, run)
    whole[~heavy_run] = light[:light_runs * run].reshape(light_runs, run)
    return np.concatenate([whole.ravel(), light[light_runs * run:], heavy[heavy_runs * run:]])


def efficiencies(degrees: np.ndarray, width: int = 32, block: int = 256,
                 order_by=None) -> Dict[str, Optional[float]]:
    """The model's efficiency of every schedule for one neighbour loop (``order_by``: see
    ``lane_efficiency``)."""
    return {s: lane_efficiency(degrees, s, width, block, order_by) for s in SCHEDULES}


def model_schedule(kernel: P.Kernel) -> str:
    """The model's name for the schedule ``kernel`` (specialized) runs: a binned kernel is
    ``binned-warp`` or ``binned-group`` by its tiers, as printed (in the binned order)."""
    if kernel.schedule == "binned" and kernel.cooperative is not None:
        return "binned-warp" if "warp" in kernel.cooperative.tiers else "binned-group"
    if kernel.vector_loops:
        return "gang-vector"
    if kernel.frontier_edges is not None:
        return "frontier-edges"
    return kernel.schedule


def _loop_directions(kernel: P.Kernel) -> Tuple[str, ...]:
    """``out`` or ``in`` for each of the kernel's outermost neighbour loops that run one after
    the other (cc's out- then in-edges; a loop's inner loops and the loops of other branches
    do not count); () where it has none."""
    for node in ir.walk(kernel.body):
        if isinstance(node, ir.Block):
            found = tuple("out" if isinstance(s.domain, ir.Neighbors) else "in"
                          for s in node.stmts if isinstance(s, ir.Loop)
                          and isinstance(s.domain, (ir.Neighbors, ir.InNeighbors)))
            if found:
                return found
    return ()


def kernel_rows(plan: P.Plan, schedules: Mapping[str, Mapping[str, str]], graph,
                width: int = 32, block: int = 256) -> List[Dict[str, object]]:
    """One row per kernel of the neutral ``plan`` with a neighbour loop: its name, the loop's
    direction, the model's efficiency of every schedule on ``graph`` (a ``starc.graphs.Graph``)
    and, per backend that runs the kernel, the schedule it chose (``schedules``: backend ->
    kernel -> schedule)."""
    out_degrees = np.diff(graph.offsets)
    in_degrees = np.diff(graph.rev_offsets)
    rows = []
    # (with the kernels of the union-find forms a backend may run in a loop's place)
    for kernel in plan.kernels + tuple(k for form in plan.components for k in form.kernels):
        directions = _loop_directions(kernel)
        # (a kernel over a batch's updates has no per-vertex items to model)
        if not directions or over_updates(kernel):
            continue
        degrees = sum(out_degrees if d == "out" else in_degrees for d in directions)
        # (the binned order sorts by the first loop's degrees: ``binned.order_array``)
        first = out_degrees if directions[0] == "out" else in_degrees
        rows.append({"kernel": kernel.name, "loop": "+".join(directions),
                     "efficiency": efficiencies(degrees, width, block, first),
                     "schedules": {b: chosen[kernel.name] for b, chosen in schedules.items()
                                   if kernel.name in chosen}})
    return rows
