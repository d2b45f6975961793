"""The shared C-family printer on hand-built IR: expressions, atomics, Min/Max, loops."""

from __future__ import annotations

import pytest

from plan_helpers import GRAPH_PARAMS
from starc.analysis import plan as P
from starc.analysis.reductions import privatise
from starc.analysis.specialize import specialize_kernel
from starc.backends.common.cfamily import (Dialect, DialectError, KernelArguments, CPrinter,
                                           lower_kernel)
from starc.backends.opencl.kernels import CAPABILITIES, OpenCLDialect
from starc.diagnostics import SourceLoc
from starc.ir import nodes as ir
from starc.ir.types import GRAPH, PropType, Scalar

S = Scalar
LOC = SourceLoc("prog.sp", 12, 5)
_uid = iter(range(1000, 100000))


def sym(name, t, kind=ir.SymbolKind.LOCAL):
    return ir.Symbol(name, t, kind, next(_uid))


def var(s):
    return ir.VarRef(s, type=s.type)


def const(value, t):
    return ir.Const(value, type=t)


def binary(op, a, b, t=None):
    return ir.Binary(op, a, b, type=t or (S.BOOL if op in "== != < <= > >= && ||" else a.type))


V = sym("v", S.NODE, ir.SymbolKind.LOOP)
W = sym("w", S.NODE, ir.SymbolKind.LOOP)
EDGE = sym("e", S.EDGE, ir.SymbolKind.EDGE)
G = sym("g", GRAPH, ir.SymbolKind.PARAM)


def prop(name, elem, kind="node"):
    return sym(name, PropType(kind, elem), ir.SymbolKind.PARAM)


def array_for(p, role="result"):
    return P.DeviceArray(p.name, p.type.elem, "nodes" if p.type.kind == "node" else "edges",
                         role, sym=p)


def read(p, index):
    return ir.PropRead(p, index, type=p.type.elem)


def kernel(body, arrays=(), scalars=(), guard=None, reductions=(), extent="nodes"):
    params = GRAPH_PARAMS + \
        tuple(P.KernelParam(a.name, a.elem, array=a, written=True) for a in arrays) + \
        tuple(P.KernelParam(s.name, s.type, sym=s) for s in scalars)
    # as the analysis makes them (the private reductions marked), specialized for OpenCL
    return specialize_kernel(privatise(P.Kernel("k", V, extent, guard, ir.Block(tuple(body)),
                                                params, tuple(reductions), loc=LOC)),
                             CAPABILITIES)


def opencl(stmt):
    """``stmt`` as the specialize stage leaves it for OpenCL (its atomic's form chosen)."""
    return kernel([stmt]).body.stmts[0]


def printer(k, dialect=None):
    dialect = dialect or OpenCLDialect()
    return CPrinter(dialect, KernelArguments(k, dialect))


def expr_text(e, arrays=(), scalars=()):
    p = printer(kernel([], arrays, scalars))
    p.ctx.names.bind(V)
    return p.expr(e)


# --- expressions ---------------------------------------------------------------------------

X = sym("x", S.INT)
Y = sym("y", S.INT)
F = sym("f", S.FLOAT)


def test_precedence_minimal_but_safe():
    x, y = var(X), var(Y)
    a = binary("-", x, binary("-", y, const(1, S.INT)))
    assert expr_text(a, scalars=[X, Y]) == "x - (y - 1)"
    b = binary("-", binary("-", x, y), const(1, S.INT))
    assert expr_text(b, scalars=[X, Y]) == "x - y - 1"
    c = binary("*", binary("+", x, y), x)
    assert expr_text(c, scalars=[X, Y]) == "(x + y) * x"
    d = binary("||", binary("&&", binary("<", x, y), binary(">", x, y)), binary("==", x, y))
    assert expr_text(d, scalars=[X, Y]) == "(x < y && x > y) || x == y"


def test_casts_literals_and_unary():
    x = var(X)
    assert expr_text(ir.Cast(x, type=S.FLOAT), scalars=[X]) == "(float)x"
    assert expr_text(ir.Cast(binary("+", x, x), type=S.DOUBLE), scalars=[X]) == "(double)(x + x)"
    # node <-> int is the same C type: no cast
    assert expr_text(ir.Cast(x, type=S.NODE), scalars=[X]) == "x"
    assert expr_text(const(0.5, S.FLOAT)) == "0.5f"
    assert expr_text(const(2.0, S.DOUBLE)) == "2.0"
    assert expr_text(const(1e-06, S.FLOAT)) == "1e-06f"
    assert expr_text(const(7, S.LONG)) == "7L"
    assert expr_text(ir.Cast(const(1, S.INT), type=S.FLOAT)) == "1.0f"
    assert expr_text(ir.Unary("-", ir.Unary("-", x, type=S.INT), type=S.INT),
                     scalars=[X]) == "-(-x)"
    assert expr_text(binary("-", x, const(-1, S.INT)), scalars=[X]) == "x - (-1)"
    assert expr_text(const(-2 ** 31, S.INT)) == "-2147483647 - 1"


