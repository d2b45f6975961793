"""Hypothesis strategies for well-typed, race-free DSL programs and small graphs.

The differential fuzzer runs what these produce on every runnable backend and on both layers
of the reference executor. Programs are built from *phases*, each a construct the dsl/ library
uses (own-property forall, push accumulation through atomics, pull from in-neighbours, scalar
reductions, Min/Max relaxation inside a fixedPoint, BFS with its reverse sweep, BFS levels from
the depth and their near misses, host loops) and constructs it does not use (is_an_edge
between neighbours, one-shot Min/Max with secondary targets, host loops on a computed scalar,
a SetN of BFS sources, long values, edge loops with minWt/maxWt), with random expressions, operators, filters and constants inside. Every phase is race-free by
construction: a forall writes only its own vertex's properties, or other vertices' through a
reduction or Min/Max, and reads only properties that no iteration of that forall writes. So
every backend must agree with the reference exactly (integers) whatever the schedule.

Values stay small (constants 0..9, products of a constant and a leaf) so no phase overflows
``int``. Division and modulo use non-zero constant divisors inside expressions (C's truncation
toward zero for negative operands is part of what is compared); the ``divide`` phase divides by
an expression that may be zero, where the backends must report the reference's error.
"""

from __future__ import annotations

import dataclasses
from typing import List, Sequence

import numpy as np
from hypothesis import strategies as st

from starc.graphs import Graph

__all__ = ["programs", "program_params", "EDGE_PHASES", "NEW_PHASES", "FIXED_SIGNATURE_PHASES",
           "bfs_depth_phase", "host_programs", "non_commuting_programs", "graphs",
           "witness_graph", "FuzzProgram"]

SIGNATURE = ("function Fuzz(Graph g, propNode<int> a, propNode<int> b, propNode<bool> flag, "
             "propNode<float> f, propNode<double> d, propEdge<int> weight, node src)")


@dataclasses.dataclass(frozen=True)
class FuzzProgram:
    """One generated program: its text and the phases it was built from (for reports)."""

    text: str
    phases: Sequence[str]

    def __str__(self) -> str:
        return self.text


# -- expressions ---------------------------------------------------------------------------

def _const():
    return st.integers(0, 9).map(str)


