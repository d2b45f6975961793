"""starc's modules import one another without cycles (lazy imports inside functions count):
layers stay layers (issue 28 removed graphs.binary <-> graphs.readers and runner <->
graphs.cache)."""

from __future__ import annotations

import ast
import pathlib
from typing import Dict, List, Set

ROOT = pathlib.Path(__file__).resolve().parents[1] / "starc"


def _modules() -> Dict[str, pathlib.Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def import_graph() -> Dict[str, Set[str]]:
    """module -> the starc modules it imports, anywhere in its text. The package itself
    (``import starc`` for ``starc.__version__``) is not an edge: it imports nothing at start."""
    modules = _modules()
    edges: Dict[str, Set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: List[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{up}.{base}" if base else up
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            edges[name].update(t for t in targets if t in modules and t not in ("starc", name))
    return edges


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
