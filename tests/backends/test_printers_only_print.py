"""Printers print what the specialized plan says (analysis/specialize.py): no module of a backend
calls into an analysis that decides, or asks the target's capabilities."""

from __future__ import annotations

import ast
import pathlib

import pytest

BACKENDS = pathlib.Path(__file__).resolve().parents[2] / "starc" / "backends"

#: what a printer may import from the analysis: the plan's records, constants and walkers
ALLOWED = {
    "starc.analysis": {"plan"},
    "starc.analysis.plan": None,                        # every record of the plan
    "starc.analysis.host_tree": {"launched_kernels", "walk_host", "asks_device_kind"},
    "starc.analysis.capabilities": {"Capabilities"},    # to declare a backend's
    "starc.analysis.wrapping": {"WrappingArith"},
    "starc.analysis.checks": {"CheckedDivide", "CheckedIndex"},
    "starc.analysis.naming": {"NameAllocator"},
    "starc.analysis.frontier": {"FRONTIER_COUNT"},
    "starc.analysis.distribution": {"Distribution"},
}
#: the one place that runs the stage: ``Backend.specialize``, not a printer
STAGE = BACKENDS / "base.py"
MODULES = sorted(p for p in BACKENDS.rglob("*.py") if p != STAGE)


def _imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("starc.analysis"):
            for alias in node.names:
                yield node.module, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("starc.analysis"):
                    yield alias.name, None, node.lineno


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BACKENDS)))
def test_no_decision_is_imported(path):
    tree = ast.parse(path.read_text())
    wrong = [f"line {line}: {module}.{name}" for module, name, line in _imports(tree)
             if module not in ALLOWED or (ALLOWED[module] is not None
                                          and name not in ALLOWED[module])]
    assert not wrong, "a printer decides again: " + "; ".join(wrong)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BACKENDS)))
def test_no_capability_is_asked(path):
    """``capabilities`` is declared (an assignment) but never read while printing; what the
    stage decided from it is read from the plan (``plan.target``, the records' fields)."""
    tree = ast.parse(path.read_text())
    reads = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "capabilities"
             and isinstance(node.ctx, ast.Load)]
    assert not reads, f"capabilities asked at lines {reads}"


def test_the_checks_see_a_decision():
    """The scanner itself: an import of a deciding pass and a capability query are found."""
    tree = ast.parse("from starc.analysis.frontier import choose_form\n"
                     "x = backend.capabilities.worklists\n")
    assert [(m, n) for m, n, _ in _imports(tree)] == [("starc.analysis.frontier",
                                                       "choose_form")]
    assert any(isinstance(n, ast.Attribute) and n.attr == "capabilities"
               for n in ast.walk(tree))
