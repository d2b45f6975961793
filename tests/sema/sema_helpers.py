"""Shared helpers of the semantic-analysis tests."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

from starc.diagnostics import CompileError, DiagnosticSink
from starc.frontend.parser import parse
from starc.ir import nodes as ir
from starc.ir.sema import analyze

ROOT = Path(__file__).resolve().parents[2]
# dsl/dynamic: the dynamic-graph programs (issue 31), which the device backends refuse for now
DSL_PROGRAMS = sorted((ROOT / "dsl").glob("*.sp")) + sorted((ROOT / "dsl" / "dynamic").glob("*.sp"))
GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.sp"))
SAMPLES = sorted((Path(__file__).parent / "samples").glob("*.sp"))


def check(text: str, filename: str = "test.sp", disabled: Tuple[str, ...] = (),
          werror: bool = False) -> Tuple[Optional[ir.Program], DiagnosticSink]:
    sink = DiagnosticSink(disabled, werror)
    sink.add_source(filename, text)
    try:
        tree = parse(text, filename)
    except CompileError as error:   # a golden file may expect syntax errors (E01xx)
        sink.extend(error.diagnostics)
        return None, sink
    return analyze(tree, sink), sink


def headers(sink: DiagnosticSink, filename: str = "test.sp") -> List[str]:
    """Diagnostic headers in source order, without the file name."""
    prefix = filename + ":"
    return [d.header()[len(prefix):] if d.header().startswith(prefix) else d.header()
            for d in sink.sorted()]


def analyze_ok(text: str) -> ir.Program:
    """The IR of ``text``, which must analyse without diagnostics; the snippets declare
    locals only to look at their types, so ``unused`` is off."""
    program, sink = check(text, disabled=("unused",))
    assert program is not None, headers(sink)
    assert not sink.diagnostics, headers(sink)
    return program


def first(program: ir.Program, cls):
    """The first node of class ``cls`` in the program (pre-order)."""
    for node in ir.walk(program):
        if isinstance(node, cls):
            return node
    raise AssertionError(f"no {cls.__name__} in the program")


def all_of(program: ir.Program, cls) -> list:
    return [node for node in ir.walk(program) if isinstance(node, cls)]
