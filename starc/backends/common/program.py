"""What every C++ backend does alike around its printers: the recipe that prints a program
(``CppBackend.print_program``), the program's name, its usage line, its templates, and compiling
it into an executable that is complete or absent."""

from __future__ import annotations

import dataclasses
import pathlib
import re
import sys
from typing import Callable, Dict, List, Optional, Sequence, Set

import starc
from starc import toolchains
from starc.analysis import plan as P
from starc.analysis.host_tree import asks_device_kind, launched_kernels
from starc.backends.base import (Availability, Backend, BackendError, BackendOptions,
                                 BuiltProgram, GeneratedProgram, Launch)
from starc.backends.common.cpp_host import CppHostPrinter
from starc.backends.common.host_dialect import HostDialect
from starc.backends.common.kernel_arguments import KernelCode
from starc.backends.common.runtime_object import RuntimeEntries
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.common.templating import template_lookup
from starc.ir.types import Scalar, SetType, UpdatesType

__all__ = ["CppBackend", "PrintedKernels", "program_name", "usage_line", "templates",
           "compile_executable", "RuntimeEntries"]

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
        elif isinstance(p.type, UpdatesType):      # a Dynamic program's stream
            words.append("--updates FILE")
    return " ".join(words + ["[--undirected] [--out FILE] [--time]"])


def templates(package_dir: str):
    """The Mako templates of one backend package (``<package>/templates``)."""
    return template_lookup(str(pathlib.Path(package_dir) / "templates"))


def compile_executable(argv: Sequence[str], outdir: pathlib.Path, program: str, what: str,
                       explain: Optional[Callable[[str], str]] = None,
                       entries: Optional[RuntimeEntries] = None) -> pathlib.Path:
    """Run ``argv`` (a compiler command whose ``-o`` names ``program``) in ``outdir``. The
    compiler writes ``program.partial``, renamed when it succeeds, so no half-built
    executable is ever left; a failure is a ``BackendError`` with the compiler's log,
    headed by ``what`` ("nvcc failed to build sssp.cu") and followed by ``explain(log)``
    (a hint such as which package to install; empty for none). ``entries``: the runtime's
    entry points the program links compiled (once per toolchain and flags) instead of
    compiling them with it."""
    argv = entries.link(argv) if entries is not None else list(argv)
    partial = f"{program}.partial"
    argv[argv.index("-o") + 1] = partial
    ok, log = toolchains.run_compiler(argv, cwd=outdir)
    if not ok:
        (outdir / partial).unlink(missing_ok=True)
        hint = explain(log) if explain is not None else ""
        raise BackendError(f"{what}:\n{log}{hint}", code="E0502")
    (outdir / partial).replace(outdir / program)
    return outdir / program


@dataclasses.dataclass
class PrintedKernels:
    """A program's kernels as its backend printed them: what the host launches and what the
    program template shows."""

    #: each launched kernel's code by name, in launch order (what ``CppHostPrinter`` launches)
    codes: Dict[str, KernelCode]
    #: what the program template prints for the launched kernels (its ``kernels``)
    shown: List[object]
    #: the host asks whether the device runs work items in lockstep (``asks_device_kind``):
    #: a kernel's variant, or a host test of the device kind without one
    asks_device_kind: bool
    #: the backend's own printed kernels, for its host dialect and its files
    printed: object = None

    @classmethod
    def each(cls, print_kernel: Callable, plan: P.Plan) -> "PrintedKernels":
        """Every kernel ``plan`` launches through ``print_kernel``, whose result has the
        kernel's ``code`` and its function ``text``."""
        printed = [print_kernel(kernel) for kernel in launched_kernels(plan)]
        return cls({k.code.name: k.code for k in printed}, [k.text for k in printed],
                   asks_device_kind(plan), printed)

    @property
    def features(self) -> Set[str]:
        """What the launched kernels use of the device prelude (``KernelCode.features``)."""
        return set().union(*(code.features for code in self.codes.values()))


