"""``starc --emit plan``: a readable text form of a ``Plan`` (arrays, kernels, host tree)."""

from __future__ import annotations

from typing import List, Optional

from starc.analysis import plan as P
from starc.analysis.checks import CheckedDivide, CheckedIndex
from starc.ir import nodes as ir

__all__ = ["plan_dump", "format_expr", "format_stmt"]

_INDENT = "  "


# --- expressions -------------------------------------------------------------------------------

def _operand(expr: ir.Expr) -> str:
    text = format_expr(expr)
    return f"({text})" if isinstance(expr, (ir.Binary, ir.Unary)) else text


def format_expr(expr: Optional[ir.Expr]) -> str:
    """One line of text for an IR or plan expression; property elements print as ``p[i]``."""
    if expr is None:
        return "<none>"
    if isinstance(expr, ir.Const):
        if isinstance(expr.value, bool):
            return "True" if expr.value else "False"
        return repr(expr.value)
    if isinstance(expr, ir.Inf):
        return "-INF" if expr.negative else "INF"
    if isinstance(expr, ir.VarRef):
        return expr.sym.name
    if isinstance(expr, P.KernelScalar):
        return expr.name
    if isinstance(expr, P.DeviceRead):
        return f"read {expr.array.name}[{format_expr(expr.index)}]"
    if isinstance(expr, ir.PropRead):
        return f"{expr.prop.name}[{format_expr(expr.index)}]"
    if isinstance(expr, ir.EdgeEndpoint):
        return f"{_operand(expr.edge)}.{expr.end}"
    if isinstance(expr, ir.Unary):
        return f"{expr.op}{_operand(expr.operand)}"
    if isinstance(expr, ir.Binary):
        return f"{_operand(expr.left)} {expr.op} {_operand(expr.right)}"
    if isinstance(expr, ir.Cast):
        return f"({expr.type}) {_operand(expr.expr)}"
    if isinstance(expr, ir.MinMax):
        return f"{expr.func}({format_expr(expr.left)}, {format_expr(expr.right)})"
    if isinstance(expr, ir.GraphQuery):
        args = ", ".join(format_expr(a) for a in expr.args)
        return f"{expr.graph.name}.{expr.op}({args})"
    if isinstance(expr, ir.WeightBound):
        return f"{expr.func}({expr.prop.name})"
    if isinstance(expr, ir.CallExpr):
        return f"{expr.function}({', '.join(format_expr(a) for a in expr.args)})"
    if isinstance(expr, CheckedIndex):
        return f"check#{expr.site + 1}({format_expr(expr.index)} < {expr.extent})"
    if isinstance(expr, CheckedDivide):
        return f"check#{expr.site + 1}({_operand(expr.left)} {expr.op} {_operand(expr.right)})"
    return f"<{type(expr).__name__}>"


def _domain(loop: ir.Loop) -> str:
    d = loop.domain
    if isinstance(d, ir.AllNodes):
        text = f"{d.graph.name}.nodes()"
    elif isinstance(d, ir.AllEdges):
        text = f"{d.graph.name}.edges()"
    elif isinstance(d, ir.Neighbors):
        role = "" if d.role == "out" else f" role={d.role}"
        text = f"{d.graph.name}.neighbors({format_expr(d.of)}) edge {d.edge.name}{role}"
    elif isinstance(d, ir.InNeighbors):
        text = f"{d.graph.name}.nodes_to({format_expr(d.of)}) edge {d.edge.name}"
    elif isinstance(d, ir.SetMembers):
        text = d.set.name
    else:
        text = f"<{type(d).__name__}>"
    if loop.filter is not None:
        text += f" filter({format_expr(loop.filter)})"
    return text


# --- kernel statements -----------------------------------------------------------------------

