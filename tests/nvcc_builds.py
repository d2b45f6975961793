"""One nvcc build per program, arch and schedule for the whole test run (starc's build cache)."""

from __future__ import annotations

import functools
import pathlib
from typing import Optional

from starc import runner
from starc.backends.base import BackendError, BackendOptions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source


@functools.lru_cache(maxsize=None)
def cuda_compilation(path: pathlib.Path, schedule: Optional[str] = None):
    """The Compilation of the program at ``path`` for CUDA (``schedule`` forced; asserting it
    compiled), once per run (tests/backends/cuda's ``compile_path`` too)."""
    sink = DiagnosticSink()
    comp = compile_source(path.read_text(), str(path), sink, backend="cuda",
                          options=BackendOptions(schedule=schedule))
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


def cuda_build(path: pathlib.Path, arch: str = "sm_75", schedule: Optional[str] = None):
    """The program at ``path`` built by nvcc for ``arch`` (warnings as errors, as starc builds
    it); the ``BuiltProgram``, or the ``BackendError`` nvcc's log makes. The same options and
    sources give the same cache key wherever a test asks, so the tests of tests/backends/cuda
    and tests/e2e that need one build share it (the cache is shared by the xdist workers)."""
    sink = DiagnosticSink()
    built = runner.build(cuda_compilation(path, schedule), sink,
                         BackendOptions(schedule=schedule, extra={"gpu_arch": arch}))
    return built if built is not None else BackendError("\n".join(map(str, sink.diagnostics)))
