"""The binned schedule of a body of several neighbour loops: how a heavy vertex's group runs each.

``analysis.binned`` lets a work-group share a body that is one pull loop (PageRank's sum). A
BFS step's body is a sequence: the forward step folds the vertex's parents into it (BC's
sigma) or searches them for the first one (BFS's level), then pushes to its unvisited
children; the bottom-up step branches on the vertex's own level into a pull fold or a search
over its in-edges that stops at the first parent. A group runs such a body statement by
statement (``plan.CooperativeStep``):

* a declaration: every lane makes it (its value reads nothing the kernel writes);
* a push loop (what ``--schedule edges`` accepts, ``binned.push_refusal``): the lanes split
  its iterations, each one independent of the others;
* a fold loop (``binned.fold_of``, after ``fold_locally``): the same, each lane folding into
  its copy of the accumulator, which a group reduction combines into the first lane;
* a search loop (a body that ends in ``break``, or an ``if`` whose branch does, and nothing
  else that stops it): the lanes test a group's worth of edges at a time, the loop's filter
  and the ``if``'s test (which write nothing); the first lane that found an edge, in the
  loop's order, runs the branch once and the group stops, so the one edge chosen is the one
  the serial loop would stop at;
* any other statement: the group's first lane runs it (it may use a fold's result), and no
  later loop of the block reads what it writes (no lane waits for it);
* an if/else on the vertex alone (its test reads only the vertex's own elements and the
  kernel's scalars), at the top of the body: the first lane's test, shared with the group,
  picks the branch, each a sequence of the steps above.

A body of push loops only runs one item per edge (``--schedule edges``); ``steps`` is for the
others, and for a lockstep target that prints them (``Capabilities.cooperative_bodies``).
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from starc.analysis import plan as P
from starc.analysis.binned import (INDEPENDENT, fold_locally, fold_of,
                                   order_array, per_vertex_refusal, push_refusal)
from starc.analysis.wrapping import WrappingArith
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["cooperative_body", "with_local_folds", "search_parts"]

_NEIGHBOURS = (ir.Neighbors, ir.InNeighbors)


def _is_neighbour_loop(stmt: ir.Stmt) -> bool:
    return isinstance(stmt, ir.Loop) and isinstance(stmt.domain, _NEIGHBOURS)


def _conjuncts(expr: Optional[ir.Expr]):
    if isinstance(expr, ir.Binary) and expr.op == "&&":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [] if expr is None else [expr]


def _branch(kernel: P.Kernel) -> Optional[ir.If]:
    """The body's if/else at the top, when it is the whole body."""
    stmts = kernel.body.stmts
    if len(stmts) == 1 and isinstance(stmts[0], ir.If):
        return stmts[0]
    return None


def with_local_folds(kernel: P.Kernel) -> P.Kernel:
    """``kernel`` with each top-level fold into the vertex's own property (of the body or of
    its branches) made a fold into a local first (``binned.fold_locally``)."""
    guard = _conjuncts(kernel.guard)

    def folded(block: ir.Block, facts) -> ir.Block:
        stmts = tuple(block.stmts)
        at = 0
        while at < len(stmts):
            if _is_neighbour_loop(stmts[at]):
                again = fold_locally(kernel, stmts, at, facts)
                if again is not None:
                    stmts, at = again, at + 2       # the local's declaration, the loop
            at += 1
        return dataclasses.replace(block, stmts=stmts)

    branch = _branch(kernel)
    if branch is not None and branch.orelse is not None:
        negated = ir.Unary("!", branch.cond, type=Scalar.BOOL)
        new = dataclasses.replace(branch, then=folded(branch.then, guard + [branch.cond]),
                                  orelse=folded(branch.orelse, guard + [negated]))
        body = dataclasses.replace(kernel.body, stmts=(new,))
    else:
        body = folded(kernel.body, guard)
    return dataclasses.replace(kernel, body=body)


