"""SYCL's grouped kernels, as text: a binned kernel and a split worklist round print the shared
shells (common/binned_shell.py, common/frontier_shell.py) inside one command group whose
local_accessors hold the group's local memory; the plan says why (no warp bin; one pull loop
only) and folds their reductions per work-group (a tree in a local_accessor, then the group's
first item's one atomic). Run end to end in tests/e2e/test_binned_schedule.py and
test_matrix.py (on AdaptiveCpp)."""

from __future__ import annotations

import functools
import pathlib

import pytest

import starc
from starc.analysis.dump import plan_dump
from starc.backends.base import BackendOptions
from starc.backends.sycl.kernels import runtime_header

pytestmark = pytest.mark.sycl

DSL = pathlib.Path(__file__).resolve().parents[3] / "dsl"


@functools.lru_cache(maxsize=None)
def _compiled(program: str, schedule: str):
    """The compilation (generated, not built) of dsl ``program`` for SYCL."""
    return starc.compile(str(DSL / f"{program}.sp"), "sycl",
                         options=BackendOptions(schedule=schedule)).compilation


def _kernel(program: str, schedule: str, name: str) -> str:
    text = _compiled(program, schedule).generated.files[f"{program}.cpp"]
    head = text.index(f"static void {name}(")
    return text[head:text.index("\n}\n", head)]


def test_binned_kernel_is_one_command_group_with_local_accessors():
    kernel = _kernel("pr", "binned", "Compute_PR_forall_13")
    assert """\
    if (n <= 0) return;
    const std::size_t starc_group = starc_work_group_size(q, block);
    starc_at(where, [&] {
        q.submit([&](sycl::handler& starc_handler) {
            sycl::local_accessor<float, 1> starc_partial(sycl::range<1>(starc_group), starc_handler);
            sycl::local_accessor<int, 1> starc_heavy(sycl::range<1>(starc_group), starc_handler);
            sycl::local_accessor<int, 1> starc_heavy_count_local(sycl::range<1>(1), starc_handler);
            sycl::local_accessor<float, 1> starc_group_diff_local(sycl::range<1>(starc_group), starc_handler);
            starc_handler.parallel_for(starc_groups(n, starc_group), [=](sycl::nd_item<1> starc_it) {
                int& starc_heavy_count = starc_heavy_count_local[0];
                const int starc_item = static_cast<int>(starc_it.get_global_id(0));
                const int starc_vertex = starc_item < n ? in_binned_order[starc_item] : n;
                const int starc_group_lane = static_cast<int>(starc_it.get_local_id(0));
                const int starc_group_size = static_cast<int>(starc_it.get_local_range(0));
                if (starc_group_lane == 0) starc_heavy_count = 0;
                sycl::group_barrier(starc_it.get_group());""" in kernel
    assert ("starc_heavy[sycl::atomic_ref<int, sycl::memory_order::relaxed, "
            "sycl::memory_scope::work_group, sycl::access::address_space::local_space>"
            "(starc_heavy_count).fetch_add(1)] = v;") in kernel
    # the fold's tree in local memory, halving the live part (any group size)
    assert """\
                    for (int starc_width = starc_lanes; starc_width > 1; ) {
                        const int starc_half = (starc_width + 1) / 2;
                        if (starc_lane + starc_half < starc_width) {
                            starc_partial[starc_lane] = starc_partial[starc_lane] + starc_partial[starc_lane + starc_half];
                        }
                        sycl::group_barrier(starc_it.get_group());""" in kernel
    # no sycl::reduction, no reduce_over_group (AdaptiveCpp's CPU JIT cannot load it): the
    # private accumulators folded by the tree in the local_accessor, no early return
    assert "sycl::reduction" not in kernel and "reduce_over_group" not in kernel
    assert """\
                    starc_group_diff_local[starc_lane] = diff_local;
                    sycl::group_barrier(starc_it.get_group());""" in kernel
    assert """\
                    if (starc_lane == 0) diff_local = starc_group_diff_local[0];
                }
                if (diff_local != 0) {
                    if (static_cast<int>(starc_it.get_local_id(0)) == 0) {
                        starc_atomic_add_float(&diff_dev[0], diff_local);  // pr.sp:20
                    }
                }""" in kernel
    assert "return;" not in kernel[kernel.index("parallel_for"):]
    assert kernel.endswith("""\
                }
            });
        });
    });""")


def test_split_worklist_round_keeps_the_entries_and_sums_in_local_accessors():
    """(and its appends' staged queue: ``group_end.staged_locals``)"""
    kernel = _kernel("sssp", "edges", "Compute_SSSP_forall_11_sparse")
    assert """\
            sycl::local_accessor<int, 1> starc_entry(sycl::range<1>(starc_group), starc_handler);
            sycl::local_accessor<int, 1> starc_ends(sycl::range<1>(starc_group), starc_handler);
            sycl::local_accessor<int, 1> starc_staged_modified_frontier_size(sycl::range<1>(STARC_LOCAL_QUEUE), starc_handler);
            sycl::local_accessor<int, 1> starc_staged_modified_frontier_size_base_local(sycl::range<1>(1), starc_handler);
            sycl::local_accessor<int, 1> starc_staged_modified_frontier_size_count_local(sycl::range<1>(1), starc_handler);
            starc_handler.parallel_for(starc_groups(frontier_count, starc_group), [=](sycl::nd_item<1> starc_it) {
                const int v_item = static_cast<int>(starc_it.get_global_id(0));
                const int starc_lane = static_cast<int>(starc_it.get_local_id(0));
                const int starc_lanes = static_cast<int>(starc_it.get_local_range(0));""" in kernel
    assert "if (starc_ends[starc_middle] > starc_edge) starc_high = starc_middle;" in kernel


def test_prelude_has_the_group_launch_only_where_a_kernel_needs_it():
    grouped = _compiled("pr", "binned").generated.files["starc_sycl.hpp"]
    vertex = _compiled("pr", "vertex").generated.files["starc_sycl.hpp"]
    assert "inline std::size_t starc_work_group_size(" in grouped
    assert "return starc_runs_of(q).on ? std::min(group, STARC_CPU_GROUP_ITEMS) : group;" in grouped
    assert "starc_work_group_size" not in vertex and "starc_groups" not in vertex
    assert "starc_work_group_size" in runtime_header()


def test_plan_says_why_there_is_no_warp_bin_and_reductions_are_folded_per_group():
    plan = plan_dump(_compiled("pr", "binned").specialized)
    assert ("schedule: binned (--schedule binned; item and work-group bins only, no warp bin: "
            "SYCL's sub-groups have no ballot to pick the next vertex a warp's lanes marked)") \
        in plan
    assert "reduction: diff + via diff_dev (exclusive, group then one native atomic)" in plan
    # the vertex schedule keeps its sycl::reduction
    assert "reduction: diff + via diff_dev (exclusive, native)" in \
        plan_dump(_compiled("pr", "vertex").specialized)
    # bfs's steps (a search, then a push) are no single pull loop: one item per vertex
    bfs = plan_dump(_compiled("bfs", "binned").specialized)
    assert "SYCL prints only one pull loop per binned kernel: one work item per vertex" in bfs