def test_integer_division_and_remainder_are_c():
    x, y = var(X), var(Y)
    assert expr_text(binary("/", x, y), scalars=[X, Y]) == "x / y"
    assert expr_text(binary("%", binary("+", x, y), y), scalars=[X, Y]) == "(x + y) % y"


def test_negation_of_comparisons_and_bool_constants():
    flag = prop("modified", S.BOOL)
    arr = array_for(flag, "local")
    is_set = binary("==", read(flag, var(V)), const(True, S.BOOL))
    assert expr_text(is_set, arrays=[arr]) == "modified[v]"
    assert expr_text(ir.Unary("!", is_set, type=S.BOOL), arrays=[arr]) == "!modified[v]"
    lt = binary("<", var(X), var(Y))
    assert expr_text(ir.Unary("!", lt, type=S.BOOL), scalars=[X, Y]) == "x >= y"
    # never for floats (NaN): !(a < b) is not a >= b
    flt = binary("<", var(F), var(F))
    assert expr_text(ir.Unary("!", flt, type=S.BOOL), scalars=[F]) == "!(f < f)"


def test_inf_per_type():
    assert expr_text(ir.Inf(type=S.INT)) == "INT_MAX"
    assert expr_text(ir.Inf(True, type=S.LONG)) == "LONG_MIN"
    assert expr_text(ir.Inf(type=S.FLOAT)) == "FLT_MAX"
    assert expr_text(ir.Inf(True, type=S.DOUBLE)) == "-DBL_MAX"


def test_graph_queries():
    deg = ir.GraphQuery("count_outNbrs", G, (var(V),), type=S.INT)
    assert expr_text(deg) == "offsets[v + 1] - offsets[v]"
    found = ir.GraphQuery("is_an_edge", G, (var(V), var(V)), type=S.BOOL)
    assert expr_text(found) == "starc_find_edge(offsets, targets, v, v) >= 0"
    assert expr_text(ir.GraphQuery("num_nodes", G, (), type=S.INT)) == "n"


def test_graph_queries_of_rows_with_slack_read_the_rows_ends():
    """A kernel the plan passes the rows' ends (``batches.with_row_ends``) reads a row's end
    from them: its free slots are no edges."""
    from starc.analysis.batches import with_row_ends
    k, = with_row_ends((kernel([]),))
    p = printer(k)
    p.ctx.names.bind(V)
    out = ir.GraphQuery("count_outNbrs", G, (var(V),), type=S.INT)
    into = ir.GraphQuery("count_inNbrs", G, (var(V),), type=S.INT)
    found = ir.GraphQuery("is_an_edge", G, (var(V), var(V)), type=S.BOOL)
    assert p.expr(out) == "ends[v] - offsets[v]"
    assert p.expr(into) == "rev_ends[v] - rev_offsets[v]"
    assert p.expr(found) == "starc_find_edge_in(offsets, ends, targets, v, v) >= 0"


# --- atomics and Min/Max ---------------------------------------------------------------------

@pytest.mark.parametrize("op, elem, helper", [
    ("+", S.INT, "starc_atomic_add_int"), ("-", S.INT, "starc_atomic_sub_int"),
    ("*", S.INT, "starc_atomic_mul_int"), ("&", S.INT, "starc_atomic_and_int"),
    ("|", S.LONG, "starc_atomic_or_long"), ("+", S.LONG, "starc_atomic_add_long"),
    ("+", S.FLOAT, "starc_atomic_add_float"), ("-", S.DOUBLE, "starc_atomic_sub_double"),
    ("*", S.FLOAT, "starc_atomic_mul_float"), ("+", S.NODE, "starc_atomic_add_int"),
])
def test_atomic_reduce_per_type(op, elem, helper):
    p = prop("acc", elem)
    arr = array_for(p)
    value = const(1.5 if elem in (S.FLOAT, S.DOUBLE) else 1, elem)
    stmt = P.AtomicReduce(op, read(p, var(W)), value, loc=LOC)
    pr = printer(kernel([], [arr]))
    pr.ctx.names.bind(W)
    line = pr.stmt(opencl(stmt), 1)
    assert line == [f"    {helper}(&acc[w], {pr.expr(value)});  // prog.sp:12"]


