"""Minimum-label propagation run as a union-find (analysis/union_find.py): which fixedPoints
get the form, what its kernels and host statements are, and where the specialize stage puts
it in the loop's place or keeps the rounds, with the reasons."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis import union_find
from starc.backends import get_backend
from starc.ir import nodes as ir

from analysis_helpers import dsl_plan, host_nodes, plan_of


def _launched(plan: P.Plan):
    return [s.kernel.name for s in host_nodes(plan.host) if isinstance(s, P.Launch)]


def test_cc_gets_a_union_find_form():
    plan = dsl_plan("cc")
    [form] = plan.components
    assert form.loc.line == 11
    sample, choose, link, every, label = form.kernels
    # the labels start as the ids (``comp = v`` just before): they are the forest itself
    [big] = form.arrays
    assert form.ids and big.name == "comp_big" and big.extent == "one"
    # every vertex links its first out-neighbour's tree ...
    [joined] = sample.body.stmts
    assert isinstance(joined, P.UnionFindSample) and joined.parent.name == "comp"
    assert joined.vertex.sym == sample.index and joined.count == union_find.SAMPLED == 1
    # ... one work item names the big tree: the root of the sampled vertex of most out-edges
    assert choose.extent == "single"
    stored = [n for n in ir.walk(choose.body) if isinstance(n, ir.Assign) and
              isinstance(n.target, ir.PropRead) and n.target.prop == big.sym]
    assert [type(s.value).__name__ for s in stored] == ["Const", "UnionFindRoot"]
    # ... a vertex outside it links every edge, both directions; one in it, none
    assert link.guard.op == "!=" and isinstance(link.guard.left, P.UnionFindRoot)
    assert link.guard.right.vertex.prop == big.sym
    assert [type(s.domain).__name__ for s in link.body.stmts] == ["Neighbors", "InNeighbors"]
    assert all(isinstance(s.body.stmts[0], P.UnionFindLink) for s in link.body.stmts)
    # (on a lockstep device, every out-edge instead: tested per edge, the guard would cost
    # more finds than it skips)
    [test] = [s for s in form.host.stmts if isinstance(s, P.HostIf)]
    assert isinstance(test.cond, P.OnLockstepDevice)
    assert [s.kernel for s in test.then.stmts] == [every]
    assert [s.kernel for s in test.orelse.stmts] == [sample, choose, link]
    [loop] = every.body.stmts
    assert every.guard is None and isinstance(loop.domain, ir.Neighbors)
    # ... and each vertex takes its root, its tree's least id
    [write] = label.body.stmts
    assert write.target.prop.name == "comp" and isinstance(write.value, P.UnionFindRoot)
    # what the loop leaves: every flag clear after
    fills = [s for s in form.host.stmts if isinstance(s, P.Fill)]
    assert [(f.array.name, f.value.value) for f in fills] == [("modified", False)]


def test_labels_that_are_not_ids_get_a_forest_of_their_own():
    [form] = _forms(init="(37 * v + 11) % 101")
    roots, sample, choose, link, every, least, label = form.kernels
    assert not form.ids
    assert [a.name for a in form.arrays] == ["comp_parent", "comp_big", "comp_least"]
    parent, big, smallest = form.arrays
    # every vertex its own tree, the same links into it
    [init] = roots.body.stmts
    assert init.target.prop == parent.sym and init.value.sym == roots.index
    assert {n.parent.name for k in (sample, link, every) for n in ir.walk(k.body)
            if isinstance(n, (P.UnionFindLink, P.UnionFindSample))} == {"comp_parent"}
    # each root takes its tree's least label, each vertex its root's
    found, compressed, minimum = least.body.stmts
    assert isinstance(found.init, P.UnionFindRoot) and compressed.target.prop == parent.sym
    assert minimum.func == "Min" and minimum.target.prop == smallest.sym
    assert minimum.candidate.prop.name == "comp"
    [write] = label.body.stmts
    assert write.target.prop.name == "comp" and write.value.prop == smallest.sym
    assert isinstance(write.value.index, P.UnionFindRoot)
    fills = [s for s in form.host.stmts if isinstance(s, P.Fill)]
    assert [(f.array.name, type(f.value).__name__) for f in fills] == [
        ("comp_least", "Inf"), ("modified", "Const")]


@pytest.mark.parametrize("backend, kernels", [
    ("opencl", ["7", "12_link_every", "12_sample", "12_choose", "12_link", "12_label"]),
    ("sycl", ["7", "12_link_every", "12_sample", "12_choose", "12_link", "12_label"]),
    ("cuda", ["7", "12_link_every", "12_label"]),
    ("openacc", ["7", "12_sample", "12_choose", "12_link", "12_label"])])
def test_a_target_with_device_cas_runs_the_union_find(backend, kernels):
    """Sampled links where the device's items do not run in lockstep, every edge's where they
    do (CUDA), chosen at run time where the program learns its device (OpenCL, SYCL)."""
    plan = get_backend(backend).specialize(dsl_plan("cc"))
    launched = _launched(plan)
    assert [n.removeprefix("Compute_CC_forall_") for n in launched] == kernels
    assert {k.name for k in plan.kernels if not k.variant_of} == set(launched)
    assert not any(isinstance(s, (P.DataDrivenLoop, P.FixedPointLoop, P.HostDoWhile))
                   for s in host_nodes(plan.host))
    assert not plan.components
    assert ("comp_big" in {a.name for a in plan.arrays}) == ("12_sample" in kernels)
    assert not {"modified_nxt", "modified_frontier"} & {a.name for a in plan.arrays}
    [form] = plan.target.loop_forms
    assert form.form == "union-find" and "one pass of a union-find" in form.why
    # the rounds' kernels are gone from the program, specialized still for the teaching views
    assert "Compute_CC_forall_12_dense" not in {k.name for k in plan.kernels}
    assert "Compute_CC_forall_12_dense" in {k.name for k in plan.target.kernels}


def test_mpi_runs_the_runtimes_least_labels():
    plan = get_backend("mpi").specialize(dsl_plan("cc"))
    assert not plan.components
    # no kernel of the union-find, nor of the rounds: the runtime's statement in the loop's place
    assert _launched(plan) == ["Compute_CC_forall_7"]
    assert {"comp_big", "comp_parent", "comp_least"}.isdisjoint(a.name for a in plan.arrays)
    host = [s for s in host_nodes(plan.host) if isinstance(s, (P.LeastLabels, P.Fill))]
    assert [(type(s).__name__, getattr(s, "labels", getattr(s, "array", None)).name)
            for s in host][-2:] == [("LeastLabels", "comp"), ("Fill", "modified")]
    [loop] = plan.target.loop_forms
    assert loop.form == "union-find" and loop.why == union_find.RANKS_UNION_FIND_WHY
    # the runtime links the in-rows and exchanges the labels at the ghosts, whose mirrors it
    # indexes before the clock
    dist = plan.target.distribution
    assert dist.reverse and dist.mirrored["comp"] == "neighbour" and dist.indexes_mirrors
    assert "comp" not in dist.replicas


def test_mpi_keeps_the_rounds_of_labels_that_are_a_replica():
    """Labels read at any vertex are a full-length replica on every rank: the runtime's least
    labels work in the local index space, so the rounds stay, and the reason says why."""
    text = PROPAGATION.format(flags="True", seed="", update="Min", second=BACKWARD, init="v")
    text = text.replace("propNode<node> comp, node src) {",
                        "propNode<node> comp, node src, propNode<node> far) {")
    text = text.rstrip().removesuffix("}") + """    forall (v in g.nodes()) {
        v.far = src.comp;
    }
}
"""
    plan = get_backend("mpi").specialize(plan_of(text))
    assert not any(isinstance(s, P.LeastLabels) for s in host_nodes(plan.host))
    [loop] = plan.target.loop_forms
    assert loop.form == "topology" and "full-length replica" in loop.union_find
    assert "comp" in plan.target.distribution.replicas


PROPAGATION = """function F(Graph g, propNode<node> comp, node src) {{
    propNode<bool> modified;
    g.attachNodeProperty(modified = {flags});
    {seed}
    forall (v in g.nodes()) {{
        v.comp = {init};
    }}
    bool finished = False;
    fixedPoint until (finished : !modified) {{
        forall (v in g.nodes().filter(modified == True)) {{
            forall (w in g.neighbors(v)) {{
                <w.comp, w.modified> = <{update}(w.comp, v.comp), True>;
            }}
            {second}
        }}
    }}
}}
"""
BACKWARD = """forall (u in g.nodes_to(v)) {
                <u.comp, u.modified> = <Min(u.comp, v.comp), True>;
            }"""


def _forms(**fields):
    text = dict(flags="True", seed="", update="Min", second=BACKWARD, init="v")
    text.update(fields)
    return plan_of(PROPAGATION.format(**text), stop_after="components").components


def test_the_program_as_cc_writes_it_gets_the_form():
    assert len(_forms()) == 1


@pytest.mark.parametrize("fields", [
    dict(second=""),                                    # reachability, not components
    dict(flags="False", seed="src.modified = True;"),   # from one vertex only
    dict(update="Max", second=BACKWARD.replace("Min", "Max")),
    dict(second=BACKWARD + "\n            v.comp = v.comp;"),
    dict(second=BACKWARD.replace("Min(u.comp, v.comp)", "Min(u.comp, u.comp)")),
])
def test_other_propagations_keep_their_rounds(fields):
    assert _forms(**fields) == ()
