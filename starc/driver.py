"""The pipeline: source -> AST -> typed IR -> plan -> generated program, every stage kept."""

from __future__ import annotations

import codecs
import dataclasses
import sys
import traceback
from typing import Callable, List, Optional, TypeVar

from starc import errors
from starc.diagnostics import (CompileError, DiagnosticSink, NO_LOC, SourceLoc, note_construct,
                               report_internal_error)

__all__ = ["STAGES", "Compilation", "compile_source", "compile_file", "read_source",
           "InternalError"]

# The named stages, in order; ``stop_after`` takes one of them (pyccel's --stop-after).
STAGES = ("parse", "sema", "plan", "specialize", "generate")

T = TypeVar("T")


class InternalError(errors.InternalError):
    """An unexpected exception inside a stage, already reported as an E0901 diagnostic."""


@dataclasses.dataclass
class Compilation:
    """Everything one compilation produced; a stage's field is None if it did not run."""

    filename: str
    source: str
    sink: DiagnosticSink
    ast: object = None
    ir: object = None
    function: object = None
    plan: object = None
    #: the backend (``backends.base.Backend``) the compilation is for, once named
    backend: object = None
    #: ``plan`` specialized for ``backend`` (``analysis.specialize``)
    specialized: object = None
    generated: object = None

    @property
    def ok(self) -> bool:
        return not self.sink.has_errors

    @property
    def sourcemap(self):
        """Per generated file, generated line (from 1) -> the DSL ``Span`` it comes from
        ({} before code generation)."""
        return self.generated.sourcemap if self.generated is not None else {}


def read_source(path: str, sink: DiagnosticSink) -> Optional[str]:
    """The text of ``path`` (UTF-8; a leading byte-order mark, which some editors write, is
    dropped as compilers drop it), or None with an E0602 diagnostic if it cannot be read."""
    from starc.errors import FileError
    from starc.inputs import read_source_bytes
    try:
        data = read_source_bytes(path)
    except FileError as exc:
        why = exc.message.split(": ", 1)[-1]
        sink.error("E0602", f"cannot read '{path}': {why}", SourceLoc(path, 0, 0))
        return None
    data = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        sink.error("E0101", "the file is not valid UTF-8", SourceLoc(path, line, col))
        return None


def run_stage(stage: str, sink: DiagnosticSink, show_traceback: bool,
              action: Callable[[], T], construct=None) -> T:
    """Run one stage; an unexpected exception becomes an E0901 diagnostic at the construct
    it left (see ``tracks_construct``; else at ``construct``, the stage's input), with the
    stack under ``--traceback``, then InternalError. Every stage recurses over the tree:
    stack_room gives it room for the deepest tree the parser accepts (MAX_DEPTH levels,
    chains of MAX_CHAIN operators)."""
    from starc.ir.scope import stack_room
    try:
        with stack_room():
            return action()
    except CompileError as exc:
        sink.extend(d for d in exc.diagnostics if d not in sink.diagnostics)
        raise
    except Exception as exc:  # noqa: BLE001 - the whole point is to catch everything
        if isinstance(exc, errors.BackendError):
            sink.error(exc.code, str(exc), exc.loc or NO_LOC, hint=exc.hint)
            raise CompileError(sink.errors) from exc
        if construct is not None:
            note_construct(exc, construct)
        report_internal_error(sink, stage, exc)
        if show_traceback:
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        raise InternalError(str(exc)) from exc