def test_every_backend_names_atomic_helpers_by_the_dsl_type():
    # CUDA and SYCL call 64-bit integers "long long", OpenCL "long": the helpers are
    # starc_atomic_<op>_long everywhere (the base Dialect's suffix table).
    from starc.backends.cuda.kernels import CUDADialect
    from starc.backends.sycl.kernels import SYCLDialect
    for dialect in (CUDADialect(), SYCLDialect(), OpenCLDialect()):
        names = [dialect.atomic_helper("add", t)
                 for t in (S.INT, S.NODE, S.LONG, S.FLOAT, S.DOUBLE)]
        assert names == ["starc_atomic_add_int", "starc_atomic_add_int", "starc_atomic_add_long",
                         "starc_atomic_add_float", "starc_atomic_add_double"], dialect.name


def test_atomic_on_a_float_bitwise_op_is_a_loud_error():
    p = prop("acc", S.FLOAT)
    pr = printer(kernel([], [array_for(p)]))
    pr.ctx.names.bind(W)
    with pytest.raises(DialectError, match="opencl backend cannot express an atomic and on"):
        pr.stmt(opencl(P.AtomicReduce("&", read(p, var(W)), const(1.0, S.FLOAT))), 1)


def test_bool_reductions_are_agreeing_stores():
    p = prop("seen", S.BOOL)
    pr = printer(kernel([], [array_for(p)]))
    pr.ctx.names.bind(V)
    pr.ctx.names.bind(W)
    cond = binary("<", var(W), var(V))
    assert pr.stmt(opencl(P.AtomicReduce("|", read(p, var(W)), cond)), 0) == [
        "if (w < v) seen[w] = true;"]
    assert pr.stmt(opencl(P.AtomicReduce("&", read(p, var(W)), cond)), 0) == [
        "if (w >= v) seen[w] = false;"]


def test_scalar_reduction_targets_its_device_copy():
    # Not exclusive (the kernel also uses another operator on it): one atomic per update.
    total = sym("total", S.FLOAT)
    arr = P.DeviceArray("total_dev", S.FLOAT, "one", "scalar", sym=total)
    red = P.ScalarReduction(total, "+", arr, False)
    k = kernel([P.AtomicReduce("+", var(total), const(1.0, S.FLOAT), loc=LOC)], [arr],
               reductions=[red])
    code = lower_kernel(k, OpenCLDialect())
    assert code.body == ["    starc_atomic_add_float(&total_dev[0], 1.0f);  // prog.sp:12"]
    assert "atomic_add_float" in code.features


_GROUP = "starc_group_total_local"


@pytest.mark.parametrize("op, elem, init, update, helper, fold", [
    ("+", S.FLOAT, "0", "total_local += 1.0f;", "starc_atomic_add_float",
     f"{_GROUP}[starc_lane] + {_GROUP}[starc_lane + starc_half]"),
    # a signed integer accumulates through the prelude's wrapping add (analysis/wrapping.py),
    # and the group's tree folds with it too
    ("-", S.INT, "0", "total_local = starc_add_int(total_local, 1);", "starc_atomic_sub_int",
     f"starc_add_int({_GROUP}[starc_lane], {_GROUP}[starc_lane + starc_half])"),
    ("*", S.DOUBLE, "1", "total_local *= 1.0;", "starc_atomic_mul_double", None),
    ("&", S.INT, "~0", "total_local &= 1;", "starc_atomic_and_int",
     f"{_GROUP}[starc_lane] & {_GROUP}[starc_lane + starc_half]"),
    ("|", S.LONG, "0", "total_local |= 1L;", "starc_atomic_or_long",
     f"{_GROUP}[starc_lane] | {_GROUP}[starc_lane + starc_half]"),
])
def test_exclusive_scalar_reduction_is_one_atomic_per_work_group(op, elem, init, update, helper,
                                                                 fold):
    """A private per work item; then (issue 29) the work-group folds the privates by a tree in
    local memory and its first item alone does the atomic; "*" (no group fold): each item."""
    total = sym("total", elem)
    arr = P.DeviceArray("total_dev", elem, "one", "scalar", sym=total)
    red = P.ScalarReduction(total, op, arr, True)
    value = const(1.0 if elem in (S.FLOAT, S.DOUBLE) else 1, elem)
    guard = binary("<", var(V), const(5, S.NODE))
    loop = ir.Loop(W, ir.AllNodes(G), ir.Block((P.AtomicReduce(op, var(total), value, loc=LOC),)),
                   False)
    k = kernel([loop], [arr], reductions=[red], guard=guard)
    code = lower_kernel(k, OpenCLDialect())
    type_name = OpenCLDialect().type_name(elem)
    assert code.body[:5] == [
        "    if (v >= 5) return;",
        f"    {type_name} total_local = {init};",
        "    for (int w = 0; w < n; w++) {",
        f"        {update}  // prog.sp:12",
        "    }"]
    assert f"atomic_{helper.split('_')[2]}_{elem}" in code.features
    if fold is None:
        assert code.body[5:] == [f"    if (total_local != {init}) {{",
                                 f"        {helper}(&total_dev[0], total_local);  // prog.sp:12",
                                 "    }"]
        return
    assert code.body[5] == f"    __local {type_name} {_GROUP}[1024];"
    assert f"                {_GROUP}[starc_lane] = {fold};" in code.body
    assert code.body[-7:] == [f"        if (starc_lane == 0) total_local = {_GROUP}[0];", "    }",
                              f"    if (total_local != {init}) {{",
                              "        if ((int)get_local_id(0) == 0) {",
                              f"            {helper}(&total_dev[0], total_local);  // prog.sp:12",
                              "        }", "    }"]


