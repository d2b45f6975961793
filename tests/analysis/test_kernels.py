"""Kernel outlining: which loops become kernels, their names, extents and read/write sets."""

from __future__ import annotations

import pytest

from analysis_helpers import SEARCHED_BFS, dsl_plan, host_of, kernel, nodes_of, params, plan_of
from starc.analysis import plan as P
from starc.backends.base import BackendError
from starc.ir import nodes as ir


@pytest.mark.parametrize("name, expected", [
    # a data-driven fixedPoint: the forall as written (topology-driven form), the worklist's
    # build kernel and the forall's dense and sparse variants (analysis/frontier.py; the
    # sparse one clears its entries' flags, so no clear kernel), and the sparse round's
    # rounds in one work-group (analysis/worklist_rounds.py)
    ("sssp", [("Compute_SSSP_forall_11", "nodes"), ("modified_frontier_build", "nodes"),
              ("Compute_SSSP_forall_11_dense", "nodes"),
              ("Compute_SSSP_forall_11_sparse", "frontier"),
              ("Compute_SSSP_forall_11_sparse_rounds", "group")]),
    ("sswp", [("Compute_SSWP_forall_11", "nodes"), ("modified_frontier_build", "nodes"),
              ("Compute_SSWP_forall_11_dense", "nodes"),
              ("Compute_SSWP_forall_11_sparse", "frontier"),
              ("Compute_SSWP_forall_11_sparse_rounds", "group")]),
    ("cc", [("Compute_CC_forall_7", "nodes")] + [("Compute_CC_forall_12", "nodes"), ("modified_frontier_build", "nodes"),
              ("Compute_CC_forall_12_dense", "nodes"),
              ("Compute_CC_forall_12_sparse", "frontier"),
              ("Compute_CC_forall_12_sparse_rounds", "group")]),
    ("pr", [("Compute_PR_forall_13_pageRank_term", "nodes"), ("Compute_PR_forall_13", "nodes")]),
    # the count as written and its swapped rows for a renumbered graph (analysis/row_swap.py)
    ("tc", [("Compute_TC_forall_6", "nodes"), ("Compute_TC_forall_6_swapped", "nodes")]),
    ("kcore", [("Compute_KCore_forall_9", "nodes"), ("Compute_KCore_forall_17", "nodes"),
               ("Compute_KCore_forall_24", "nodes"), ("Compute_KCore_forall_32", "nodes")]),
    # the levels are the depth (depth_values): set once after the traversal; then the
    # queue's compaction and sparse top-down steps (bfs_queue.py)
    ("bfs", [("Compute_BFS_bfs_fwd_6", "nodes"), ("Compute_BFS_bfs_up_6", "nodes"),
             ("Compute_BFS_bfs_values_6", "nodes"), ("bfs_queue_build", "nodes"),
             ("Compute_BFS_bfs_fwd_6_sparse", "frontier"),
             ("Compute_BFS_bfs_fwd_6_rounds", "group")]),
    (SEARCHED_BFS, [("Compute_BFS_bfs_pending_6", "nodes"), ("Compute_BFS_bfs_expand_6", "nodes"),
                    ("Compute_BFS_bfs_fwd_6", "nodes"), ("Compute_BFS_bfs_up_6", "nodes"),
                    ("bfs_queue_build", "nodes"), ("Compute_BFS_bfs_fwd_6_sparse", "frontier"),
                    ("Compute_BFS_bfs_expand_6_sparse", "frontier"),
                    ("Compute_BFS_bfs_fwd_6_rounds", "group")]),
    ("bc", [("Compute_BC_bfs_fwd_12", "nodes"), ("Compute_BC_bfs_up_12", "nodes"),
            ("Compute_BC_bfs_rev_17", "nodes"), ("bfs_queue_build", "nodes"),
            ("Compute_BC_bfs_fwd_12_sparse", "frontier"),
            ("Compute_BC_bfs_rev_17_sparse", "frontier"), ("Compute_BC_bfs_fwd_12_rounds", "group"),
            ("Compute_BC_bfs_rev_17_rounds", "group")]),
])
def test_kernels_found_with_names_and_extents(name, expected):
    plan = dsl_plan(name)
    assert [(k.name, k.extent) for k in plan.kernels] == expected
    launched = [s.kernel.name for s in host_of(plan, P.Launch)]
    launched += [k.name for s in host_of(plan, P.BFSLoop)
                 for k in (s.forward, s.bottom_up, s.reverse) if k is not None]
    launched += [s.kernel.renumbered_variant for s in host_of(plan, P.Launch)
                 if s.kernel.renumbered_variant]      # launched in its place when renumbered
    # every kernel is launched (the worklist's build kernel twice: first queue, compaction)
    assert sorted(set(launched)) == sorted(k.name for k in plan.kernels)