def format_stmt(stmt: ir.Stmt, depth: int = 0) -> List[str]:
    """Lines (indented by ``depth``) for an IR statement or lowered kernel statement."""
    pad = _INDENT * depth
    if isinstance(stmt, ir.Block):
        lines = []
        for s in stmt.stmts:
            lines.extend(format_stmt(s, depth))
        return lines
    if isinstance(stmt, ir.Declare):
        init = f" = {format_expr(stmt.init)}" if stmt.init is not None else ""
        return [f"{pad}{stmt.sym.type} {stmt.sym.name}{init};"]
    if isinstance(stmt, ir.Assign):
        return [f"{pad}{format_expr(stmt.target)} = {format_expr(stmt.value)};"]
    if isinstance(stmt, ir.Reduce):
        return [f"{pad}{format_expr(stmt.target)} {stmt.op}= {format_expr(stmt.value)};"]
    if isinstance(stmt, P.AtomicReduce):
        return [f"{pad}atomic {format_expr(stmt.target)} {stmt.op}= {format_expr(stmt.value)};"]
    if isinstance(stmt, P.AtomicMinMax):
        lock = f" locked by {stmt.lock.name}" if stmt.locked and stmt.lock else ""
        head = (f"{pad}atomic {stmt.func}({format_expr(stmt.target)}, "
                f"{format_expr(stmt.candidate)}){lock}")
        inner = [f"{pad}{_INDENT}{format_expr(t)} = {format_expr(v)};" for t, v in stmt.others]
        for s in stmt.then:
            inner.extend(format_stmt(s, depth + 1))
        return [head + " {", *inner, pad + "}"] if inner else [head + ";"]
    if isinstance(stmt, ir.MinMaxAssign):
        others = "".join(f", {format_expr(t)} = {format_expr(v)}" for t, v in stmt.others)
        return [f"{pad}{stmt.func}({format_expr(stmt.target)}, "
                f"{format_expr(stmt.candidate)}){others};"]
    if isinstance(stmt, P.FlagSet):
        cond = f" if {format_expr(stmt.value)}" if stmt.value is not None else ""
        return [f"{pad}set flag {stmt.flag.name}{cond};"]
    if isinstance(stmt, P.ScalarStore):
        return [f"{pad}store {stmt.array.name} = {format_expr(stmt.value)};"]
    if isinstance(stmt, ir.If):
        lines = [f"{pad}if ({format_expr(stmt.cond)}) {{", *format_stmt(stmt.then, depth + 1)]
        if stmt.orelse is not None:
            lines += [f"{pad}}} else {{", *format_stmt(stmt.orelse, depth + 1)]
        return lines + [pad + "}"]
    if isinstance(stmt, ir.While):
        return [f"{pad}while ({format_expr(stmt.cond)}) {{",
                *format_stmt(stmt.body, depth + 1), pad + "}"]
    if isinstance(stmt, ir.DoWhile):
        return [f"{pad}do {{", *format_stmt(stmt.body, depth + 1),
                f"{pad}}} while ({format_expr(stmt.cond)});"]
    if isinstance(stmt, ir.Loop):
        kind = "forall" if stmt.parallel else "for"
        return [f"{pad}{kind} ({stmt.var.name} in {_domain(stmt)}) {{",
                *format_stmt(stmt.body, depth + 1), pad + "}"]
    if isinstance(stmt, ir.Break):
        return [f"{pad}break;"]
    if isinstance(stmt, ir.Continue):
        return [f"{pad}continue;"]
    if isinstance(stmt, ir.Return):
        return [f"{pad}return {format_expr(stmt.value)};"]
    return [f"{pad}<{type(stmt).__name__}>"]


# --- host statements -----------------------------------------------------------------------------