class CppBackend(Backend):
    """A backend whose program is C++ compiled by its package's ``toolchain`` module, which
    provides ``availability()``, ``build_lines(program, options)`` (the build commands a
    program's header shows, the first one its build hint) and ``compile_program(outdir,
    program, options)``, and ``launcher(launch, options)`` and ``ranks(launch, options)`` when
    its programs are started by a launcher (MPI's mpirun); the backend class itself only
    generates.

    ``print_program`` is the one recipe of every C++ backend: print the kernels, print the
    host's ``main`` through the backend's host dialect, render ``templates/program<extension>
    .mako``, and write it with the shared runtime headers, the package's own (``runtime/``)
    and its device prelude. A backend supplies its parts through the hooks below."""

    toolchain = None     # the package's toolchain module
    #: the main file's extension; its template is ``templates/program<extension>.mako``
    extension = ".cpp"
    #: standard headers the kernels need besides those of the host printer
    program_includes = frozenset({"algorithm", "utility"})

    # --- the hooks ---------------------------------------------------------------------------
    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        """The kernels of ``plan``, printed."""
        raise NotImplementedError

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> HostDialect:
        """The dialect the shared host printer spells this backend's device operations in."""
        raise NotImplementedError

    def kernel_files(self, program: str, kernels: PrintedKernels,
                     values: Dict[str, object]) -> Dict[str, str]:
        """Files apart from the main one that hold the kernels (OpenCL's ``.cl``), by name."""
        return {}

    def device_header(self, kernels: PrintedKernels) -> Dict[str, str]:
        """The device prelude generated for ``kernels`` (``starc_cuda.cuh``), by name."""
        return {}

    def runtime_includes(self, plan: P.Plan) -> List[str]:
        """The headers of the package's runtime the program includes besides its template's
        (those of the host statements only some plans hold)."""
        return []

    # --- the recipe --------------------------------------------------------------------------
    def print_program(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        """The program's files for a specialized ``plan``, each part from the hooks."""
        kernels = self.print_kernels(plan)
        host = CppHostPrinter(plan, self.host_dialect(plan, kernels, options), kernels.codes)
        main = host.main()
        program = program_name(plan)
        builds = self.toolchain.build_lines(program, options)
        values = dict(version=starc.__version__, source=host.source,
                      function=plan.function.name, program=program, build=builds[0],
                      builds=builds, run_command=usage_line(plan, program),
                      includes=sorted(set(host.includes()) | self.program_includes),
                      block_default=self._block_default(options), kernels=kernels.shown,
                      lockstep_variants=[k.name for k in plan.kernels if k.variant_of],
                      asks_lockstep=kernels.asks_device_kind,
                      runtime_includes=self.runtime_includes(plan), main=main)
        main_file = f"{program}{self.extension}"
        own_runtime = sorted((self.package_dir / "runtime").glob("*.hpp"))
        files = {main_file: self.template(f"program{self.extension}.mako").render(**values),
                 **self.kernel_files(program, kernels, values), **runtime_files(*own_runtime),
                 **self.device_header(kernels)}
        return GeneratedProgram(self.name, plan.function.name, files, main_file, builds[0])

    @property
    def package_dir(self) -> pathlib.Path:
        """The folder of the backend's package (``templates/``, ``runtime/``)."""
        return pathlib.Path(sys.modules[type(self).__module__].__file__).resolve().parent

    def template(self, name: str):
        """The package's template ``templates/<name>``."""
        return templates(str(self.package_dir)).get_template(name)

    def _block_default(self, options: BackendOptions) -> str:
        """The work-group size a program launches with when its own --block-size is not given,
        in words for its header."""
        if options.block_size:
            return f"{options.block_size}, from starc --block-size"
        return str(self.default_block_size) if self.default_block_size else "the runtime's choice"

    # --- building and running ----------------------------------------------------------------
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
