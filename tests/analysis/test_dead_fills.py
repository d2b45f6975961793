"""Fills nothing reads (analysis/dead_fills.py): dropped where the array's next use overwrites
every element, or where nothing names a declared property after them; kept wherever something
may read a value they wrote, and on MPI, whose kernels leave a rank's ghosts."""

from __future__ import annotations

import pytest

from starc.analysis import plan as P
from starc.backends import get_backend

from analysis_helpers import dsl_plan, host_nodes, plan_of


def _fills(plan: P.Plan, name: str):
    return [s.value for s in host_nodes(plan.host) if isinstance(s, P.Fill)
            and s.array.name == name]


def test_cc_as_a_union_find_fills_nothing():
    """comp's zero-fill (forall_7 stores comp[v] = v at every vertex), the attach's True flags
    (the union-find ends by filling them False) and that fill (nothing reads them after); the
    labels are the forest, with no least labels to fill."""
    plan = get_backend("opencl").specialize(dsl_plan("cc"))
    assert not [s for s in host_nodes(plan.host) if isinstance(s, P.Fill)]


def test_a_result_attached_after_its_zero_fill_is_filled_once():
    plan = get_backend("cuda").specialize(dsl_plan("sssp"))
    assert [type(v).__name__ for v in _fills(plan, "dist")] == ["Inf"]


def test_mpi_keeps_every_fill():
    """A rank's kernels store its own vertices' elements, not its ghosts'; the rounds read
    the flags the attach filled."""
    plan = get_backend("mpi").specialize(dsl_plan("cc"))
    assert [v.value for v in _fills(plan, "modified")][:1] == [True]
    assert [v.value for v in _fills(plan, "comp")] == [0]


KERNEL_AFTER = """function F(Graph g, propNode<int> x, propNode<int> y) {{
    g.attachNodeProperty(x = 3, y = 4);
    forall (v in g.nodes(){filter}) {{
        {body}
    }}
}}
"""


@pytest.mark.parametrize("filter, body, kept", [
    ("", "v.x = v;", False),
    ("", "int t = 2 * v; v.x = t + 1;", False),
    ("", "v.x = v.x + 1;", True),                       # reads the fill's value first
    ("", "v.y = v.x; v.x = v;", True),
    ("", "if (v > 2) { v.x = v; }", True),              # not every vertex
    (".filter(y == 4)", "v.x = v;", True),
])
def test_a_fill_before_a_kernel_that_stores_every_element(filter, body, kept):
    plan = get_backend("opencl").specialize(plan_of(KERNEL_AFTER.format(filter=filter,
                                                                        body=body)))
    values = [v.value for v in _fills(plan, "x")]
    assert 0 not in values          # the zero-fill: the attach's fill is the next use
    assert (3 in values) == kept


LOCAL_IN_LOOP = """function F(Graph g, propNode<int> x) {
    propNode<int> t;
    int k = 0;
    while (k < 3) {
        g.attachNodeProperty(t = k);
        forall (v in g.nodes()) {
            v.x = v.x + v.t;
        }
        k = k + 1;
    }
    g.attachNodeProperty(t = 7);
}
"""


def test_a_local_filled_last_in_the_function_is_dropped_not_inside_a_loop():
    """The last attach (7) is dropped; the loop's (k) is read by the forall after it;
    the declaration's (0) comes before a loop that names t (no look inside it)."""
    plan = get_backend("opencl").specialize(plan_of(LOCAL_IN_LOOP))
    assert [v.sym.name if hasattr(v, "sym") else v.value for v in _fills(plan, "t")] == [
        0, "k"]
