"""The closure compiler: each IR node becomes a specialised Python function over a flat env.

Every function of the program gets a list of slots (one per symbol, ``env[slot]``); an
expression compiles to ``f(env) -> value`` and a statement to ``s(env) -> signal`` where the
signal is None (go on), BREAK, CONTINUE or RETURN. Semantics are LANGUAGE.md §6 executed
sequentially: forall iterations run in ascending order. Loops over all vertices (and the
bodies of iterateInBFS) first try the vectorised kernels of ``starc.reference.vectorize``.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Tuple

import numpy as np

from starc.ir import nodes as ir
from starc.ir.types import PropType, Scalar, UpdatesType, is_integer
from starc.reference.dynamic import EMPTY_UPDATES, DynamicStatements, compile_dynamic_body
from starc.reference.loops import (BREAK, CONTINUE, RETURN, BFSState, LoopStatements,
                                   check_vertex as _check_vertex)
from starc.reference.randoms import starc_random
from starc.reference.values import (ExecutionError, c_div, c_mod, cast_value, float_div,
                                    inf_value, normalizer, numpy_dtype, to_float32, zero_value)

__all__ = ["ProgramCompiler", "CompiledFunction", "BFSState", "BREAK", "CONTINUE", "RETURN"]

class CompiledFunction:
    def __init__(self, fn: ir.Function, nslots: int, param_slots: List[int], ret_slot: int):
        self.fn = fn
        self.nslots = nslots
        self.param_slots = param_slots
        self.ret_slot = ret_slot
        self.body: Callable = None  # set after compilation (recursion may need the object first)

    def call(self, args: List[object]):
        env = [None] * self.nslots
        for slot, value in zip(self.param_slots, args):
            env[slot] = value
        self.body(env)
        return env[self.ret_slot]


class ProgramCompiler:
    """Compiles the functions of one program for one graph, on demand."""

    def __init__(self, program: ir.Program, view, vectorize: bool = True) -> None:
        self.program = program
        self.view = view
        self.vectorize = vectorize
        self.functions: Dict[str, CompiledFunction] = {}
        self.stats = {"vector": 0, "fallback": 0}

    def function(self, name: str) -> CompiledFunction:
        if name not in self.functions:
            fn = self.program.function(name)
            compiler = FunctionCompiler(self, fn)
            compiled = CompiledFunction(fn, 0, [], 0)
            self.functions[name] = compiled
            if fn.kind == "Dynamic":
                body = compile_dynamic_body(compiler, fn)
            else:
                body = compiler.stmt(fn.body)
            compiled.param_slots = [compiler.slot(p) for p in fn.params]
            compiled.ret_slot = compiler.ret_slot
            compiled.nslots = compiler.next_slot
            compiled.body = body
        return self.functions[name]


def const_value(e: ir.Const):
    """A literal converted to its type (C semantics)."""
    value, t = e.value, e.type
    if t is Scalar.BOOL:
        return bool(value)
    if t in (Scalar.FLOAT, Scalar.DOUBLE):
        return to_float32(float(value)) if t is Scalar.FLOAT else float(value)
    if isinstance(value, float):
        return cast_value(value, Scalar.DOUBLE, t)
    return cast_value(int(value), Scalar.LONG, t)


class FunctionCompiler(LoopStatements, DynamicStatements):
    def __init__(self, owner: ProgramCompiler, fn: ir.Function) -> None:
        self.owner = owner
        self.view = owner.view
        self.fn = fn
        self.slots: Dict[int, int] = {}
        self.next_slot = 0
        self.ret_slot = self._new_slot()
        # fixedPoint double buffering: prop uid -> slot receiving writes inside the body
        self.write_redirect: Dict[int, int] = {}
        # (BFS variable uid, slot of its BFSState) of each enclosing iterateInBFS, innermost
        # last: a parents/children loop uses the BFS of the vertex it iterates around.
        self.bfs_stack: List[Tuple[int, int]] = []
        # stream uid -> the slot holding its current batch (a Dynamic function's Batch)
        self.batch_slots: Dict[int, int] = {}

    # -- slots ----------------------------------------------------------------------------
    def _new_slot(self) -> int:
        self.next_slot += 1
        return self.next_slot - 1

    def slot(self, sym: ir.Symbol) -> int:
        if sym.uid not in self.slots:
            self.slots[sym.uid] = self._new_slot()
        return self.slots[sym.uid]

    def write_slot(self, sym: ir.Symbol) -> int:
        return self.write_redirect.get(sym.uid, self.slot(sym))

    def prop_limit(self, sym: ir.Symbol) -> int:
        kind = sym.type.kind if isinstance(sym.type, PropType) else "node"
        return self.view.num_nodes if kind == "node" else self.view.num_edges

    # -- expressions ----------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> Callable:
        method = getattr(self, "_e_" + type(e).__name__)
        return method(e)

    def _e_Const(self, e: ir.Const):
        value = const_value(e)
        return lambda env: value

    def _e_Inf(self, e: ir.Inf):
        value = inf_value(e.type, e.negative)
        return lambda env: value

    def _e_VarRef(self, e: ir.VarRef):
        slot = self.slot(e.sym)
        return lambda env: env[slot]

    def _e_PropRead(self, e: ir.PropRead):
        slot = self.slot(e.prop)
        limit = self.prop_limit(e.prop)
        loc = e.loc
        name = e.prop.name
        if isinstance(e.index, ir.VarRef) and e.index.sym.kind in (ir.SymbolKind.LOOP,
                                                                   ir.SymbolKind.EDGE):
            index_slot = self.slot(e.index.sym)
            return lambda env: env[slot].item(env[index_slot])
        index = self.expr(e.index)

        def read(env):
            i = index(env)
            if not 0 <= i < limit:
                raise ExecutionError(f"index {i} of {name!r} out of range 0..{limit - 1}", loc)
            return env[slot].item(i)
        return read

    def _e_EdgeEndpoint(self, e: ir.EdgeEndpoint):
        edge = self.expr(e.edge)
        lists = self.view.lists
        array = lists[5] if e.end == "source" else lists[1]
        limit = self.view.num_edges
        loc = e.loc

        def endpoint(env):
            i = edge(env)
            if not 0 <= i < limit:
                raise ExecutionError(f"edge {i} out of range 0..{limit - 1}", loc)
            return array[i]
        return endpoint

    def _e_Unary(self, e: ir.Unary):
        operand = self.expr(e.operand)
        if e.op == "!":
            return lambda env: not operand(env)
        norm = normalizer(e.type)
        return lambda env: norm(-operand(env))

    def _e_Binary(self, e: ir.Binary):
        left, right, op, t = self.expr(e.left), self.expr(e.right), e.op, e.type
        if op == "&&":
            return lambda env: bool(left(env)) and bool(right(env))
        if op == "||":
            return lambda env: bool(left(env)) or bool(right(env))
        compare = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b,
                   "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                   ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
        if op in compare:
            fn = compare[op]
            return lambda env: fn(left(env), right(env))
        norm = normalizer(t)
        loc = e.loc
        if op in ("/", "%") and is_integer(t):
            basic = c_div if op == "/" else c_mod

            def int_divide(env):
                a, b = left(env), right(env)
                if b == 0:
                    raise ExecutionError("integer division by zero" if op == "/" else
                                         "integer modulo by zero", loc)
                return norm(basic(a, b))
            return int_divide
        if op == "/":
            return lambda env: norm(float_div(left(env), right(env)))
        if op == "%":
            import math
            return lambda env: norm(math.fmod(left(env), right(env)))
        if t is Scalar.DOUBLE:
            if op == "+":
                return lambda env: left(env) + right(env)
            if op == "-":
                return lambda env: left(env) - right(env)
            return lambda env: left(env) * right(env)
        if op == "+":
            return lambda env: norm(left(env) + right(env))
        if op == "-":
            return lambda env: norm(left(env) - right(env))
        if op == "*":
            return lambda env: norm(left(env) * right(env))
        raise NotImplementedError(f"operator {op}")

    def _e_Cast(self, e: ir.Cast):
        inner = self.expr(e.expr)
        source, target = e.expr.type, e.type
        narrow = (Scalar.INT, Scalar.NODE, Scalar.EDGE)
        if source == target or (source in narrow and target in narrow) or (
                source in narrow and target is Scalar.LONG):
            return inner
        if source is Scalar.BOOL and target in narrow + (Scalar.LONG,):
            return lambda env: int(inner(env))
        return lambda env: cast_value(inner(env), source, target)

    def _e_MinMax(self, e: ir.MinMax):
        left, right = self.expr(e.left), self.expr(e.right)
        if e.func == "Min":   # std::min(a, b): b < a ? b : a
            def minimum(env):
                a, b = left(env), right(env)
                return b if b < a else a
            return minimum

        def maximum(env):
            a, b = left(env), right(env)
            return b if a < b else a
        return maximum

    def _e_GraphQuery(self, e: ir.GraphQuery):
        view = self.view
        args = [self.expr(a) for a in e.args]
        n, loc = view.num_nodes, e.loc
        if e.op == "num_nodes":
            return lambda env: n
        if e.op == "num_edges":
            m = view.num_edges
            return lambda env: m
        offsets, _, rev_offsets = view.lists[0], view.lists[1], view.lists[2]
        if e.op in ("count_outNbrs", "count_inNbrs"):
            table = offsets if e.op == "count_outNbrs" else rev_offsets
            arg = args[0]

            def count(env):
                v = _check_vertex(arg(env), n, "vertex", loc)
                return table[v + 1] - table[v]
            return count
        first, second = args
        find = view.find_edge
        if e.op == "is_an_edge":
            return lambda env: find(_check_vertex(first(env), n, "vertex", loc),
                                    _check_vertex(second(env), n, "vertex", loc)) >= 0
        if e.op == "get_edge":
            return lambda env: find(_check_vertex(first(env), n, "vertex", loc),
                                    _check_vertex(second(env), n, "vertex", loc))
        raise NotImplementedError(f"graph query {e.op}")

    def _e_WeightBound(self, e: ir.WeightBound):
        slot = self.slot(e.prop)
        minimum = e.func == "minWt"
        empty = inf_value(e.type, negative=not minimum)

        def bound(env):
            array = env[slot]
            if array.size == 0:
                return empty
            return (array.min() if minimum else array.max()).item()
        return bound

    def _e_Random(self, e: ir.Random):
        parts = [self.expr(x) for x in (e.seed, e.draw, e.position, e.vertex)]
        return lambda env: int(starc_random(*(part(env) for part in parts)))

    def _e_CallExpr(self, e: ir.CallExpr):
        owner = self.owner
        name = e.function
        args = [self.expr(a) for a in e.args]
        return lambda env: owner.function(name).call([a(env) for a in args])

    # -- statements -----------------------------------------------------------------------
    def stmt(self, s: ir.Stmt) -> Callable:
        return getattr(self, "_s_" + type(s).__name__)(s)

    def _s_Block(self, s: ir.Block):
        stmts = [self.stmt(x) for x in s.stmts]
        if len(stmts) == 1:
            return stmts[0]

        def block(env):
            for st in stmts:
                signal = st(env)
                if signal is not None:
                    return signal
            return None
        return block

    def _s_Declare(self, s: ir.Declare):
        slot = self.slot(s.sym)
        t = s.sym.type
        if isinstance(t, PropType):
            size = self.view.num_nodes if t.kind == "node" else self.view.num_edges
            dtype = numpy_dtype(t.elem)

            def declare_prop(env):
                env[slot] = np.zeros(size, dtype=dtype)
            return declare_prop
        if s.init is None:
            zero = zero_value(t) if isinstance(t, Scalar) else \
                EMPTY_UPDATES if isinstance(t, UpdatesType) else None

            def declare(env):
                env[slot] = zero
            return declare
        init = self.expr(s.init)

        def declare_init(env):
            env[slot] = init(env)
        return declare_init

    def _store(self, target: ir.LValue) -> Callable:
        """``store(env, value)`` writing ``target`` (through the fixedPoint redirect)."""
        if isinstance(target, ir.VarRef):
            slot = self.slot(target.sym)

            def store_var(env, value):
                env[slot] = value
            return store_var
        slot = self.write_slot(target.prop)
        limit = self.prop_limit(target.prop)
        index = self.expr(target.index)
        loc, name = target.loc, target.prop.name

        def store_prop(env, value):
            i = index(env)
            if not 0 <= i < limit:
                raise ExecutionError(f"index {i} of {name!r} out of range 0..{limit - 1}", loc)
            env[slot][i] = value
        return store_prop

    def _location(self, target: ir.LValue):
        """``(load, store)`` of one resolved element: ``resolve(env) -> key`` first."""
        if isinstance(target, ir.VarRef):
            slot = self.slot(target.sym)
            return (lambda env: slot), (lambda env, key: env[key]), \
                (lambda env, key, value: env.__setitem__(key, value))
        read_slot = self.slot(target.prop)
        write_slot = self.write_slot(target.prop)
        limit = self.prop_limit(target.prop)
        index = self.expr(target.index)
        loc, name = target.loc, target.prop.name

        def resolve(env):
            i = index(env)
            if not 0 <= i < limit:
                raise ExecutionError(f"index {i} of {name!r} out of range 0..{limit - 1}", loc)
            return i

        def load(env, i):
            return env[read_slot].item(i)

        def store(env, i, value):
            env[write_slot][i] = value
        return resolve, load, store

    def _s_Assign(self, s: ir.Assign):
        store = self._store(s.target)
        value = self.expr(s.value)

        def assign(env):
            store(env, value(env))
        return assign

    def _s_Reduce(self, s: ir.Reduce):
        resolve, load, store = self._location(s.target)
        value = self.expr(s.value)
        t = s.target.type
        norm = normalizer(t)
        op = s.op
        if op == "+":
            combine = lambda a, b: norm(a + b)  # noqa: E731
        elif op == "-":
            combine = lambda a, b: norm(a - b)  # noqa: E731
        elif op == "*":
            combine = lambda a, b: norm(a * b)  # noqa: E731
        elif op == "&":
            combine = (lambda a, b: a and b) if t is Scalar.BOOL else (lambda a, b: norm(a & b))
        else:
            combine = (lambda a, b: a or b) if t is Scalar.BOOL else (lambda a, b: norm(a | b))

        def reduce(env):
            key = resolve(env)
            store(env, key, combine(load(env, key), value(env)))
        return reduce

    def _s_MinMaxAssign(self, s: ir.MinMaxAssign):
        resolve, load, store = self._location(s.target)
        candidate = self.expr(s.candidate)
        others = [(self._store(target), self.expr(value)) for target, value in s.others]
        better = (lambda c, cur: c < cur) if s.func == "Min" else (lambda c, cur: c > cur)

        def min_max(env):
            key = resolve(env)
            c = candidate(env)
            if better(c, load(env, key)):
                values = [value(env) for _, value in others]  # a tuple assignment
                store(env, key, c)
                for (st, _), v in zip(others, values):
                    st(env, v)
        return min_max

    def _s_PropCopy(self, s: ir.PropCopy):
        dst, src = self.write_slot(s.dst), self.slot(s.src)

        def copy(env):
            if env[dst] is not env[src]:
                np.copyto(env[dst], env[src], casting="unsafe")
        return copy

    def _s_Attach(self, s: ir.Attach):
        fills = [(self.write_slot(sym), self.expr(value)) for sym, value in s.inits]

        def attach(env):
            values = [value(env) for _, value in fills]
            for (slot, _), v in zip(fills, values):
                env[slot].fill(v)
        return attach

    def _s_If(self, s: ir.If):
        cond, then = self.expr(s.cond), self.stmt(s.then)
        orelse = self.stmt(s.orelse) if s.orelse is not None else None
        if orelse is None:
            return lambda env: then(env) if cond(env) else None
        return lambda env: then(env) if cond(env) else orelse(env)

    def _s_While(self, s: ir.While):
        cond, body = self.expr(s.cond), self.stmt(s.body)

        def loop(env):
            while cond(env):
                signal = body(env)
                if signal is BREAK:
                    break
                if signal is RETURN:
                    return signal
            return None
        return loop

    def _s_DoWhile(self, s: ir.DoWhile):
        cond, body = self.expr(s.cond), self.stmt(s.body)

        def loop(env):
            while True:
                signal = body(env)
                if signal is BREAK:
                    break
                if signal is RETURN:
                    return signal
                if not cond(env):
                    break
            return None
        return loop

    def _s_Return(self, s: ir.Return):
        slot = self.ret_slot
        if s.value is None:
            return lambda env: RETURN
        value = self.expr(s.value)

        def ret(env):
            env[slot] = value(env)
            return RETURN
        return ret

    def _s_Break(self, s):
        return lambda env: BREAK

    def _s_Continue(self, s):
        return lambda env: CONTINUE

    def _s_ExprStmt(self, s: ir.ExprStmt):
        value = self.expr(s.expr)

        def run(env):
            value(env)
        return run
