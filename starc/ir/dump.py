"""A readable, indented dump of the typed IR with every type shown (``starc --emit ir``)."""

from __future__ import annotations

import dataclasses
from typing import List

from starc.ir import nodes as ir
from starc.ir.scope import stack_room

__all__ = ["dump_ir", "symbol_text"]

PAD = "  "


def symbol_text(sym: ir.Symbol) -> str:
    """``name#uid: type``, marking loop variables and the implicit edges of neighbour loops."""
    kinds = {ir.SymbolKind.LOOP: " (loop variable)", ir.SymbolKind.EDGE: " (loop edge)"}
    kind = kinds.get(sym.kind, "")
    return f"{sym.name}#{sym.uid}: {sym.type}{kind}"


def dump_ir(node: ir.Node) -> str:
    """One line per node: its class, scalar fields, symbols, ``: type`` for expressions and
    ``@line:col``; children indented below under their field names."""
    with stack_room():
        return _dump(node)


def _dump(node: ir.Node) -> str:
    lines: List[str] = []
    if isinstance(node, ir.Program):
        lines.append(f"Program {node.filename}")
        for fn in node.functions:
            _function(fn, 1, lines)
    elif isinstance(node, ir.Function):
        _function(node, 0, lines)
    else:
        _node(node, 0, lines)
    return "\n".join(lines) + "\n"


def _function(fn: ir.Function, depth: int, lines: List[str]) -> None:
    params = ", ".join(symbol_text(p) for p in fn.params)
    returns = fn.return_type if fn.return_type is not None else "void"
    lines.append(f"{PAD * depth}Function {fn.name}({params}) -> {returns}{_where(fn)}")
    _node(fn.body, depth + 1, lines)


def _where(node: ir.Node) -> str:
    return f" @{node.loc.line}:{node.loc.col}" if node.loc.line else ""


def _node(node: ir.Node, depth: int, lines: List[str], label: str = "") -> None:
    pad = PAD * depth
    scalars, kids = [], []
    for f in dataclasses.fields(node):
        if f.name in ("loc", "type"):
            continue
        value = getattr(node, f.name)
        if isinstance(value, ir.Symbol):
            scalars.append(f"{f.name}={symbol_text(value)}")
        elif isinstance(value, ir.Node):
            kids.append((f.name, value))
        elif isinstance(value, tuple) and value and not all(
                isinstance(v, (str, int, float, bool)) for v in value):
            kids.append((f.name, value))
        elif value is not None and value != ():
            scalars.append(f"{f.name}={value!r}" if f.name != "op" else f"op={value}")
    type_ = f" : {node.type}" if isinstance(node, ir.Expr) else ""
    head = f"{label}{type(node).__name__}"
    lines.append(f"{pad}{head}({', '.join(scalars)}){type_}{_where(node)}")
    for name, value in kids:
        _value(name, value, depth + 1, lines)


def _value(name: str, value, depth: int, lines: List[str]) -> None:
    if isinstance(value, ir.Node):
        _node(value, depth, lines, f".{name} = ")
        return
    lines.append(f"{PAD * depth}.{name}:")
    for item in value:
        if isinstance(item, ir.Node):
            _node(item, depth + 1, lines)
        elif isinstance(item, tuple):
            lines.append(f"{PAD * (depth + 1)}(")
            for part in item:
                if isinstance(part, ir.Node):
                    _node(part, depth + 2, lines)
                elif isinstance(part, ir.Symbol):
                    lines.append(f"{PAD * (depth + 2)}{symbol_text(part)}")
                else:
                    lines.append(f"{PAD * (depth + 2)}{part!r}")
            lines.append(f"{PAD * (depth + 1)})")
        elif isinstance(item, ir.Symbol):
            lines.append(f"{PAD * (depth + 1)}{symbol_text(item)}")
        else:
            lines.append(f"{PAD * (depth + 1)}{item!r}")