def int_exprs(leaves: Sequence[str], max_leaves: int = 4):
    """Integer expressions over ``leaves`` (already well-typed int reads)."""
    leaf = st.one_of(st.sampled_from(list(leaves)), _const())

    def extend(children):
        binary = st.tuples(children, st.sampled_from(["+", "-"]), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")
        scaled = st.tuples(st.integers(0, 4), children).map(lambda t: f"({t[0]} * {t[1]})")
        divided = st.tuples(children, st.sampled_from(["/", "%"]), st.integers(1, 4)).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")
        minmax = st.tuples(st.sampled_from(["Min", "Max"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})")
        negated = children.map(lambda c: f"(-{c})")
        return st.one_of(binary, scaled, divided, minmax, negated)

    return st.recursive(leaf, extend, max_leaves=max_leaves)


_COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]


def conditions(leaves: Sequence[str]):
    """Boolean conditions comparing two integer expressions, sometimes an expression with
    itself (always true or false: the backends fold it, as C compilers warn about it)."""
    side = int_exprs(leaves, max_leaves=2)
    different = st.tuples(side, st.sampled_from(_COMPARISONS), side)
    itself = st.tuples(side, st.sampled_from(_COMPARISONS)).map(lambda t: (t[0], t[1], t[0]))
    compare = st.one_of(different, itself).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    return st.one_of(compare, st.tuples(compare, st.sampled_from(["&&", "||"]), compare).map(
        lambda t: f"({t[0]}) {t[1]} ({t[2]})"))


def _indent(lines: List[str], depth: int = 1) -> List[str]:
    return ["    " * depth + line for line in lines]


# -- phases ------------------------------------------------------------------------------------
# Each returns (name, lines). Property roles: `a` is the phase's output; `b` is read-only in
# phases that write other vertices' `a`; `flag` is a bool output of Min/Max phases.

@st.composite
def own_phase(draw):
    """forall v: v.a / v.b written from v's own values (optionally filtered / branched)."""
    own = ["v.a", "v.b", "g.count_outNbrs(v)", "g.count_inNbrs(v)"]
    filt = draw(st.one_of(st.none(), conditions(["a", "b"])))
    head = "forall (v in g.nodes()" + (f".filter({filt})" if filt else "") + ") {"
    target = draw(st.sampled_from(["a", "b"]))
    value = draw(int_exprs(own))
    body = [f"v.{target} = {value};"]
    if draw(st.booleans()):
        cond = draw(conditions(own))
        other = draw(int_exprs(own))
        body = [f"if ({cond}) {{", *_indent(body), "} else {",
                *_indent([f"v.{'b' if target == 'a' else 'a'} = {other};"]), "}"]
    if draw(st.booleans()):
        body.append(f"v.flag = {draw(conditions(own))};")
    return "own", [head, *_indent(body), "}"]


@st.composite
def push_phase(draw):
    """forall v, w in out-neighbours: w.a <op>= f(v.b, w.b, weight) (an atomic on `a`)."""
    op = draw(st.sampled_from(["+=", "-=", "|=", "&=", "++", "--"]))
    leaves = ["v.b", "w.b", "e.weight", "g.count_outNbrs(w)"]
    inner_filter = draw(st.one_of(st.none(), conditions(["b"])))
    loop = "forall (w in g.neighbors(v)" + (f".filter({inner_filter})" if inner_filter else "")
    if op in ("++", "--"):
        update = f"w.a{op};"
    else:
        update = f"w.a {op} {draw(int_exprs(leaves))};"
    lines = ["forall (v in g.nodes()) {", f"    {loop}) {{",
             "        edge e = g.get_edge(v, w);", f"        {update}", "    }", "}"]
    return "push" + op, lines


@st.composite
def pull_phase(draw):
    """forall v, u in in-neighbours: v.a accumulates f(u.b, weight) in a sequential inner loop."""
    inner = draw(st.sampled_from(["for", "forall"]))
    value = draw(int_exprs(["u.b", "v.b", "e.weight"]))
    if inner == "for":      # sequential: any update of the outer vertex's own property
        combine = draw(st.sampled_from(["v.a + {x}", "Max(v.a, {x})", "Min(v.a, {x})",
                                        "v.a - {x}"]))
        update = f"v.a = {combine.format(x=value)};"
    else:                   # a nested forall may run in parallel: only a reduction is race-free
        update = f"v.a {draw(st.sampled_from(['+=', '-=']))} {value};"
    lines = ["forall (v in g.nodes()) {",
             f"    {inner} (u in g.nodes_to(v)) {{",
             "        edge e = g.get_edge(u, v);",
             f"        {update}", "    }", "}"]
    return "pull", lines


@st.composite
def fold_phase(draw):
    """forall v: a local folds f(u, v) with + or * over v's in- or out-neighbours, then v.a
    (and perhaps `total`) takes it, or v.a itself is the fold (read at u too: then the
    neighbour may be v, and the schedule must refuse): the shapes the binned schedule shares
    (analysis/binned.py)."""
    op, identity = draw(st.sampled_from([("+", 0), ("*", 1)]))
    nbrs = draw(st.sampled_from(["g.nodes_to(v)", "g.neighbors(v)"]))
    value = draw(int_exprs(["u.b", "v.b", "g.count_outNbrs(u)"]))
    filt = draw(st.one_of(st.none(), conditions(["b"])))
    loop = f"for (u in {nbrs}" + (f".filter({filt})" if filt else "") + ")"
    step = draw(st.sampled_from([f"s = s {op} {value};", f"s = {value} {op} s;"]))
    own = draw(st.one_of(st.none(), conditions(["b"])))
    head = "forall (v in g.nodes()" + (f".filter({own})" if own else "") + ") {"
    if draw(st.booleans()):
        value = draw(int_exprs(["u.b", "v.b", "u.a"]))
        return "fold-property" + op, [head, f"    {loop} {{", f"        v.a = v.a {op} {value};",
                                      "    }", "}"]
    lines = [head, f"    int s = {identity};", f"    {loop} {{",
             f"        {step}", "    }", "    v.a = s + v.b;"]
    if draw(st.booleans()):
        lines.append("    total += s;")
    return "fold" + op, lines + ["}"]


@st.composite
def reduction_phase(draw):
    """A scalar reduction over vertices into `total` (declared by the function prelude)."""
    op = draw(st.sampled_from(["+=", "-=", "++"]))
    filt = draw(st.one_of(st.none(), conditions(["a", "b"])))
    head = "forall (v in g.nodes()" + (f".filter({filt})" if filt else "") + ") {"
    update = "total++;" if op == "++" else f"total {op} {draw(int_exprs(['v.a', 'v.b']))};"
    return "reduce" + op, [head, f"    {update}", "}"]


@st.composite
def relax_phase(draw):
    """A fixedPoint of Min (shortest-path-like) or Max (widest-path-like) relaxations of `a`
    from `src`, with a secondary target. Monotone, so it terminates."""
    kind = draw(st.sampled_from(["Min", "Max"]))
    c = draw(st.integers(0, 3))
    k = draw(st.integers(1, 3))
    if kind == "Min":
        init, start = "INF", "0"
        candidate = f"v.a + {k} * e.weight + {c}"
    else:
        init, start = "0", "INF"
        candidate = f"Min(v.a, e.weight + {c})"
    # A second target set to the candidate itself is deterministic (it ends equal to the
    # final `a`) yet not a constant, so backends must lock the element (per-element locks).
    second = draw(st.sampled_from(["w.flag, ", "w.b, "]))
    second_value = "True, " if second == "w.flag, " else f"{candidate}, "
    lines = [f"g.attachNodeProperty(a = {init}, active = False, flag = False);",
             "src.active = True;", f"src.a = {start};", "done = False;",
             "fixedPoint until (done : !active) {",
             "    forall (v in g.nodes().filter(active == True)) {",
             "        forall (w in g.neighbors(v)) {",
             "            edge e = g.get_edge(v, w);",
             f"            <w.a, {second}w.active> = <{kind}(w.a, {candidate}), "
             f"{second_value}True>;",
             "        }", "    }", "}"]
    return "relax-" + kind, lines


@st.composite
def bfs_phase(draw):
    """iterateInBFS pulling from BFS parents into `a`, optionally a reverse sweep from
    children into `b` (the Brandes shape with integer arithmetic)."""
    forward = draw(int_exprs(["w.a", "v.b"], max_leaves=2))
    lines = ["iterateInBFS (v in g.nodes() from src) {",
             "    for (w in g.neighbors(v)) {",
             f"        v.a = v.a + {forward};", "    }",
             f"    v.flag = {draw(conditions(['v.a', 'v.b']))};", "}"]
    name = "bfs"
    if draw(st.booleans()):
        backward = draw(int_exprs(["w.b", "v.a"], max_leaves=2))
        cond = draw(st.sampled_from(["v != src", "v == v", "v.a > 1"]))
        lines += [f"iterateInReverse ({cond}) {{", "    for (w in g.neighbors(v)) {",
                  f"        v.b = v.b + {backward};", "    }", "}"]
        name += "+reverse"
    return name, lines


#: what a depth phase changes of the idiom (None: nothing, the rewrite fires)
DEPTH_MISSES = [None, None, "value", "between", "source", "body", "filter", "reverse"]


@st.composite
def bfs_depth_phase(draw):
    """`src.a = k` and an iterateInBFS whose parents loop sets `v.a = w.a + c`: the idiom whose
    value analysis/depth_values.py proves to be k + c * depth (set after the traversal, or in
    place where the body reads `a`), or a near miss of it that keeps the parent search: another
    value, a write between, a source value that is no constant, another write in the body, a
    BFS filter, a reverse sweep that writes `a`."""
    k, c = draw(st.integers(-3, 9)), draw(st.integers(-3, 9))
    miss = draw(st.sampled_from(DEPTH_MISSES))
    value = draw(st.sampled_from([f"w.a + {c}", f"{c} + w.a"]))
    start, between, head, after, tail = f"src.a = {k};", [], "", [], []
    if miss == "value":
        value = draw(st.sampled_from(["w.a + w.b", f"v.a + {c}", "w.a * 2", f"{c} - w.a"]))
    elif miss == "between":
        between = ["forall (v in g.nodes()) {", f"    v.a = v.b + {c};", "}"]
    elif miss == "source":
        start = "src.a = src.b;"
    elif miss == "body":
        after = [f"    v.a = v.a + {c};"]
    elif miss == "filter":
        head = f".filter({draw(conditions(['b']))})"
    elif miss == "reverse":
        tail = ["iterateInReverse (v != src) {", "    v.a = v.a - 1;", "}"]
    before = [f"    v.b = v.a + {c};"] if draw(st.booleans()) else []   # read first: in place
    lines = [start, *between, f"iterateInBFS (v in g.nodes() from src){head} {{", *before,
             "    for (w in g.neighbors(v)) {", f"        v.a = {value};", "    }", *after,
             "}", *tail]
    return f"bfs-depth-{miss or 'idiom'}", lines


@st.composite
def host_loop_phase(draw):
    """A host `while` loop repeating an own-property phase a few times."""
    rounds = draw(st.integers(1, 3))
    _, inner = draw(own_phase())
    lines = ["round = 0;", f"while (round < {rounds}) {{", *_indent(inner),
             "    round = round + 1;", "}"]
    return "while", lines


@st.composite
def divide_phase(draw):
    """Division or modulo by an expression that may be zero: where it is, every backend must
    stop with the reference's located run-time error."""
    op = draw(st.sampled_from(["/", "%"]))
    divisor = draw(int_exprs(["v.a", "v.b"], max_leaves=2))
    return "divide" + op, ["forall (v in g.nodes()) {",
                           f"    v.a = v.b {op} ({divisor});", "}"]


@st.composite
def flag_phase(draw):
    """Bool reductions through neighbours: w.flag |= c or w.flag &= c (atomic or/and)."""
    op = draw(st.sampled_from(["|=", "&="]))
    cond = draw(conditions(["v.b", "w.b", "e.weight"]))
    return "flag" + op, ["forall (v in g.nodes()) {", "    forall (w in g.neighbors(v)) {",
                         "        edge e = g.get_edge(v, w);",
                         f"        w.flag {op} {cond};", "    }", "}"]


@st.composite
def local_property_phase(draw):
    """A property declared in a host loop body: zero at each declaration (never the previous
    round's values), accumulated through neighbours, then folded into `a`."""
    rounds = draw(st.integers(1, 3))
    value = draw(int_exprs(["v.b", "e.weight"], max_leaves=2))
    return "local-prop", ["round = 0;", f"while (round < {rounds}) {{",
                          "    propNode<int> tmp;",
                          "    forall (v in g.nodes()) {",
                          "        forall (w in g.neighbors(v)) {",
                          "            edge e = g.get_edge(v, w);",
                          f"            w.tmp += {value};", "        }", "    }",
                          "    forall (v in g.nodes()) {", "        v.a = v.a + v.tmp;",
                          "    }", "    round = round + 1;", "}"]


@st.composite
def floating_phase(draw):
    """Float and double accumulation through neighbours (CAS-loop atomics on OpenCL) and a
    floating Min/Max. Every value is a multiple of 0.5 far below 2^24, so sums are exact in
    any order and results compare exactly."""
    target = draw(st.sampled_from(["f", "d"]))
    op = draw(st.sampled_from(["+=", "-="]))
    value = draw(int_exprs(["v.b", "e.weight"], max_leaves=2))
    func = draw(st.sampled_from(["Min", "Max"]))
    return "float-" + target, [
        "forall (v in g.nodes()) {", "    forall (w in g.neighbors(v)) {",
        "        edge e = g.get_edge(v, w);",
        f"        w.{target} {op} 0.5 * ({value});",
        f"        <w.{'d' if target == 'f' else 'f'}> = "
        f"<{func}(w.{'d' if target == 'f' else 'f'}, v.b + 0.5 * e.weight)>;",
        "    }", "}",
        "forall (v in g.nodes()) {", f"    v.a = v.a + (v.{target} > 2.5);", "}"]


@st.composite
def self_update_phase(draw):
    """An update whose value reads its own target inside a sequential loop: each step sees
    what the previous one stored (the reference once folded it as a reduction)."""
    op = draw(st.sampled_from(["+=", "-=", "*="]))
    combine = draw(st.sampled_from(["+", "-"]))
    value = draw(int_exprs(["u.b", "e.weight"], max_leaves=2))
    if draw(st.booleans()):           # the vertex's own element
        target, head, tail = "v.a", [], []
    else:                             # a local of the iteration
        start = draw(st.integers(0, 3))
        target, head, tail = "t", [f"    int t = {start};"], ["    v.a = v.a + t;"]
    return "self-update" + op, ["forall (v in g.nodes()) {", *head,
                                "    for (u in g.nodes_to(v)) {",
                                "        edge e = g.get_edge(u, v);",
                                f"        {target} {op} {target} {combine} {value};",
                                "    }", *tail, "}"]


@st.composite
def commuting_updates_phase(draw):
    """One scalar updated with '+=' and '-=' (operators that commute) in one forall."""
    filt = draw(st.one_of(st.none(), conditions(["a", "b"])))
    head = "forall (v in g.nodes()" + (f".filter({filt})" if filt else "") + ") {"
    return "mixed+-", [head, f"    total += {draw(int_exprs(['v.a', 'v.b']))};",
                       f"    if ({draw(conditions(['v.a', 'v.b']))}) {{",
                       f"        total -= {draw(int_exprs(['v.b']))};", "    }", "}"]


#: per operator, constants at the edges of the integer range with which it overflows for
#: most small operands (INF is INT_MAX for an int, -INF INT_MIN)
EDGE_CONSTANTS = {"+": ["INF", "2147483647", "2147483645", "-INF"],
                  "-": ["-INF", "-2147483647", "2147483647", "INF"],
                  "*": ["1073741824", "-2147483648", "65536", "INF"]}


@st.composite
def range_edge_phase(draw):
    """Signed arithmetic that overflows: it wraps on every backend (LANGUAGE.md §2), and a
    comparison of a wrapped value with its operand must not be folded away by a device
    compiler that assumes no overflow ('a + K < a' to 'K < 0': OpenCL once did). Only `a` is
    written, back to small values, so later phases stay in range."""
    plus, minus, times = (draw(st.sampled_from(EDGE_CONSTANTS[op])) for op in "+-*")
    wide = draw(st.sampled_from(["int", "long"]))   # an int product widened, or not
    first, second, third = (draw(st.sampled_from(["<", ">"])) for _ in range(3))
    return "range-edge", ["forall (v in g.nodes()) {",
                          f"    int t = v.a + {plus};", f"    int u = -(v.a - {minus});",
                          f"    {wide} w = v.a * {times};",
                          f"    v.a = (t {first} v.a) + 2 * (u {second} v.a) + "
                          f"4 * (w {third} v.a) + t % 8;", "}"]


@st.composite
def call_phase(draw):
    """A call of the helper function (properties by reference, the scalar by value); the
    device backends inline it."""
    return "call", [f"Helper(g, a, b, {draw(st.integers(0, 5))});"]


HELPER = """\
function Helper(Graph g, propNode<int> a, propNode<int> b, int k) {
    forall (v in g.nodes()) {
        v.a = v.a + v.b * k;
    }
    k = k + 1;
    if (k > 3) {
        return;
    }
    forall (v in g.nodes()) {
        v.b = v.b + k;
    }
}
"""

# -- constructs beyond the dsl library's shapes (LANGUAGE.md allows them; MPI distributes them)

@st.composite
def triangle_phase(draw):
    """Nested neighbour loops of v asking g.is_an_edge(u, w) of two of its neighbours (the
    triangle-count shape): MPI answers from the ghost rows of v's neighbours. The count goes
    to `total` (a reduction), to v.a (a reduction on v's own element from nested foralls) or
    to a local summed in sequential loops."""
    first, second = (draw(st.sampled_from(["g.neighbors(v)", "g.nodes_to(v)"]))
                     for _ in range(2))
    outer_filter = draw(st.sampled_from(["", ".filter(u < v)", ".filter(u != v)"]))
    inner_filter = draw(st.sampled_from(["", ".filter(w > v)", ".filter(w > u)",
                                         ".filter(w != u)"]))
    query = draw(st.sampled_from(["g.is_an_edge(u, w)", "g.is_an_edge(w, u)",
                                  "g.is_an_edge(v, w)", "g.is_an_edge(u, v)"]))
    into = draw(st.sampled_from(["total", "v.a", "local"]))
    loop = "for" if into == "local" else draw(st.sampled_from(["for", "forall"]))
    count = {"total": "total += 1;", "v.a": "v.a += 1;", "local": "c = c + 1;"}[into]
    extra = draw(st.sampled_from(["", " && u.b > w.b", " || w.b == 2"]))
    body = [f"{loop} (u in {first}{outer_filter}) {{",
            f"    {loop} (w in {second}{inner_filter}) {{",
            f"        if ({query}{extra}) {{", f"            {count}", "        }",
            "    }", "}"]
    if into == "local":
        body = ["int c = 0;", *body, "v.a = v.a + c;"]
    return "triangle-" + into, ["forall (v in g.nodes()) {", *_indent(body), "}"]


@st.composite
def max_once_phase(draw):
    """A Min/Max assignment with a secondary target outside any loop that repeats it: the
    candidate reads only `b` and the edge, the secondary is True or the candidate itself (so
    every update achieving the final value stores the same)."""
    kind = draw(st.sampled_from(["Min", "Max"]))
    candidate = draw(int_exprs(["v.b", "e.weight", "g.count_outNbrs(v)"], max_leaves=3))
    inner_filter = draw(st.one_of(st.none(), conditions(["b"])))
    second, value = draw(st.sampled_from([("w.flag", "True"), ("w.d", f"({candidate}) * 0.5"),
                                          ("w.f", f"{candidate} + 0.5")]))
    nbrs = draw(st.sampled_from(["g.neighbors(v)", "g.nodes_to(v)"]))
    edge = "g.get_edge(v, w)" if nbrs == "g.neighbors(v)" else "g.get_edge(w, v)"
    loop = f"forall (w in {nbrs}" + (f".filter({inner_filter})" if inner_filter else "") + ")"
    return f"once-{kind}", ["forall (v in g.nodes()) {", f"    {loop} {{",
                            f"        edge e = {edge};",
                            f"        <w.a, {second}> = <{kind}(w.a, {candidate}), {value}>;",
                            "    }", "}"]


@st.composite
def converge_phase(draw):
    """A host while/do-while loop whose condition is a scalar the loop's forall computes (a
    count, or a bool stored False by any iteration that still changes), bounded by `round`
    and a `break`: values may be anything after earlier phases."""
    limit, step = draw(st.integers(-2, 12)), draw(st.integers(1, 3))
    filt = draw(st.sampled_from([f"a < {limit}", f"a + b < {limit}", f"a < {limit} && b != 1"]))
    kind = draw(st.sampled_from(["count", "flag", "do"]))
    change = [f"v.a = v.a + {step};"]
    if draw(st.booleans()):
        change.append("forall (w in g.neighbors(v)) {")
        change.append(f"    w.b += {draw(st.integers(0, 2))};" if "b" not in filt
                      else "    total += 1;")
        change.append("}")
    mark = {"count": "total++;", "flag": "done = False;", "do": "total++;"}[kind]
    body = [f"forall (v in g.nodes().filter({filt})) {{", *_indent(change),
            f"    {mark}", "}", "round = round + 1;"]
    bound = draw(st.integers(2, 8))
    if kind == "count":
        lines = ["round = 0;", "total = 1;", f"while (total > 0 && round < {bound}) {{",
                 "    total = 0;", *_indent(body), "}"]
    elif kind == "flag":
        lines = ["round = 0;", "done = False;", "while (!done) {", "    done = True;",
                 *_indent(body), f"    if (round >= {bound}) {{", "        break;", "    }", "}"]
    else:
        lines = ["round = 0;", "do {", "    total = 0;", *_indent(body),
                 f"}} while (total != 0 && round < {bound});"]
    return "converge-" + kind, lines


@st.composite
def source_set_phase(draw):
    """`for (s in sources)` over a SetN parameter (the betweenness-centrality shape): per
    source a path count by iterateInBFS from s, a reverse sweep of integer dependencies, and
    an accumulation into `b`."""
    reverse_cond = draw(st.sampled_from(["v != s", "v.sigma > 1", "v == v"]))
    credit = draw(st.sampled_from(["v.sigma + w.delta", "w.delta + 1", "w.sigma - v.sigma"]))
    lines = ["for (s in sources) {", "    g.attachNodeProperty(sigma = 0, delta = 0);",
             "    s.sigma = 1;", "    iterateInBFS (v in g.nodes() from s) {",
             "        for (w in g.neighbors(v)) {", "            v.sigma = v.sigma + w.sigma;",
             "        }", "    }", f"    iterateInReverse ({reverse_cond}) {{",
             "        for (w in g.neighbors(v)) {",
             f"            v.delta = v.delta + {credit};", "        }", "    }",
             "    forall (v in g.nodes().filter(v != s)) {",
             "        v.b = v.b + v.delta % 5;", "    }", "    total = total + s.sigma;", "}"]
    return "source-set", lines


@st.composite
def long_phase(draw):
    """`long` values above 2^32 pushed to neighbours, then folded with int and double
    arithmetic (promotions, a long product that wraps, a narrowing into `a`)."""
    base = draw(st.sampled_from(["3000000000", "4294967296", "9000000000000000000",
                                 "-5000000000"]))
    value = draw(int_exprs(["v.b", "e.weight"], max_leaves=2))
    fold = draw(st.sampled_from(["v.big * 1000003 + v.a", "v.big / (v.b * v.b + 1)",
                                 "v.big % 1000 + v.a * 3", "-v.big"]))
    back = draw(st.sampled_from(["v.a = v.a + v.big % 11;", "v.d = v.big / 4.0 + v.a * 0.5;",
                                 "v.a = (v.big > 0) + (v.big % 2 == 0);"]))
    return "long", ["forall (v in g.nodes()) {", "    long step = v.b;",
                    f"    step = step * {base};",
                    "    forall (w in g.neighbors(v)) {", "        edge e = g.get_edge(v, w);",
                    f"        w.big += step + {value};", "    }", "}",
                    "forall (v in g.nodes()) {", f"    v.big = {fold};", f"    {back}", "}"]


@st.composite
def edges_phase(draw):
    """A forall over the edges (optionally filtered by weight) pushing to the destination
    from the source's values, with the weights' bounds minWt/maxWt inside the loop and on
    the host (a whole-graph value on every rank)."""
    bound = draw(st.sampled_from(["minWt(weight)", "maxWt(weight)"]))
    value = draw(int_exprs(["s.b", "e.weight", bound], max_leaves=3))
    filt = draw(st.sampled_from(["", ".filter(weight > 2)", f".filter(weight < {bound})"]))
    update = draw(st.sampled_from([f"t.a += {value};", f"<t.a> = <Max(t.a, {value})>;",
                                   f"t.a = Min(t.a, {value});"]))
    return "edges", [f"forall (e in g.edges(){filt}) {{", "    node s = e.source;",
                     "    node t = e.destination;", f"    {update}", "}",
                     "total = total + maxWt(weight) - minWt(weight);"]


#: the phases of constructs the dsl library does not use (run by OpenCL and MPI besides
#: the general fuzzers, which draw them among all phases)
_SOURCE_SET, _LONG = source_set_phase(), long_phase()
NEW_PHASES = [triangle_phase(), max_once_phase(), converge_phase(), _SOURCE_SET, _LONG,
              edges_phase()]

#: the shapes of issue 32's findings: an update reading its own target in a sequential loop,
#: commuting operators mixed on one scalar, arithmetic at the edges of the integer range (and,
#: through ``conditions``, comparisons of a value with itself)
EDGE_PHASES = [self_update_phase(), commuting_updates_phase(), range_edge_phase()]

PHASES = [own_phase(), push_phase(), pull_phase(), reduction_phase(), relax_phase(),
          bfs_phase(), bfs_depth_phase(), host_loop_phase(), divide_phase(), flag_phase(), local_property_phase(),
          floating_phase(), call_phase(), *EDGE_PHASES, *NEW_PHASES]

#: the phases whose programs keep the signature ``SIGNATURE``: the others add a parameter (a
#: SetN of sources, a long property), which a caller with a fixed argument list (the Dynamic
#: fuzzer's call of its static function) cannot pass
FIXED_SIGNATURE_PHASES = [phase for phase in PHASES if phase not in (_SOURCE_SET, _LONG)]


@st.composite
def programs(draw, max_phases: int = 3, phases=None, min_phases: int = 1) -> FuzzProgram:
    """A whole program: attach initial values, min_phases..max_phases phases (of ``phases``,
    default every phase), return `total`. The fuzzers that build each example ask for more
    phases per program and fewer examples: one build then checks several phases (CI time)."""
    a0, b0 = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    phases = draw(st.lists(st.one_of(phases or PHASES), min_size=min_phases,
                           max_size=max_phases))
    lines = ["propNode<bool> active;", "bool done = False;", "int total = 0;",
             "int round = 0;",
             f"g.attachNodeProperty(a = {a0}, b = {b0}, flag = False, active = False, "
             f"f = 0.5, d = 1.5);"]
    body = [line for _, phase in phases for line in phase]
    signature = SIGNATURE
    # the parameters and properties only some phases use (every program would print them)
    if any("sources" in line for line in body):
        signature = signature[:-1] + ", SetN<g> sources)"
        lines[:0] = ["propNode<int> sigma;", "propNode<int> delta;"]
    if any(".big" in line for line in body):
        signature = signature[:-1] + ", propNode<long> big)"
    lines += body
    lines.append("return total;")
    text = HELPER + signature + " {\n" + "\n".join(_indent(lines)) + "\n}\n"
    return FuzzProgram(text, tuple(name for name, _ in phases))


def program_params(text: str, num_nodes: int) -> dict:
    """The parameters of a generated program on a graph of ``num_nodes`` vertices: the source
    vertex 0, and a set of sources (first, last and middle vertex, in that order)."""
    params = {"src": "0"} if "node src" in text else {}
    if "SetN<g> sources" in text:
        ids = dict.fromkeys([0, num_nodes - 1, num_nodes // 2])
        params["sources"] = ",".join(map(str, ids))
    return params


#: signatures of programs without kernels, and the leaves their expressions may read
_HOST_SIGNATURES = [
    ("function Fuzz(Graph g, node src)", ["x", "y", "g.num_nodes()", "g.count_outNbrs(src)"]),
    ("function Fuzz(Graph g, propNode<int> a, node src)",
     ["x", "y", "src.a", "g.num_edges()", "g.count_inNbrs(src)"]),
    ("function Fuzz(Graph g)", ["x", "y", "g.num_nodes()"]),
    ("function Fuzz()", ["x", "y"]),
]


@st.composite
def host_programs(draw) -> FuzzProgram:
    """Programs without a forall (no kernel at all, or only a host write of one element):
    scalars, host loops and branches, graph queries, a returned value."""
    signature, leaves = draw(st.sampled_from(_HOST_SIGNATURES))
    lines = [f"int x = {draw(st.integers(-3, 9))};", f"long y = {draw(st.integers(0, 9))};"]
    if "src.a" in leaves:
        lines.append(f"src.a = {draw(int_exprs(['x', 'g.count_outNbrs(src)']))};")
    rounds = draw(st.integers(0, 3))
    lines += [f"while (x < {rounds + 3}) {{", f"    y = y + {draw(int_exprs(leaves))};",
              "    x = x + 1;", "}"]
    if draw(st.booleans()):
        lines += [f"if ({draw(conditions(leaves))}) {{",
                  f"    y = {draw(int_exprs(leaves))};", "}"]
    if draw(st.booleans()):
        lines.append("return y;")
    elif draw(st.booleans()):
        lines.append(f"return {draw(int_exprs(leaves))};")
    text = signature + " {\n" + "\n".join(_indent(lines)) + "\n}\n"
    return FuzzProgram(text, ("host-only",))


#: pairs of update operators on one shared target that do not commute
NON_COMMUTING = [("+=", "*="), ("*=", "-="), ("&=", "|="), ("Min", "Max"), ("++", "*="),
                 ("Max", "+=")]


@st.composite
def non_commuting_programs(draw):
    """(program, line) where one forall updates one shared target (a scalar or another
    vertex's element) with two operators that do not commute: E0402 at ``line``."""
    first, second = draw(st.sampled_from(NON_COMMUTING))
    shared = draw(st.sampled_from(["scalar", "element"]))
    target, kind = (("n", "int"), ("w.a", "int"))[shared == "element"]
    if first == "&=" or second == "&=":
        target, kind = ("done", "bool") if shared == "scalar" else ("w.flag", "bool")

    def update(op):
        value = "v.b > 1" if kind == "bool" else draw(int_exprs(["v.b"], max_leaves=2))
        if op in ("Min", "Max"):
            return f"{target} = {op}({target}, {value});"
        if op == "++":
            return f"{target}++;"
        return f"{target} {op} {value};"

    body = [update(first), update(second)]
    if draw(st.booleans()):
        body = [f"if ({draw(conditions(['v.b']))}) {{", "    " + body[0], "} else {",
                "    " + body[1], "}"]
    if shared == "element":
        body = ["forall (w in g.neighbors(v)) {", *_indent(body), "}"]
    lines = ["int n = 0;", "bool done = False;", "forall (v in g.nodes()) {",
             *_indent(body), "}", "return n;"]
    text = SIGNATURE + " {\n" + "\n".join(_indent(lines)) + "\n}\n"
    # E0402 is reported at the second update; lines[i] is line i + 2 (after the signature)
    return text, 2 + max(i for i, line in enumerate(lines) if _updates(line, second, target))


def _updates(line: str, op: str, target: str) -> bool:
    """Whether ``line`` holds the update of ``target`` with ``op``."""
    if op in ("Min", "Max"):
        return f"{op}({target}" in line
    return f"{target}{op}" in line if op == "++" else f"{target} {op}" in line


@st.composite
def graphs(draw, max_nodes: int = 9) -> Graph:
    """Small weighted directed graphs: cycles, self-loops, duplicate edges and isolated
    vertices all appear; weights 1..9; at least one vertex (the source is vertex 0)."""
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, 3 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    w = draw(st.lists(st.integers(1, 9), min_size=m, max_size=m))
    return Graph.from_edges(n, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                            np.array(w, dtype=np.float64), True, "fuzz")


def witness_graph() -> Graph:
    """A fixed small graph every built example also runs on (a run is milliseconds, the build
    is the cost): Hypothesis's first example is its simplest, a graph of one vertex, so with
    the few examples of the CI budget each build still meets a cycle, a self-loop, a
    duplicate edge of another weight, a vertex of several in-neighbours, a second component
    and an isolated vertex."""
    src = [0, 0, 1, 2, 2, 1, 3, 4, 0]
    dst = [1, 2, 2, 0, 2, 2, 4, 3, 3]
    w = [3, 1, 4, 1, 5, 9, 2, 6, 5]
    return Graph.from_edges(6, np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64),
                            np.array(w, dtype=np.float64), True, "witness")