def cooperative_body(kernel: P.Kernel, pushes: bool = False
                     ) -> Tuple[Optional[P.CooperativeLoop], str]:
    """``(cooperative, "")`` when a group may run ``kernel``'s body (folded locally first:
    ``with_local_folds``) step by step, else ``(None, why not)``. A body that only pushes is
    shared only where ``pushes`` (one neighbour loop whose per-edge form was refused: a BFS
    step's expansion, whose filter reads the level it writes)."""
    why = per_vertex_refusal(kernel)
    if why:
        return None, why
    kernel = with_local_folds(kernel)
    written = _written(kernel)
    branch = _branch(kernel)
    if branch is not None and branch.orelse is not None:
        why = _vertex_only_refusal(kernel, branch.cond, written)
        if why:
            return None, why
        then, why = _block_steps(kernel, branch.then.stmts, written)
        if not why:
            orelse, why = _block_steps(kernel, branch.orelse.stmts, written)
        if why:
            return None, why
        steps = (P.CooperativeStep("branch", 0, then=then, orelse=orelse),)
        loops = [s for b in (branch.then, branch.orelse) for s in b.stmts
                 if _is_neighbour_loop(s)]
    else:
        steps, why = _block_steps(kernel, kernel.body.stmts, written)
        if why:
            return None, why
        loops = [s for s in kernel.body.stmts if _is_neighbour_loop(s)]
    kinds = {s.kind for s in _flat(steps)}
    if not kinds & {"fold", "search"} and not pushes:
        return None, "its loops only push (one work item per edge: --schedule edges)"
    folds = {s.accumulator.type for s in _flat(steps) if s.kind == "fold"}
    if len(folds) > 1:
        return None, "its folds are of different types (one group array holds the partials)"
    return P.CooperativeLoop(-1, None, "", _degree(kernel, loops), order=order_array(
        loops[0].domain), steps=steps), ""


def _flat(steps):
    for step in steps:
        yield step
        yield from _flat(step.then + step.orelse)


def _degree(kernel: P.Kernel, loops) -> ir.Expr:
    """The vertex's work: the sum of its degrees over the loops' directions (each once)."""
    own = ir.VarRef(kernel.index, type=kernel.index.type)
    queries = []
    for loop in loops:
        query = "count_outNbrs" if isinstance(loop.domain, ir.Neighbors) else "count_inNbrs"
        if query not in queries:
            queries.append(query)
    terms = [ir.GraphQuery(q, loops[0].domain.graph, (own,), type=Scalar.INT,
                           loc=loops[0].loc) for q in queries]
    total = terms[0]
    for term in terms[1:]:
        total = ir.Binary("+", total, term, type=Scalar.INT, loc=loops[0].loc)
    return total


def _written(kernel: P.Kernel):
    """The uids of the arrays and locals the kernel writes."""
    found = set()
    for node in ir.walk(kernel.body):
        target = getattr(node, "target", None)
        if isinstance(target, ir.PropRead):
            found.add(target.prop.uid)
        elif isinstance(target, ir.VarRef):
            found.add(target.sym.uid)
    return found


def _reads(node: ir.Node):
    """The uids of the arrays and variables ``node`` reads or writes."""
    found = set()
    for n in ir.walk(node):
        if isinstance(n, ir.PropRead):
            found.add(n.prop.uid)
        elif isinstance(n, ir.VarRef):
            found.add(n.sym.uid)
    return found


def _vertex_only_refusal(kernel: P.Kernel, cond: ir.Expr, written) -> str:
    """Why ``cond`` is no test of the vertex alone (\"\" where it is)."""
    own = ir.VarRef(kernel.index, type=kernel.index.type)
    for node in ir.walk(cond):
        if isinstance(node, ir.PropRead) and node.index != own:
            return "its branch tests another vertex than its own"
        if isinstance(node, (ir.CallExpr, ir.Random)):
            return "its branch's test calls a function"
        if isinstance(node, ir.VarRef) and node.sym != kernel.index and \
                node.sym.uid in written:
            return f"its branch tests '{node.sym.name}', which the body writes"
    return ""


