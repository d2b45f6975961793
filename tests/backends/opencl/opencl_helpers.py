"""Shared helpers of the OpenCL backend tests: compile DSL text, build the generated program."""

from __future__ import annotations

import functools
import pathlib

import pytest

from starc.backends.base import BackendOptions
from starc.backends.opencl.emitter import OpenCLBackend
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = ROOT / "dsl"


def compile_text(text: str, filename: str = "prog.sp", options=None):
    """The Compilation of ``text`` for the opencl backend (asserting it compiled)."""
    sink = DiagnosticSink()
    comp = compile_source(text, filename, sink, backend="opencl",
                          options=options or BackendOptions())
    assert comp.ok and comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


@functools.lru_cache(maxsize=None)
def compile_dsl(name: str):
    path = DSL / f"{name}.sp"
    return compile_text(path.read_text(), str(path))


def build(generated, outdir: pathlib.Path) -> pathlib.Path:
    """Write and compile a generated program into ``outdir``; the executable's path."""
    backend = OpenCLBackend()
    if not backend.availability().can_build:
        pytest.skip(f"cannot build OpenCL programs here: {backend.availability().detail}")
    built = backend.build(generated, outdir, BackendOptions())
    return pathlib.Path(built.argv_prefix[0])
