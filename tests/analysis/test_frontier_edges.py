"""A worklist round's edges schedule (analysis/frontier_edges.py): which sparse rounds a
work-group may split by edges, and what each backend chooses."""

from __future__ import annotations

import dataclasses

import pytest

from starc.analysis.frontier_edges import frontier_edges
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.ir import nodes as ir

from analysis_helpers import CC_IN_ROUNDS, ROOT, dsl_plan, plan_of


def _kernel(program, name):
    """The neutral kernel ``name``."""
    return next(k for k in dsl_plan(program).kernels if k.name == name)


@pytest.mark.parametrize("program, name, work", [
    ("sssp", "Compute_SSSP_forall_11_sparse", ["count_outNbrs"]),
    ("sswp", "Compute_SSWP_forall_11_sparse", ["count_outNbrs"]),
    ("cc", "Compute_CC_forall_12_sparse", ["count_outNbrs", "count_inNbrs"]),
])
def test_the_sparse_rounds_split_their_entries_edges(program, name, work):
    """The entry's vertex, its test (modified), then push loops: an entry's work is the sum
    of its loops' degrees (cc: out- then in-edges)."""
    kernel = _kernel(program, name)
    split, why = frontier_edges(kernel)
    # the entry's item clears its flag; the first item zeroes the next round's queue length
    # (and, with a priority window, clears the next round's slot)
    assert why == "" and split.tested and split.after == 2
    assert split.windowed == (kernel.window is not None) == (program == "sssp")
    terms = [split.work] if split.work.__class__.__name__ == "GraphQuery" else \
        [split.work.left, split.work.right]
    assert [t.op for t in terms] == work


def test_a_clear_of_what_the_loops_read_is_no_flag_clear():
    """The entry's item runs a trailing ``p[v] = False`` once it has tested its entry, while
    other items still walk the entry's edges: only where no loop reads ``p``. Here the clear
    is moved onto ``dist``, which the push loop reads at ``v``: no split."""
    kernel = _kernel("sssp", "Compute_SSSP_forall_11_sparse")
    entry, tested, cleared, reset = kernel.body.stmts
    dist = next(n for n in ir.walk(tested.then) if isinstance(n, ir.PropRead)
                and n.prop.name == "dist" and n.index == cleared.target.index)
    moved = dataclasses.replace(cleared, target=dataclasses.replace(cleared.target,
                                                                     prop=dist.prop))
    body = dataclasses.replace(kernel.body, stmts=(entry, tested, moved, reset))
    split, why = frontier_edges(dataclasses.replace(kernel, body=body))
    assert split is None and "not a sequence of neighbour loops" in why


def test_what_is_no_split_round():
    assert "runs over no worklist" in frontier_edges(
        _kernel("sssp", "Compute_SSSP_forall_11_dense"))[1]
    # the clear kernel of a round of two kernels (a one-kernel round has none)
    two = (ROOT / "dsl" / "sssp.sp").read_text().replace(
        "            }\n        }\n    }\n}",
        "            }\n        }\n        forall (v in g.nodes().filter(modified == True)) {\n"
        "            v.dist = v.dist + 0;\n        }\n    }\n}")
    [clear] = [k for k in plan_of(two).kernels if k.name == "modified_frontier_clear"]
    assert "does not start by reading its entry's vertex" in frontier_edges(clear)[1]


@pytest.mark.parametrize("backend, options, schedule, why", [
    ("cuda", {}, "edges", "the worklist has no precomputed order"),
    ("cuda", {"schedule": "vertex"}, "vertex", "--schedule vertex"),
    ("cuda", {"schedule": "binned"}, "vertex", "a worklist changes every round"),
    ("opencl", {}, "vertex", "do not run in lockstep (--schedule edges"),
    ("opencl", {"schedule": "edges"}, "edges", "--schedule edges"),
    ("sycl", {}, "vertex", "do not run in lockstep (--schedule edges"),
    ("sycl", {"schedule": "edges"}, "edges", "--schedule edges"),
    ("openacc", {"schedule": "edges"}, "vertex", "OpenACC does not print"),
])
def test_each_backend_chooses(backend, options, schedule, why):
    plan = get_backend(backend).specialize(dsl_plan(CC_IN_ROUNDS), BackendOptions(**options))
    [sparse] = [k for k in plan.kernels if k.name == "Compute_CC_forall_12_sparse"]
    assert sparse.schedule == schedule and why in sparse.schedule_why
    assert (sparse.frontier_edges is not None) == (schedule == "edges")