def test_exclusive_scalar_min_max_accumulate_with_min_max():
    for func, init in (("Min", "INT_MAX"), ("Max", "INT_MIN")):
        best = sym("best", S.INT)
        arr = P.DeviceArray("best_dev", S.INT, "one", "scalar", sym=best)
        red = P.ScalarReduction(best, func, arr, True)
        k = kernel([P.AtomicMinMax(func, var(best), var(V), loc=LOC)], [arr], reductions=[red])
        code = lower_kernel(k, OpenCLDialect())
        group = "starc_group_best_local"
        assert code.body[:2] == [
            f"    int best_local = {init};",
            f"    best_local = {func.lower()}(best_local, v);  // prog.sp:12"]
        # the work-group's tree folds with the same function
        assert f"                {group}[starc_lane] = {func.lower()}({group}[starc_lane], " \
            f"{group}[starc_lane + starc_half]);" in code.body
        assert code.body[-5:] == [
            f"    if (best_local != {init}) {{",
            "        if ((int)get_local_id(0) == 0) {",
            f"            starc_atomic_{func.lower()}_int(&best_dev[0], best_local);"
            "  // prog.sp:12",
            "        }",
            "    }"]


def _minmax_kernel(others=(), locked=False, then=()):
    dist = prop("dist", S.INT)
    flag_prop = prop("modified_nxt", S.BOOL)
    arrays = [array_for(dist), array_for(flag_prop, "next")]
    lock = P.DeviceArray("dist_lock", S.INT, "nodes", "lock") if locked else None
    if lock:
        arrays.append(lock)
    cand = binary("+", read(dist, var(V)), const(1, S.INT))
    stmt = P.AtomicMinMax("Min", read(dist, var(W)),
                          cand, tuple((read(flag_prop, var(W)) if t == "flag" else t, v)
                                      for t, v in others), locked, lock, tuple(then), loc=LOC)
    loop = ir.Loop(W, ir.Neighbors(G, var(V), EDGE), ir.Block((stmt,)), parallel=True)
    return kernel([loop], arrays)


def test_min_without_others_is_one_atomic():
    code = lower_kernel(_minmax_kernel(), OpenCLDialect())
    assert "        starc_atomic_min_int(&dist[w], dist[v] + 1);  // prog.sp:12" in code.body


def test_min_with_constant_others_tests_the_old_value():
    flag = P.DeviceArray("finished_flag", S.INT, "one", "flag")
    code = lower_kernel(_minmax_kernel(others=[("flag", const(True, S.BOOL))],
                                       then=[P.FlagSet(flag, None, loc=LOC)]), OpenCLDialect())
    body = "\n".join(code.body)
    assert "int dist_new = dist[v] + 1;" in body
    assert ("if (starc_atomic_min_int(&dist[w], dist_new) > dist_new) {  // prog.sp:12\n"
            "            modified_nxt[w] = true;\n"
            "            finished_flag[0] = 1;\n"
            "        }") in body