def test_nested_foralls_stay_loops_inside_the_kernel():
    k = kernel(dsl_plan("tc"), "forall_6")
    loops = nodes_of(k.body, ir.Loop)
    assert [type(l.domain) for l in loops] == [ir.Neighbors, ir.Neighbors]
    assert k.index.name == "v" and k.guard is None


def test_filter_becomes_guard():
    k = kernel(dsl_plan("sssp"), "forall_11")
    assert isinstance(k.guard, ir.Binary) and k.guard.op == "=="
    assert isinstance(k.guard.left, ir.PropRead) and k.guard.left.prop.name == "modified"


def test_read_write_sets_sssp():
    k = kernel(dsl_plan("sssp"), "forall_11")
    assert params(k) == {"offsets": False, "targets": False, "dist": True, "weight": False,
                         "modified": False, "modified_nxt": True, "finished_flag": True}


def test_read_write_sets_pr_in_neighbours_and_scalars_by_value():
    k = kernel(dsl_plan("pr", stop_after="expand"), "forall_13")    # as outlined
    p = params(k)
    assert {"rev_offsets", "rev_sources", "offsets"} <= set(p)
    assert "rev_edge_ids" not in p        # the in-neighbour loop never uses its edge
    assert "targets" not in p
    assert p["pageRank"] is False and p["pageRank_nxt"] is True and p["diff_dev"] is True
    assert p["delta"] == "value" and p["numNodes"] == "value"
    # kernel-local declarations stay in the body and are not parameters
    assert "sum" not in p and "val" not in p
    assert {d.sym.name for d in nodes_of(k.body, ir.Declare)} == {"sum", "val"}


def test_kcore_params():
    plan = dsl_plan("kcore")
    p = params(kernel(plan, "forall_17"))   # decide who is peeled this round
    assert p == {"inCore": True, "degree": False, "peeled": True, "removed_dev": True,
                 "k": "value"}
    p = params(kernel(plan, "forall_24"))   # then decrement their neighbours' degrees
    assert p == {"offsets": False, "targets": False, "degree": True, "peeled": True}


EDGES = """
function E(Graph g, propNode<int> a, propEdge<int> w) {
    g.attachNodeProperty(a = 0);
    forall (e in g.edges()) {
        node s = e.source;
        s.a += e.w;
    }
}
"""


def test_edge_kernel():
    k = kernel(plan_of(EDGES), "forall_4")
    assert k.extent == "edges" and k.index.name == "e"
    assert params(k) == {"sources": False, "a": True, "w": False}
    assert isinstance(k.body.stmts[1], P.AtomicReduce)


SINGLE = """
function S(Graph g, propNode<int> a, node src, int k) {
    g.attachNodeProperty(a = 0);
    int total = 0;
    for (v in g.nodes()) {
        total = total + v.a;
        if (v.a > k) { break; }
    }
    forall (n in g.neighbors(src)) {
        n.a += 1;
    }
    return total;
}
"""


def test_host_level_sequential_and_neighbour_loops_become_single_item_kernels():
    plan = plan_of(SINGLE)
    seq, nbr = plan.kernels
    assert (seq.name, seq.extent, nbr.name, nbr.extent) == (
        "S_for_5", "single", "S_forall_9", "single")
    # the whole loop is the body; the host scalar it assigns is a local stored back at the end
    assert isinstance(seq.body.stmts[0], ir.Declare) and isinstance(seq.body.stmts[1], ir.Loop)
    assert isinstance(seq.body.stmts[-1], P.ScalarStore)
    assert [a.sym.name for a in seq.stores] == ["total"]
    assert params(seq)["total"] == "value" and params(seq)["total_dev"] is True
    # one work item: no atomics
    assert not nodes_of(nbr.body, P.AtomicReduce)
    assert params(nbr)["src"] == "value"


def test_for_over_set_stays_on_host():
    plan = dsl_plan("bc")
    (loop,) = host_of(plan, P.HostForSet)
    assert loop.var.name == "src" and loop.set.name == "sourceSet"


def test_kernel_names_unique_on_one_line():
    text = ("function D(Graph g, propNode<int> a) {\n"
            "    forall (v in g.nodes()) { v.a = 1; } forall (v in g.nodes()) { v.a = 2; }\n"
            "}\n")
    assert [k.name for k in plan_of(text).kernels] == ["D_forall_2", "D_forall_2_2"]


def test_return_inside_device_loop_is_a_located_backend_error():
    text = ("function R(Graph g, propNode<int> a) {\n"
            "    for (v in g.nodes()) {\n        return 1;\n    }\n    return 0;\n}\n")
    try:
        plan_of(text)
    except AssertionError:
        pytest.skip("sema rejects this program")
    except BackendError as exc:
        assert "'return' inside a forall" in str(exc) and exc.loc.line == 3
    else:
        pytest.fail("no error")