def compile_source(source: str, filename: str, sink: DiagnosticSink, *,
                   stop_after: str = "generate", backend=None,
                   function: Optional[str] = None, options=None,
                   show_traceback: bool = False) -> Compilation:
    """Run the pipeline up to ``stop_after``. Errors are in ``sink``; the returned
    Compilation holds every stage's output that was produced. ``backend``: a registered name,
    or the ``Backend`` a caller looked up already (kept as the compilation's)."""
    from starc.frontend.parser import parse
    from starc.ir.sema import analyze

    sink.add_source(filename, source)
    comp = Compilation(filename, source, sink)
    if backend is not None and not isinstance(backend, str):
        comp.backend, backend = backend, backend.name
    try:
        comp.ast = run_stage("parse", sink, show_traceback, lambda: parse(source, filename))
        if stop_after == "parse":
            return comp
        comp.ir = run_stage("sema", sink, show_traceback, lambda: analyze(comp.ast, sink))
        if comp.ir is None or sink.has_errors or stop_after == "sema":
            return comp
        comp.function = select_function(comp.ir, function, sink)
        if comp.function is None or backend == "reference":
            return comp   # the reference executor runs the typed IR itself
        from starc.backends import get_backend
        if backend is not None:       # looked up once: the compilation keeps it
            comp.backend = comp.backend or get_backend(backend)
        comp.plan = run_stage("plan", sink, show_traceback,
                              lambda: _plan(comp.ir, comp.function, comp.backend),
                              comp.function)
        if stop_after == "plan" or backend is None:
            return comp
        from starc.backends.base import BackendOptions
        target = comp.backend
        comp.specialized = run_stage("specialize", sink, show_traceback,
                                     lambda: target.specialize(comp.plan, options),
                                     comp.function)
        _warn_unmet_schedule(comp.specialized, options, sink)
        if stop_after == "specialize":
            return comp
        opts = options or BackendOptions()
        comp.generated = run_stage("generate", sink, show_traceback,
                                   lambda: target.print_program(comp.specialized, opts),
                                   comp.function)
    except (CompileError, InternalError):
        pass
    return comp


def _warn_unmet_schedule(plan, options, sink: DiagnosticSink) -> None:
    """A warning at each forall that ``--schedule`` could not give its schedule, and why."""
    from starc.analysis.schedules import unmet
    if plan is None or options is None:
        return
    for kernel, why in unmet(plan.kernels, options.schedule):
        sink.warning("schedule", f"--schedule {options.schedule} does not apply to this "
                     f"forall: {why}", kernel.loc)


def _plan(program, function, backend):
    """The shared lowering; what it cannot express no device backend runs, so its message
    says so, and with a backend (a ``Backend``) the help line names it and the one that can."""
    from starc.analysis import lower_function
    try:
        if backend is not None:
            _refuse_dynamic_early(program, function, backend.capabilities)
        return lower_function(program, function)
    except errors.BackendError as exc:
        if backend is not None and exc.hint is None:
            exc.hint = f"'-b {backend.name}' cannot run this program; '-b reference' can"
        raise


def _refuse_dynamic_early(program, function, capabilities) -> None:
    """A backend that keeps no mutable graph refuses a Dynamic program at its first
    dynamic-graph construct before the shared lowering, whose own errors would hide why
    (the specialize stage refuses it too, for callers that lower first)."""
    from starc.analysis.dynamic import refuse_dynamic_graphs
    if not capabilities.dynamic_graphs:
        refuse_dynamic_graphs(program, function, capabilities.title)


def select_function(program, name: Optional[str], sink: DiagnosticSink):
    """The function a program runs: ``name`` if given, else the one the run contract picks."""
    from starc.runcontract import UsageError, entry_function, report_run_option_names
    try:
        function = entry_function(program, name)
    except (KeyError, UsageError):
        names = ", ".join(fn.name for fn in program.functions)
        sink.error("E0601", f"no function named '{name}' (the file defines: {names})",
                   SourceLoc(program.filename, 0, 0))
        return None
    if name is not None:        # sema checked the default one
        errors = len(sink.errors)
        report_run_option_names(function, sink)
        if len(sink.errors) > errors:
            return None
    return function


def compile_file(path: str, sink: DiagnosticSink, **kwargs) -> Optional[Compilation]:
    source = read_source(path, sink)
    if source is None:
        return None
    return compile_source(source, path, sink, **kwargs)


def functions_of(comp: Compilation) -> List[str]:
    return [fn.name for fn in comp.ir.functions] if comp.ir is not None else []
