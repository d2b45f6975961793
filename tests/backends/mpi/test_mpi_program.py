"""MPI generation: what cannot be distributed is a clear error at its line; the generated
program's shape (one superstep per launch, OpenMP loops over the rank's own vertices)."""

from __future__ import annotations

import pathlib

import pytest

import starc
from starc.analysis.dump import plan_dump
from starc.diagnostics import CompileError

DSL = pathlib.Path(__file__).resolve().parents[3] / "dsl"


def test_a_program_the_mpi_backend_cannot_distribute_is_an_error_at_its_line():
    source = """
function F(Graph g, propNode<int> a) {
    g.attachNodeProperty(a = 0);
    for (v in g.nodes()) {
        for (w in g.neighbors(v)) { w.a = w.a + 1; }
    }
}
"""
    with pytest.raises(CompileError) as info:
        starc.compile(source, "mpi")
    text = str(info.value)
    assert ":4:" in text and "cannot distribute" in text and "E0501" in text


def test_sssp_runs_one_superstep_per_launch_over_owned_vertices():
    program = starc.compile(str(DSL / "sssp.sp"), "mpi")
    text = program.compilation.generated.files["sssp.cpp"]
    assert "#pragma omp parallel for schedule(dynamic, starc_chunk(lo, hi))" in text
    assert "for (int v = lo; v < hi; v++)" in text
    assert text.count("starc_step.finish();") == 1
    assert "starc_step.update(d_dist, starc_mpi::Op::Min, starc_mpi::Scope::Neighbour);" in text
    # per-vertex arrays in the rank's local index space; each rank's own values stream out
    assert "d_dist = new int[std::max(starc_dist.local_nodes, 1)]();" in text
    assert "std::copy(d_dist + starc_dist.own_begin, d_dist + starc_dist.own_end, " \
           "h_dist.data());" in text
    assert 'results.prop("dist", h_dist.data());' in text
    assert "g.num_nodes]" not in text and "num_nodes + 1]" not in text


def test_only_arrays_touched_at_any_vertex_are_full_length_replicas():
    """anywhere_access reads `up` two hops away and adds to `tally` at a vertex read from a
    property: those two stay n long on every rank (by global id), with the reason in the plan;
    `grand`, written at the work item's own vertex, lives in the local index space. The held-
    back e2e tests (tests/e2e/test_mpi_programs.py) check its results against the reference."""
    path = DSL.parent / "tests" / "e2e" / "programs" / "heldback" / "anywhere_access.sp"
    program = starc.compile(str(path), "mpi")
    distribution = program.compilation.specialized.target.distribution
    assert distribution.replicas == {"tally": "written at any vertex",
                                     "up": "read at any vertex"}
    text = program.compilation.generated.files["anywhere_access.cpp"]
    assert "d_up = new int[std::max(g.num_nodes, 1)]();" in text
    assert "d_tally = new int[std::max(g.num_nodes, 1)]();" in text
    assert "d_grand = new int[std::max(starc_dist.local_nodes, 1)]();" in text
    dump = plan_dump(program.compilation.specialized)
    assert "  replica (full length, by global id): tally: written at any vertex\n" in dump
    assert "  replica (full length, by global id): up: read at any vertex\n" in dump


def test_a_constant_secondary_is_the_owners_to_store_exactly():
    """A Min's secondary target set only to one int or bool is stored by the owner where the
    Min won (nothing of it is sent); a float literal, whose rounding is the kernel's, and a
    value of the sender's travel."""
    source = """
function F(Graph g, propNode<int> d, propNode<long> x, propNode<int> y, propNode<float> z) {
    g.attachNodeProperty(d = 100, x = 0, y = 0, z = 0);
    forall (v in g.nodes()) {
        for (w in g.neighbors(v)) {
            <w.d, w.x, w.y, w.z> = <Min(w.d, v.d + 1), 7, v.d, 0.1>;
        }
    }
}
"""
    program = starc.compile(source, "mpi")
    [step] = program.compilation.specialized.target.distribution.steps.values()
    assert step.constants == (("x", 7),)
    [text] = [code for name, code in program.compilation.generated.files.items()
              if name.endswith(".cpp")]
    assert "starc_step.secondary(d_x, d_d, 7LL);" in text
    assert "starc_step.secondary(d_y, d_d);" in text and "starc_step.secondary(d_z, d_d);" in text


@pytest.mark.parametrize("name, indexed", [("bfs", True), ("pr", False)])
def test_the_mirror_index_is_built_before_the_clock(name, indexed):
    """bfs refreshes its level's changed mirrors: the index they are marked through is built
    with the distribution, before the first trial's clock (it cost 2.8 ms a rank, a third of
    a trial's superstep work, at R-MAT 18 and 16 ranks, when the first refresh built it);
    pr's refresh sends every mirror and needs none."""
    program = starc.compile(str(DSL / f"{name}.sp"), "mpi")
    text = program.compilation.generated.files[f"{name}.cpp"]
    index = text.find("starc_mpi::index_mirrors(starc_dist);")
    assert (index >= 0) is indexed
    if indexed:
        assert index < text.index("for (int trial = 0; trial < cl.trials; ++trial)")