def test_locked_min_holds_the_element_lock():
    parent = prop("parent", S.NODE)
    k = _minmax_kernel(others=[(read(parent, var(W)), var(V))], locked=True)
    k = P.Kernel(k.name, k.index, k.extent, k.guard, k.body,
                 k.params + (P.KernelParam("parent", S.NODE, array=array_for(parent),
                                           written=True),), loc=LOC)
    body = "\n".join(lower_kernel(k, OpenCLDialect()).body)
    assert "for (bool done = false; !done; ) {  // prog.sp:12" in body
    assert "if (starc_lock_try(&dist_lock[w])) {" in body
    assert "parent[w] = v;" in body
    assert body.index("parent[w] = v;") < body.index("starc_lock_release(&dist_lock[w]);")


# --- loops and kernels -----------------------------------------------------------------------

def test_neighbour_loop_with_filter_binds_the_edge():
    weight = prop("weight", S.INT, "edge")
    dist = prop("dist", S.INT)
    body = ir.Block((ir.Assign(read(dist, var(W)), read(weight, var(EDGE))),))
    loop = ir.Loop(W, ir.Neighbors(G, var(V), EDGE), body, parallel=True,
                   filter=binary("!=", var(W), var(V)))
    code = lower_kernel(kernel([loop], [array_for(dist), array_for(weight, "weight")]),
                        OpenCLDialect())
    assert code.body == [
        "    for (int e = offsets[v]; e < offsets[v + 1]; e++) {",
        "        int w = targets[e];",
        "        if (w != v) {",
        "            dist[w] = weight[e];",
        "        }",
        "    }"]
    # in plan order: the CSR arrays first
    assert [a.name for a in code.args] == ["n", "offsets", "targets", "dist", "weight"]


def test_in_neighbour_loop_reads_the_forward_edge_id_only_when_used():
    weight = prop("weight", S.INT, "edge")
    acc = sym("acc", S.INT)
    use = ir.Loop(W, ir.InNeighbors(G, var(V), EDGE),
                  ir.Block((ir.Assign(var(acc), read(weight, var(EDGE))),)), parallel=False)
    k = kernel([ir.Declare(acc, const(0, S.INT)), use], [array_for(weight, "weight")])
    body = lower_kernel(k, OpenCLDialect()).body
    assert "        int e = rev_edge_ids[w_in];" in body
    no_edge = ir.Loop(W, ir.InNeighbors(G, var(V), EDGE),
                      ir.Block((ir.Assign(var(acc), var(W)),)), parallel=False)
    k = kernel([ir.Declare(acc, const(0, S.INT)), no_edge])
    code = lower_kernel(k, OpenCLDialect())
    assert not any("rev_edge_ids" in line for line in code.body)
    assert "rev_edge_ids" not in [a.name for a in code.args]


def test_nested_all_nodes_loop_and_guard():
    acc = sym("acc", S.INT)
    u = sym("u", S.NODE, ir.SymbolKind.LOOP)
    loop = ir.Loop(u, ir.AllNodes(G), ir.Block((ir.Assign(var(acc), var(u)),)), parallel=True)
    guard = binary("!=", var(V), const(0, S.NODE))
    code = lower_kernel(kernel([ir.Declare(acc, None), loop], guard=guard), OpenCLDialect())
    assert code.body == ["    if (v == 0) return;", "    int acc;",
                         "    for (int u = 0; u < n; u++) {", "        acc = u;", "    }"]
    assert code.comment == "// prog.sp:12"


def test_dsl_names_that_clash_with_c_are_renamed():
    clash = sym("int", S.INT)
    n_local = sym("n", S.INT)
    code = lower_kernel(kernel([ir.Declare(clash, const(1, S.INT)),
                                ir.Declare(n_local, var(clash))]), OpenCLDialect())
    assert code.body == ["    int int_2 = 1;", "    int n_2 = int_2;"]


def test_missing_mapping_names_operation_and_backend():
    class Bare(Dialect):
        name = "toy"

    p = prop("dist", S.INT)
    k = kernel([P.AtomicReduce("+", read(p, var(V)), const(1, S.INT))], [array_for(p)])
    with pytest.raises(DialectError) as info:
        lower_kernel(k, Bare())
    assert "toy backend cannot express an atomic add on 'int'" in str(info.value)
    k = kernel([ir.Assign(read(p, var(V)), ir.MinMax("Min", var(V), var(V), type=S.INT))],
               [array_for(p)])
    with pytest.raises(DialectError, match="toy backend cannot express Min of 'int'"):
        lower_kernel(k, Bare())