def _block_steps(kernel: P.Kernel, stmts, written) -> Tuple[Tuple[P.CooperativeStep, ...], str]:
    """The steps of a block of the body (see the module docstring), or ``((), why not)``."""
    steps = []
    declared = {}
    led = set()          # what the first lane's statements (and a search's branch) write
    for at, stmt in enumerate(stmts):
        if isinstance(stmt, ir.Declare):
            if stmt.init is not None and _reads(stmt.init) & written:
                return (), (f"'{stmt.sym.name}' starts from what the kernel writes (every "
                            "lane declares it)")
            declared[stmt.sym.uid] = stmt
            steps.append(P.CooperativeStep("all", at))
            continue
        if _is_neighbour_loop(stmt):
            if _reads(stmt) & led:
                return (), (f"the loop at line {stmt.loc.line} reads what the statements "
                            "before it write (which one lane runs)")
            step, why = _loop_step(kernel, stmt, at, declared)
            if why:
                return (), why
            if step.kind == "search":
                led |= _writes(stmt)
            steps.append(step)
            continue
        if any(isinstance(n, (ir.Loop, ir.Break, ir.Continue, ir.If, ir.While, ir.DoWhile))
               for n in ir.walk(stmt)):
            return (), (f"the statement at line {stmt.loc.line} is no plain statement (a "
                        "branch or a loop inside the vertex's sequence)")
        led |= _writes(stmt)
        steps.append(P.CooperativeStep("leader", at))
    later_reads = set()
    for step in reversed(steps):
        if step.kind == "fold" and step.accumulator.uid in later_reads:
            return (), (f"a later loop reads '{step.accumulator.name}' (the fold's result is "
                        "the first lane's)")
        if step.kind in ("push", "fold", "search"):
            later_reads |= _reads(stmts[step.at])
    return tuple(steps), ""


def _writes(node: ir.Node):
    found = set()
    for n in ir.walk(node):
        target = getattr(n, "target", None)
        if isinstance(target, ir.PropRead):
            found.add(target.prop.uid)
        elif isinstance(target, ir.VarRef):
            found.add(target.sym.uid)
        elif isinstance(n, ir.Declare):
            found.add(n.sym.uid)
    return found


def _loop_step(kernel: P.Kernel, loop: ir.Loop, at: int,
               declared) -> Tuple[Optional[P.CooperativeStep], str]:
    """The step of the neighbour ``loop`` (push, fold or search), or ``(None, why not)``."""
    domain = loop.domain
    if not isinstance(domain.of, ir.VarRef) or domain.of.sym != kernel.index:
        return None, "a loop is not over the forall's own vertex"
    if isinstance(domain, ir.Neighbors) and domain.role != "out":
        return None, "a loop's order matters (a BFS parents or children loop)"
    if kernel.row_scan(loop.var) is not None:
        return None, "a loop scans a sorted row (its bounds and cursors walk it in order)"
    if any(isinstance(n, ir.Loop) for n in ir.walk(loop.body)):
        return None, "a loop has a loop inside"
    parts = search_parts(loop)
    if parts is not None:
        test, then = parts
        if any(isinstance(n, (ir.Break, ir.Continue)) for n in ir.walk(ir.Block(then))):
            return None, "a search loop stops in more than one place"
        if _writes(test) or any(isinstance(n, INDEPENDENT) for n in ir.walk(test)):
            return None, "a search loop's test writes"
        guarded = isinstance(loop.body.stmts[0], ir.If)
        return P.CooperativeStep("search", at, guarded=guarded), ""
    if any(isinstance(n, (ir.Break, ir.Continue)) for n in ir.walk(loop.body)):
        return None, "a loop stops early other than at the first edge it finds"
    if isinstance(domain, ir.InNeighbors) and domain.descending:
        return None, "a loop's order matters (it walks its edges backwards)"
    if not push_refusal(kernel, loop):
        return P.CooperativeStep("push", at), ""
    accumulator, op, why = fold_of(loop, declared)
    if accumulator is None:
        return None, why
    wraps = any(isinstance(n, WrappingArith) for n in ir.walk(loop))
    return P.CooperativeStep("fold", at, accumulator=accumulator, op=op, wraps=wraps), ""


def search_parts(loop: ir.Loop) -> Optional[Tuple[Optional[ir.Expr], Tuple[ir.Stmt, ...]]]:
    """``(test, then)`` of a loop that stops at the first edge passing ``test`` (its filter
    and its body's ``if``; None: every edge) and runs ``then`` there: a body ``S...; break``
    or ``if (c) { S...; break; }``; None where the loop has another shape."""
    stmts = loop.body.stmts
    tests = [loop.filter] if loop.filter is not None else []
    if len(stmts) == 1 and isinstance(stmts[0], ir.If) and stmts[0].orelse is None:
        tests.append(stmts[0].cond)
        stmts = stmts[0].then.stmts
    if not stmts or not isinstance(stmts[-1], ir.Break):
        return None
    test = None
    for part in tests:
        test = part if test is None else ir.Binary("&&", test, part, type=Scalar.BOOL,
                                                   loc=loop.loc)
    return test, tuple(stmts[:-1])
