"""What every C++ backend does alike around its printers: the program's name, its usage line,
its templates, and compiling it into an executable that is complete or absent."""

from __future__ import annotations

import pathlib
import re
from typing import Callable, List, Optional, Sequence

from starc import toolchains
from starc.analysis import plan as P
from starc.backends.base import (Availability, Backend, BackendError, BackendOptions,
                                 BuiltProgram, GeneratedProgram, Launch)
from starc.backends.common.templating import template_lookup
from starc.ir.types import Scalar, SetType

__all__ = ["CppBackend", "program_name", "usage_line", "templates", "compile_executable"]

#: how the usage line shows each kind of parameter value
_VALUE_WORDS = {Scalar.NODE: "NODE", Scalar.BOOL: "0|1", Scalar.FLOAT: "NUMBER",
                Scalar.DOUBLE: "NUMBER"}


def program_name(plan: P.Plan) -> str:
    """The generated program's file stem: the DSL file's, with every character that is not
    a letter, digit or ``_`` replaced by ``_`` (``prog`` for a program without a file)."""
    return re.sub(r"\W", "_", pathlib.Path(plan.program.filename).stem) or "prog"


def usage_line(plan: P.Plan, program: str) -> str:
    """``./prog GRAPH_FILE --src NODE ... [--undirected] [--out FILE] [--time]``."""
    words = [f"./{program} GRAPH_FILE"]
    optional = dict(plan.function.defaults)
    for p in plan.function.params:
        if isinstance(p.type, SetType):
            words.append(f"--{p.name} NODE,NODE,...")
        elif isinstance(p.type, Scalar) and p.name in optional:
            words.append(f"[--{p.name} {_VALUE_WORDS.get(p.type, 'INT')}]")
        elif isinstance(p.type, Scalar):
            words.append(f"--{p.name} {_VALUE_WORDS.get(p.type, 'INT')}")
    return " ".join(words + ["[--undirected] [--out FILE] [--time]"])


def templates(package_dir: str):
    """The Mako templates of one backend package (``<package>/templates``)."""
    return template_lookup(str(pathlib.Path(package_dir) / "templates"))


def compile_executable(argv: Sequence[str], outdir: pathlib.Path, program: str, what: str,
                       explain: Optional[Callable[[str], str]] = None) -> pathlib.Path:
    """Run ``argv`` (a compiler command whose ``-o`` names ``program``) in ``outdir``. The
    compiler writes ``program.partial``, renamed when it succeeds, so no half-built
    executable is ever left; a failure is a ``BackendError`` with the compiler's log,
    headed by ``what`` ("nvcc failed to build sssp.cu") and followed by ``explain(log)``
    (a hint such as which package to install; empty for none)."""
    argv: List[str] = list(argv)
    partial = f"{program}.partial"
    argv[argv.index("-o") + 1] = partial
    ok, log = toolchains.run_compiler(argv, cwd=outdir)
    if not ok:
        (outdir / partial).unlink(missing_ok=True)
        hint = explain(log) if explain is not None else ""
        raise BackendError(f"{what}:\n{log}{hint}", code="E0502")
    (outdir / partial).replace(outdir / program)
    return outdir / program


class CppBackend(Backend):
    """A backend whose program is C++ compiled by its package's ``toolchain`` module, which
    provides ``availability()`` and ``compile_program(outdir, program, options)``, and
    ``launcher(launch, options)`` and ``ranks(launch, options)`` when its programs are
    started by a launcher (MPI's mpirun); the backend class itself only generates."""

    toolchain = None     # the package's toolchain module

    def availability(self) -> Availability:
        return self.toolchain.availability()

    def build(self, generated: GeneratedProgram, outdir: pathlib.Path,
              options: BackendOptions) -> BuiltProgram:
        outdir = pathlib.Path(outdir)
        generated.write(outdir)
        binary = self.toolchain.compile_program(outdir, pathlib.Path(generated.main).stem,
                                                options)
        return BuiltProgram(self.name, generated.function, outdir, [str(binary)])

    def launcher(self, options: BackendOptions, launch: Launch = Launch()) -> List[str]:
        start = getattr(self.toolchain, "launcher", None)
        if start is None:
            return super().launcher(options, launch)
        return start(launch, options)

    def ranks(self, options: BackendOptions, launch: Launch = Launch()) -> Optional[int]:
        count = getattr(self.toolchain, "ranks", None)
        return None if count is None else count(launch, options)
