"""Hypothesis strategies for syntactically valid syntax trees (``programs()``, ``statements()``,
``expressions()``): every tree they build survives ``parse(unparse(tree)) == tree``.

The trees are random in shape, not meaningful programs (names are not declared, types do not
match): they exercise the parser and unparser, and any stage that must not crash on odd input.
"""

from __future__ import annotations

from hypothesis import strategies as st

from starc.frontend import ast
from starc.frontend.lexer import KEYWORDS, RESERVED_WORDS

__all__ = ["programs", "functions", "statements", "expressions", "identifiers", "types"]

_NOT_NAMES = set(KEYWORDS) | set(RESERVED_WORDS)

_COMMON_NAMES = ["g", "v", "w", "nbr", "src", "dist", "modified", "weight", "e", "x", "sum_",
                 "_t", "count2", "neighbours", "finished", "BC", "sigma"]

identifiers = st.one_of(
    st.sampled_from(_COMMON_NAMES),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True).filter(
        lambda s: s not in _NOT_NAMES),
)

# Method names that the parser turns into something else when they stand as a statement.
_method_names = identifiers.filter(lambda s: s not in ("attachNodeProperty",
                                                       "attachEdgeProperty"))

_FLOAT_TEXTS = st.one_of(
    st.sampled_from(["1.5", "1.", ".5", "1e-6", "2.5e3", "0.0", "3.14159", "1E+10", "7e0"]),
    st.builds(lambda a, b: f"{a}.{b}", st.integers(0, 10**6), st.integers(0, 999)),
)


names = st.builds(ast.Name, identifiers)
int_lits = st.builds(ast.IntLit, st.integers(min_value=0, max_value=2**63))
float_lits = _FLOAT_TEXTS.map(lambda text: ast.FloatLit(float(text), text))
bool_lits = st.sampled_from([("True", True), ("False", False), ("true", True),
                             ("false", False)]).map(lambda p: ast.BoolLit(p[1], p[0]))
inf_lits = st.sampled_from(["INF", "INT_MAX"]).map(ast.InfLit)

atoms = st.one_of(names, int_lits, float_lits, bool_lits, inf_lits)