def _host(stmt: P.HostStmt, depth: int) -> List[str]:
    pad = _INDENT * depth
    if isinstance(stmt, P.HostBlock):
        lines = []
        for s in stmt.stmts:
            lines.extend(_host(s, depth))
        return lines
    if isinstance(stmt, P.HostDeclare):
        init = f" = {format_expr(stmt.init)}" if stmt.init is not None else ""
        return [f"{pad}{stmt.sym.type} {stmt.sym.name}{init};"]
    if isinstance(stmt, P.HostAssign):
        return [f"{pad}{stmt.sym.name} = {format_expr(stmt.value)};"]
    if isinstance(stmt, P.HostReduce):
        return [f"{pad}{stmt.sym.name} {stmt.op}= {format_expr(stmt.value)};"]
    if isinstance(stmt, P.HostIf):
        lines = [f"{pad}if ({format_expr(stmt.cond)}) {{", *_host(stmt.then, depth + 1)]
        if stmt.orelse is not None:
            lines += [f"{pad}}} else {{", *_host(stmt.orelse, depth + 1)]
        return lines + [pad + "}"]
    if isinstance(stmt, P.HostWhile):
        return [f"{pad}while ({format_expr(stmt.cond)}) {{", *_host(stmt.body, depth + 1),
                pad + "}"]
    if isinstance(stmt, P.HostDoWhile):
        return [f"{pad}do {{", *_host(stmt.body, depth + 1),
                f"{pad}}} while ({format_expr(stmt.cond)});"]
    if isinstance(stmt, P.HostForSet):
        return [f"{pad}for ({stmt.var.name} in {stmt.set.name}) {{",
                *_host(stmt.body, depth + 1), pad + "}"]
    if isinstance(stmt, P.HostForRange):
        v = stmt.var.name
        test = ">=" if stmt.step < 0 else "<="
        return [f"{pad}for ({v} = {format_expr(stmt.first)}; {v} {test} "
                f"{format_expr(stmt.last)}; {v} += {stmt.step}) {{",
                *_host(stmt.body, depth + 1), pad + "}"]
    if isinstance(stmt, P.CheckErrors):
        return [f"{pad}check errors;"]
    if isinstance(stmt, P.HostReturn):
        value = f" {format_expr(stmt.value)}" if stmt.value is not None else ""
        return [f"{pad}return{value};"]
    if isinstance(stmt, P.HostBreak):
        return [f"{pad}break;"]
    if isinstance(stmt, P.HostContinue):
        return [f"{pad}continue;"]
    if isinstance(stmt, P.Launch):
        args = "".join(f" {n}={format_expr(e)}" for n, e in stmt.scalar_args)
        return [f"{pad}launch {stmt.kernel.name}{args};"]
    if isinstance(stmt, P.Fill):
        return [f"{pad}fill {stmt.array.name} = {format_expr(stmt.value)};"]
    if isinstance(stmt, P.CopyArray):
        return [f"{pad}copy {stmt.dst.name} <- {stmt.src.name};"]
    if isinstance(stmt, P.SwapArrays):
        return [f"{pad}swap {stmt.a.name} <-> {stmt.b.name};"]
    if isinstance(stmt, P.WriteElement):
        return [f"{pad}write {stmt.array.name}[{format_expr(stmt.index)}] = "
                f"{format_expr(stmt.value)};"]
    if isinstance(stmt, P.ToDevice):
        return [f"{pad}to device {stmt.array.name} <- {stmt.sym.name};"]
    if isinstance(stmt, P.FromDevice):
        return [f"{pad}from device {stmt.sym.name} <- {stmt.array.name};"]
    if isinstance(stmt, P.FixedPointLoop):
        forced = " forced" if stmt.forced else ""
        return [f"{pad}fixedPoint {stmt.flag_var.name}: current {stmt.current.name}, next "
                f"{stmt.next.name}, flag {stmt.flag.name}{forced} {{",
                *_host(stmt.body, depth + 1), pad + "}"]
    if isinstance(stmt, P.BFSLoop):
        reverse = f", reverse {stmt.reverse.name}" if stmt.reverse is not None else ""
        return [f"{pad}bfs from {format_expr(stmt.root)}: level {stmt.level.name}, flag "
                f"{stmt.flag.name}, depth {stmt.depth_name}, forward {stmt.forward.name}"
                f"{reverse};"]
    return [f"{pad}<{type(stmt).__name__}>"]


# --- whole plan ----------------------------------------------------------------------------------

def _array_line(a: P.DeviceArray) -> str:
    flags = " ".join(f for f, on in (("copy_in", a.copy_in), ("copy_out", a.copy_out)) if on)
    return f"  {a.name:<16} {str(a.elem):<7} {a.extent:<8} {a.role:<7} {flags}".rstrip()


def _kernel(k: P.Kernel) -> List[str]:
    index = "" if k.extent == "single" else f" {k.index.name}"
    lines = [f"kernel {k.name} over {k.extent}{index}  // line {k.loc.line}"]
    params = []
    for p in k.params:
        if p.array is not None:
            params.append(p.name + (" (written)" if p.written else ""))
        else:
            params.append(f"{p.elem} {p.name}")
    params.extend(f"{s.type} {s.name}" for s in k.scalars)
    lines.append(f"  params: {', '.join(params) if params else '-'}")
    for r in k.reductions:
        kind = "exclusive" if r.exclusive else "shared"
        lines.append(f"  reduction: {r.sym.name} {r.op} via {r.array.name} ({kind})")
    for s in k.stores:
        lines.append(f"  store: {s.sym.name if s.sym else '?'} via {s.name}")
    if k.checks:
        lines.append("  checks: " + ", ".join(f"#{c + 1}" for c in k.checks))
    if k.guard is not None:
        lines.append(f"  guard: {format_expr(k.guard)}")
    lines.append("  body:")
    lines.extend(format_stmt(k.body, 2))
    return lines


def plan_dump(plan: P.Plan) -> str:
    """The plan as text: arrays (role, copy flags), kernels (signature, guard, body), host."""
    fn = plan.function
    params = ", ".join(f"{p.type} {p.name}" for p in fn.params)
    lines = [f"plan {fn.name}({params})  // {plan.program.filename}", "", "arrays:"]
    lines.extend(_array_line(a) for a in plan.arrays)
    for kernel in plan.kernels:
        lines.append("")
        lines.extend(_kernel(kernel))
    if plan.error is not None:
        lines += ["", f"run-time checks (error word {plan.error.site.name}, "
                      f"{plan.error.value.name}):"]
        lines.extend(f"  #{i + 1} {c.kind}{' of ' + c.name if c.name else ''} at {c.loc}"
                     for i, c in enumerate(plan.error.sites))
    lines += ["", "host:"]
    lines.extend(_host(plan.host, 1))
    return "\n".join(lines) + "\n"
