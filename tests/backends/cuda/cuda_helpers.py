"""Shared helpers of the CUDA backend tests: compile DSL for cuda, find the test programs."""

from __future__ import annotations

import pathlib
from typing import List, Optional

from starc.backends.base import BackendOptions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

from nvcc_builds import cuda_compilation

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = ROOT / "dsl"
#: Programs written for these tests: every atomic, locks, host control flow, forced fixedPoint.
PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"


def dsl_sources() -> List[pathlib.Path]:
    return sorted(DSL.glob("*.sp"))


def dynamic_sources() -> List[pathlib.Path]:
    """dsl/dynamic: the Dynamic programs (issue 31)."""
    return sorted((DSL / "dynamic").glob("*.sp"))


def extra_sources() -> List[pathlib.Path]:
    return sorted(PROGRAMS.glob("*.sp"))


def compile_text(text: str, filename: str = "prog.sp",
                 options: Optional[BackendOptions] = None):
    """The Compilation of ``text`` for the cuda backend (asserting it compiled)."""
    sink = DiagnosticSink()
    comp = compile_source(text, filename, sink, backend="cuda", options=options)
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


def compile_path(path: pathlib.Path, schedule: Optional[str] = None):
    """The Compilation of the program at ``path`` (with the kernel ``schedule`` forced), the
    one tests/nvcc_builds.py builds from (compiled once per run)."""
    return cuda_compilation(path, schedule)


def main_text(path: pathlib.Path, schedule: Optional[str] = None) -> str:
    """The generated .cu file of the program at ``path`` (with ``schedule`` forced)."""
    generated = compile_path(path, schedule).generated
    return generated.files[generated.main]


def between(text: str, start: str, end: str) -> str:
    """``text`` from the first ``start`` up to (not including) the next ``end``."""
    head = text.index(start)
    return text[head:text.index(end, head)]
