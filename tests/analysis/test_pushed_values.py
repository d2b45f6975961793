"""A worklist's dense round on a CPU skips a flagged vertex whose values are those it last ran
with (``analysis/pushed_values.py``): where it does, and why not elsewhere."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.analysis.dump import plan_dump
from starc.analysis.host_tree import walk_host
from starc.analysis.pushed_values import NEVER_PUSHED
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.ir import nodes as ir
from starc.ir.types import Scalar

from analysis_helpers import CC_IN_ROUNDS, ROOT, dsl_plan, plan_of


def _dense(plan: P.Plan):
    return [k for k in plan.kernels if k.round_flags and not k.variant_of]


@pytest.mark.parametrize("backend", ["opencl", "sycl"])
@pytest.mark.parametrize("name, moved", [(CC_IN_ROUNDS, "comp"), ("sssp", "dist"), ("sswp", "width")])
def test_cpu_dense_rounds_skip_the_values_they_pushed(backend, name, moved):
    plan = get_backend(backend).specialize(dsl_plan(name))
    [dense] = _dense(plan)
    assert dense.skips_pushed and dense.schedule == "vertex" and dense.lockstep_variant
    # long seen = value; if (seen != pushed[v]) { pushed[v] = seen; the body as written }
    declare, run = dense.body.stmts
    assert isinstance(declare, ir.Declare) and declare.sym.type is Scalar.LONG
    assert declare.init.expr.prop.name == moved
    assert isinstance(run, ir.If) and run.cond.op == "!="
    record = run.then.stmts[0]
    pushed = record.target.prop
    assert pushed.name == f"{moved}_pushed" and record.value.sym == declare.sym
    [array] = [a for a in plan.arrays if a.sym == pushed]
    assert array.elem is Scalar.LONG and array.extent == "nodes"
    assert any(p.array == array and p.written for p in dense.params)
    # filled with a value no 32-bit value equals before the loop's do-while, once
    fills = [s for s in walk_host(plan.host) if isinstance(s, P.Fill) and s.array == array]
    assert len(fills) == 1 and fills[0].value.value == NEVER_PUSHED > 2 ** 32
    # the variant for a GPU, one item per edge, runs every flagged vertex's edges
    [variant] = [k for k in plan.kernels if k.name == dense.lockstep_variant]
    assert variant.schedule == "edges" and not variant.skips_pushed
    assert array.name not in {p.name for p in variant.params}


@pytest.mark.parametrize("backend", ["cuda", "openacc"])
def test_other_targets_run_every_flagged_vertex(backend):
    plan = get_backend(backend).specialize(dsl_plan(CC_IN_ROUNDS))
    [dense] = _dense(plan)
    assert not dense.skips_pushed and "lockstep" in dense.skips_pushed_why
    assert not any(a.name.endswith("_pushed") for a in plan.arrays)


def test_a_kernel_without_a_variant_for_gpus_runs_every_flagged_vertex():
    # --schedule vertex: the one kernel may run on a GPU
    plan = get_backend("opencl").specialize(dsl_plan(CC_IN_ROUNDS), BackendOptions(schedule="vertex"))
    [dense] = _dense(plan)
    assert not dense.skips_pushed and "lockstep" in dense.skips_pushed_why


def test_a_locked_min_runs_every_flagged_vertex():
    # the Min with a secondary value (the parent) holds a lock
    program = (ROOT / "dsl" / "dynamic" / "dyn_sssp.sp").read_text()
    plan = get_backend("opencl").specialize(plan_of(program, function="DynSSSP"))
    dense = _dense(plan)
    assert dense and not any(k.skips_pushed for k in dense)
    assert all(k.skips_pushed_why for k in dense)


def test_the_plan_dump_says_which_vertices_run():
    text = plan_dump(get_backend("opencl").specialize(dsl_plan(CC_IN_ROUNDS)))
    assert "flagged vertices whose values were pushed: skipped" in text
    assert "flagged vertices whose values were pushed: all run" in plan_dump(
        get_backend("cuda").specialize(dsl_plan(CC_IN_ROUNDS)))


NEIGHBOUR_CANDIDATE = """
function Relay(Graph g, propNode<int> a, propNode<int> b) {
    propNode<bool> modified;
    g.attachNodeProperty(a = 100, b = 100, modified = True);
    bool finished = False;
    fixedPoint until (finished : !modified) {
        forall (v in g.nodes().filter(modified == True)) {
            forall (w in g.neighbors(v)) {
                <w.a, w.modified> = <Min(w.a, v.a - 1), True>;
                <w.b, w.modified> = <Min(w.b, v.a + w.a), True>;
            }
        }
    }
}
"""


def test_a_push_that_reads_another_vertexs_moved_value_runs_every_flagged_vertex():
    # w.a moves in the round: v's push of b may differ from the one it made with the same a
    plan = get_backend("opencl").specialize(plan_of(NEIGHBOUR_CANDIDATE))
    [dense] = _dense(plan)
    assert not dense.skips_pushed and "another vertex" in dense.skips_pushed_why
