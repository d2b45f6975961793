"""Whether a distributed Dynamic program's new ghosts take the next local ids (analysis.ghost_order):
only where no kernel reads a row as sorted by global id or orders two local vertices by id, no
result is an edge property printed by edge id, and the program holds no ghost rows; the reason
is in the plan's dump."""

from __future__ import annotations

import pytest

from analysis_helpers import DSL, plan_of
from starc.analysis.dump import plan_dump
from starc.analysis.ghost_order import APPENDED_GHOSTS_WHY
from starc.analysis.specialize import specialize
from starc.backends import get_backend


def _dynamic(body: str) -> str:
    """A Dynamic program that applies each batch, then runs ``body`` for every vertex v."""
    return ("Dynamic D(Graph g, propNode<int> total, updates<g> U, int batchSize) {\n"
            "    g.attachNodeProperty(total = 0);\n"
            "    Batch (U : batchSize) {\n"
            "        g.updateCSRDel(U);\n"
            "        g.updateCSRAdd(U);\n"
            f"        forall (v in g.nodes()) {{ {body} }}\n"
            "    }\n"
            "}\n")


#: searches its own vertex's row for a vertex (by global id), without ghost rows
SEARCHED = _dynamic("if (g.is_an_edge(v, 0)) { v.total = 1; }")
#: orders a neighbour and its vertex by id (both local: compared as local ids, ``local_index``)
COMPARED = _dynamic("for (w in g.neighbors(v)) { if (w < v) { v.total += 1; } }")


def _mpi(text: str, function: str = None):
    return specialize(plan_of(text, function), get_backend("mpi").capabilities)


@pytest.mark.parametrize("name, function", [("dyn_sssp", "DynSSSP"), ("dyn_pr", "DynPR")])
def test_rows_read_in_any_order_take_appended_ghosts(name, function):
    plan = _mpi((DSL / "dynamic" / f"{name}.sp").read_text(), function)
    distribution = plan.target.distribution
    assert distribution.appended_ghosts
    assert distribution.appended_ghosts_why == APPENDED_GHOSTS_WHY
    dump = plan_dump(plan)
    assert "then each batch's new ghosts appended" in dump and APPENDED_GHOSTS_WHY in dump


def test_ghost_rows_and_sorted_rows_keep_global_id_order():
    triangles = _mpi((DSL / "dynamic" / "dyn_tc.sp").read_text(), "DynTC").target.distribution
    assert not triangles.appended_ghosts and "holds ghost rows" in triangles.appended_ghosts_why
    searched = _mpi(SEARCHED).target.distribution
    assert not searched.ghost_rows and not searched.appended_ghosts
    assert "searches a row (is_an_edge)" in searched.appended_ghosts_why
    compared = _mpi(COMPARED).target.distribution
    assert not compared.ghost_rows and not compared.appended_ghosts
    assert "compares w < v by their local ids" in compared.appended_ghosts_why


def test_static_programs_have_no_new_ghosts():
    distribution = _mpi((DSL / "sssp.sp").read_text()).target.distribution
    assert (distribution.appended_ghosts, distribution.appended_ghosts_why) == (False, "")