_BINARY_OPS = ["||", "&&", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"]
_FREE_FUNCTIONS = st.one_of(st.sampled_from(["Min", "Max", "Sum", "Count", "Product", "minWt",
                                             "maxWt"]), identifiers)


def _extend(children):
    args = st.lists(children, max_size=3).map(tuple)
    return st.one_of(
        st.builds(ast.Binary, st.sampled_from(_BINARY_OPS), children, children),
        st.builds(ast.Unary, st.sampled_from(["-", "!"]), children),
        st.builds(ast.Member, children, identifiers),
        st.builds(ast.MethodCall, children, _method_names, args),
        st.builds(ast.Index, children, children),
        st.builds(ast.Call, _FREE_FUNCTIONS, args),
    )


def expressions(max_leaves: int = 12):
    """Any expression tree."""
    return st.recursive(atoms, _extend, max_leaves=max_leaves)


def _postfix(children):
    return st.one_of(
        names,
        st.builds(ast.Member, children, identifiers),
        st.builds(ast.Index, children, expressions(4)),
    )


# Assignable-looking expressions: names, v.p, a[i], nested.
lvalues = st.recursive(names, _postfix, max_leaves=3)

calls = st.one_of(
    st.builds(ast.Call, _FREE_FUNCTIONS, st.lists(expressions(4), max_size=3).map(tuple)),
    st.builds(ast.MethodCall, lvalues, _method_names,
              st.lists(expressions(4), max_size=3).map(tuple)),
)

_SCALAR_TYPES = ["int", "long", "float", "double", "bool", "node", "edge", "Graph", "dirGraph"]
scalar_types = st.sampled_from(_SCALAR_TYPES).map(ast.TypeExpr)


def types():
    """Every form of type: scalars, propNode/propEdge of a type, SetN/SetE of a graph."""
    return st.one_of(
        scalar_types,
        st.builds(lambda kind, inner: ast.TypeExpr(kind, (inner,)),
                  st.sampled_from(["propNode", "propEdge"]), scalar_types),
        st.builds(lambda kind, graph: ast.TypeExpr(kind, (graph,)),
                  st.sampled_from(["SetN", "SetE"]), identifiers),
    )


_iter_sources = st.one_of(
    st.builds(ast.IterSource, names, st.sampled_from(["nodes", "edges"]), st.just(()),
              st.none() | expressions(5)),
    st.builds(ast.IterSource, names, st.sampled_from(["neighbors", "nodes_to", "neighbours"]),
              st.tuples(names), st.none() | expressions(5)),
    st.builds(ast.IterSource, names | st.builds(ast.Member, names, identifiers),
              st.none(), st.just(()), st.none() | expressions(5)),
)


def _simple_statements():
    expr = expressions(6)
    return st.one_of(
        st.builds(ast.VarDecl, types(), st.lists(
            st.builds(ast.Declarator, identifiers, st.none() | expr), min_size=1,
            max_size=3).map(tuple)),
        st.builds(ast.Assign, lvalues, expr),
        st.builds(ast.CompoundAssign, lvalues, st.sampled_from(list("+-*/&|")), expr),
        st.builds(ast.IncDec, lvalues, st.sampled_from(["++", "--"])),
        st.builds(ast.MinMaxAssign, st.lists(lvalues, min_size=1, max_size=3).map(tuple),
                  st.sampled_from(["Min", "Max"]),
                  st.lists(expressions(4), max_size=3).map(tuple),
                  st.lists(expressions(4), max_size=2).map(tuple)),
        st.builds(ast.Attach, names, st.sampled_from(["node", "edge"]),
                  st.lists(st.tuples(identifiers, expressions(4)), max_size=3).map(tuple)),
        st.builds(ast.Return, st.none() | expr),
        st.builds(ast.Break),
        st.builds(ast.Continue),
        st.builds(ast.ExprStmt, calls),
    )


def _block(stmts):
    return st.lists(stmts, max_size=4).map(lambda items: ast.Block(tuple(_fix_list(items))))


def _fix_list(items):
    """A standalone iterateInReverse right after an iterateInBFS would attach to it when
    reparsed: keep such lists as the parser builds them."""
    out = []
    for item in items:
        if isinstance(item, ast.IterateInReverse) and out and _ends_in_bfs(out[-1]):
            continue
        out.append(item)
    return out


def _ends_in_bfs(stmt) -> bool:
    return isinstance(stmt, ast.IterateInBFS) and stmt.reverse is None


def statements(max_depth: int = 3):
    """Any statement, compound statements nested up to ``max_depth``; the body of a compound
    statement is a block or a simple statement (as the parser builds them)."""
    simple = _simple_statements()
    if max_depth <= 0:
        return simple
    inner = statements(max_depth - 1)
    body = st.one_of(_block(inner), simple)
    expr = expressions(6)
    reverse = st.builds(ast.IterateInReverse, st.none() | expr, _block(inner))
    return st.one_of(
        simple,
        _block(inner),
        st.builds(ast.If, expr, body, st.none() | body),
        st.builds(ast.While, expr, body),
        st.builds(ast.DoWhile, body, expr),
        st.builds(ast.Loop, identifiers, _iter_sources, body, st.booleans()),
        st.builds(ast.FixedPoint, identifiers, expr, body),
        st.builds(ast.IterateInBFS, identifiers, names, expr, st.none() | expr, _block(inner),
                  st.none() | reverse),
        reverse,
    )


def functions(max_depth: int = 3):
    params = st.lists(st.builds(ast.Param, types(), identifiers), max_size=4).map(tuple)
    return st.builds(ast.Function, identifiers, params, _block(statements(max_depth)),
                     st.sampled_from(["function", "Static"]))


def programs(max_depth: int = 3):
    """A whole program: one to three functions."""
    return st.builds(ast.Program, st.lists(functions(max_depth), min_size=1,
                                           max_size=3).map(tuple))
