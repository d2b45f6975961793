"""The analysis driver: one function of a typed IR program in, its ``Plan`` out.

The plan is made by named passes, in order (``PASSES``); ``lower_function(..., stop_after=)``
stops after any of them, so tests and ``--emit plan`` can look at each stage:

- ``outline``: call inlining, comparisons of a value with itself folded (``fold``), minWt /
  maxWt inside kernels computed by the host before them (``weight_bounds``), device
  arrays, kernels (without the locals nothing reads, ``dead_locals``), reductions and atomics
  (with the scalar reductions a work item accumulates privately, ``reductions.privatise``), the
  structured host tree (``FixedPointLoop``, ``BFSLoop``), zero-filled results, locks and the
  run-time error word;
- ``checks``: where user loops read the run-time error word (``control.place_loop_checks``);
- ``components``: a fixedPoint that is minimum-label propagation over every edge gets a
  union-find form beside it (``union_find.components``; the specialize stage chooses);
- ``frontier``: a fixedPoint whose flag only marks changed vertices gets a worklist
  (``frontier.worklists``; data-driven rounds), else the reason it stays topology-driven;
- ``bfs_queue``: a BFS's small top-down steps may walk a queue of the frontier instead of
  every vertex's level (``bfs_queue.bfs_queues``), and its smallest levels run in one
  work-group's rounds without the host between them (``bfs_rounds``);
- ``fills``: a fill at the top of a batch loop's body that changes nothing (the array holds
  the value on entry and at the back edge) is dropped (``loop_fills.drop_redundant_fills``);
- ``expand``: fixedPoint and BFS loops as plain host loops (``control.expand_loops``);
- ``hoist``: per-vertex terms of neighbour loops computed once per vertex by a kernel of
  their own (``hoist.hoist_terms``);
- ``swap``: a property copy ``a = b`` becomes a buffer swap where nothing can tell
  (``swap.swap_copies``);
- ``order``: the ordered triangle count runs on the graph renumbered by degree
  (``degree_order.order_by_degree``: only where no result can tell the ids);
- ``rows``: there, a second form of the count that walks the shorter row, launched where the
  run renumbered the graph (``row_swap.swap_rows``);
- ``transfers``: the scalar values each launch carries, as explicit host statements;
- ``elide``: statements that only set scalars nothing reads are dropped (``elide``), and
  arrays nothing uses (``transfers.used_arrays``): the plan lists what is allocated.

After the last pass the plan is backend-neutral; ``analysis.specialize`` makes it one backend's
(its decisions as data), and the backend only prints that.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Tuple

from starc.analysis.checks import ErrorWord
from starc.analysis.control import expand_loops, place_loop_checks
from starc.analysis.degree_order import order_by_degree
from starc.analysis.batches import refresh_lists
from starc.analysis.bfs_queue import bfs_queues
from starc.analysis.elide import elide_dead_scalars, read_scalars
from starc.analysis.fold import fold_self_comparisons
from starc.analysis.frontier import worklists
from starc.analysis.union_find import components
from starc.analysis.hoist import hoist_terms
from starc.analysis.host import HostLowering
from starc.analysis.inline import inline_calls
from starc.analysis.loop_fills import drop_redundant_fills
from starc.analysis.naming import SymbolFactory
from starc.analysis.plan import Fill, HostBlock, Plan
from starc.analysis.row_swap import swap_rows
from starc.analysis.swap import swap_copies
from starc.analysis.transfers import ArrayTable, explicit_scalar_transfers, used_arrays
from starc.analysis.weight_bounds import hoist_weight_bounds
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["lower_function", "PASSES", "PASS_NAMES"]


def _outline(program: ir.Program, function: ir.Function, symbols: SymbolFactory) -> Plan:
    function = fold_self_comparisons(inline_calls(program, function, symbols))
    function = hoist_weight_bounds(function, symbols)
    table = ArrayTable(function, symbols)
    host = HostLowering(function, table)
    zeros = host.result_zero_fills()
    body = host.block(function.body)
    # Every per-element lock starts released (device memory starts undefined; an unzeroed
    # lock is never acquired and its kernel spins forever). Locks are created while kernels
    # are lowered, so they are known only now.
    # Likewise the run-time error word starts at 0, "no check failed" (checks.py).
    released = ir.Const(0, type=Scalar.INT, loc=function.loc)
    initial = tuple(Fill(array, released, loc=function.loc) for array in table.arrays()
                    if array.role == "lock")
    error = None
    if table.check_sites:
        site, value = table.error_arrays()
        error = ErrorWord(site, value, tuple(table.check_sites))
        initial += (Fill(site, released, loc=function.loc),)
    body = HostBlock(initial + tuple(zeros) + body.stmts, loc=body.loc)
    return Plan(function, program, table.arrays(), tuple(host.kernels), body,
                tuple(host.host_scalars), error, parent_values=tuple(host.parent_values))


def _on_host(rewrite: Callable[[HostBlock], HostBlock]) -> Callable[[Plan, SymbolFactory], Plan]:
    return lambda plan, symbols: dataclasses.replace(plan, host=rewrite(plan.host))


def _elide(plan: Plan, symbols: SymbolFactory) -> Plan:
    # To a fixed point: a dropped statement may have been the only read of another scalar
    # (an inlined call's ``node H_src = src;`` of a parameter the callee never reads).
    host, read = plan.host, read_scalars(plan.host)
    while True:
        host = elide_dead_scalars(host, read)
        fewer = read_scalars(host)
        if fewer == read:
            break
        read = fewer
    arrays = used_arrays(plan.arrays, host, tuple(plan.function.params))
    return dataclasses.replace(plan, host=refresh_lists(host, arrays, plan.kernels),
                               read_scalars=read,
                               arrays=arrays)


#: name -> pass, in order (``outline`` is the first, it makes the plan).
PASSES: Tuple[Tuple[str, Callable[[Plan, SymbolFactory], Plan]], ...] = (
    ("checks", _on_host(place_loop_checks)),
    ("components", components),
    ("frontier", worklists),
    ("bfs_queue", bfs_queues),
    ("fills", _on_host(drop_redundant_fills)),
    ("expand", lambda plan, symbols: dataclasses.replace(
        plan, host=expand_loops(plan.host, symbols))),
    ("hoist", hoist_terms),
    ("swap", _on_host(swap_copies)),
    ("order", order_by_degree),
    ("rows", swap_rows),
    ("transfers", _on_host(explicit_scalar_transfers)),
    ("elide", _elide),
)

PASS_NAMES = ("outline",) + tuple(name for name, _ in PASSES)


def lower_function(program: ir.Program, function: ir.Function,
                   stop_after: Optional[str] = None) -> Plan:
    """Outline kernels, plan transfers, reductions, fixedPoint and BFS for ``function``,
    running ``PASSES`` up to ``stop_after`` (default: all).

    Pure: ``program`` and ``function`` are not modified (IR nodes are frozen; new nodes are
    built). Raises ``BackendError`` (with the construct's location) for what the device
    backends cannot express yet.
    """
    if stop_after is not None and stop_after not in PASS_NAMES:
        raise ValueError(f"no analysis pass named {stop_after!r} (passes: "
                         f"{', '.join(PASS_NAMES)})")
    symbols = SymbolFactory(program)
    plan = _outline(program, function, symbols)
    if stop_after == "outline":
        return plan
    for name, run in PASSES:
        plan = run(plan, symbols)
        if name == stop_after:
            break
    return plan
