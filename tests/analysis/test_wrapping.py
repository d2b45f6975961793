"""Signed arithmetic in kernels that may overflow is marked to wrap, what the ranges of its
operands prove in range is left alone (analysis/wrapping.py, applied by the specialize stage
for targets without -fwrapv)."""

from __future__ import annotations

import pytest

from starc.analysis.dump import plan_dump
from starc.analysis.plan import KernelScalar
from starc.analysis.wrapping import WrappingArith, wrap_arithmetic
from starc.ir import nodes as ir

from analysis_helpers import dsl_plan, nodes_of, plan_of


def _body_of(statement: str, declarations: str = "") -> list:
    text = ("function F(Graph g, propNode<int> a, propNode<long> b, int k) {\n"
            f"    {declarations}\n    forall (v in g.nodes()) {{\n        {statement}\n    }}\n}}\n")
    [kernel] = wrap_arithmetic(plan_of(text)).kernels
    return nodes_of(kernel.body, WrappingArith)


@pytest.mark.parametrize("statement, wrapped", [
    ("v.a = v.a + 5;", ["+"]),                   # a property may hold INT_MAX
    ("v.a = v.a * k;", ["*"]),
    ("v.a = -v.a;", ["neg"]),                    # -INT_MIN overflows
    ("v.b = v.b - 1;", ["-"]),
    ("v.a = v + 1;", []),                        # a vertex id is at most 2^31 - 2
    ("v.a = g.count_outNbrs(v) - g.count_inNbrs(v);", []),
    ("v.b = v.a * v;", ["*"]),                   # int * int overflows int...
    ("long x = v.a; v.b = x * v;", ["*"]),       # (a long local may hold anything)
    ("v.a = 3 * 4 - 2;", []),
    ("v.a = (v + 1) * 2;", ["*"]),               # 2^32 - 2 does not fit an int
    ("v.a = Min(v, 7) - 9;", []),
    ("v.a = 1 - v.a % 2;", []),                  # a remainder by c > 0 is within (-c, c)
    ("v.a = v.a % 2 - 2147483647;", []),
    ("v.a = v % 2 - 2147483647 - 1;", []),       # (of a non-negative dividend, not below 0)
    ("v.a = v.a % 2 - 2147483647 - 1;", ["-"]),
    ("v.a = v.a % k - 1;", ["-"]),               # (a divisor of unknown sign)
])
def test_what_is_marked(statement, wrapped):
    assert [w.op for w in _body_of(statement)] == wrapped


def test_a_wrapped_operand_makes_its_parent_wrap_too():
    wraps = _body_of("v.a = (v.a + 1) + 1;")
    assert len(wraps) == 2 and any(isinstance(w.left, WrappingArith) for w in wraps)


def test_comparisons_and_host_code_are_untouched():
    text = ("function F(Graph g, propNode<int> a) {\n    int x = 2147483647;\n    x = x + 1;\n"
            "    forall (v in g.nodes()) { if (v.a + 1 > v.a) { v.a = 0; } }\n    return x;\n}\n")
    plan = wrap_arithmetic(plan_of(text))
    [kernel] = plan.kernels
    [compare] = [n for n in nodes_of(kernel.body, ir.Binary) if n.op == ">"]
    assert isinstance(compare.left, WrappingArith) and compare.right == compare.left.left
    assert "wrap(" not in plan_dump(plan).split("kernel ")[0]       # the host tree


def test_bfs_levels_are_proven_in_range():
    """bc's BFS steps test `bfs_level[w] == bfs_depth - 1` and store `bfs_depth + 1`: a
    level is at most the largest vertex id, so neither wraps."""
    plan = wrap_arithmetic(dsl_plan("bc"))
    parts = [p for k in plan.kernels for p in (k.guard, k.body) if p is not None]
    # (the depth's; a sparse step's ``bfs_start + item``, an index into its order, is not
    # proven in range and wraps: bfs_queue.py)
    with_depth = [n for p in parts for n in nodes_of(p, (ir.Binary, WrappingArith))
                  if isinstance(n.left, KernelScalar) and n.left.name == "bfs_depth"
                  and n.op in "+-"]
    assert with_depth and all(isinstance(n, ir.Binary) for n in with_depth)


def test_only_targets_without_fwrapv_wrap():
    """MPI's kernels are g++ -fwrapv: its specialized plan keeps the operators."""
    from starc.backends import get_backend
    plan = dsl_plan("sssp")
    wrapped = {name: any(nodes_of(k.body, WrappingArith)
                         for k in get_backend(name).specialize(plan).kernels)
               for name in ("cuda", "opencl", "sycl", "openacc", "mpi")}
    assert wrapped == {"cuda": True, "opencl": True, "sycl": True, "openacc": True,
                       "mpi": False}
