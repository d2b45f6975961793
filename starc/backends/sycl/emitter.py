"""The SYCL backend: standard SYCL 2020 programs built with acpp, icpx -fsycl or clang++ -fsycl.

``generate`` writes ``<prog>.cpp`` plus the runtime headers it includes (the shared C++ runtime
and ``starc_sycl.hpp``), so the output folder builds on its own. ``build`` compiles it with the
SYCL compiler ``starc.toolchains.find_sycl_compiler`` finds (``--sycl-compiler`` overrides).

Test-only: no SYCL compiler exists in the package registries CI uses, so when none is found
and ``STARC_SYCL_TEST_DOUBLE`` names an include folder (``tests/conftest.py`` sets it to
``tests/support/sycl_host``), the program is compiled with g++ and OpenMP against that folder's
``sycl/sycl.hpp``, a small host implementation of exactly the SYCL subset starc emits. That is
a test double, not a SYCL implementation; it never appears in generated code, and a real
compiler, when found, always wins.

Facts from a real SYCL implementation (AdaptiveCpp 24.06), which the double cannot show by
default and the generator must respect:

- ``atomic_ref::fetch_min``/``fetch_max`` return the *new* value for floats on every target and
  for integers with ``--acpp-targets=omp``. So a Min/Max whose old value decides "this update
  won" (multi-assignments with secondary targets) uses the prelude's compare-and-swap helpers;
  only updates whose result is unused call ``fetch_min``/``fetch_max``. The double reproduces
  the behaviour with ``-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW`` (tests/backends/sycl).
- A work-group size that is not a power of two breaks ``sycl::reduction``: ``--block-size``
  must be a power of two, both for ``starc`` (which bakes it into the program as the default)
  and for the generated program's own ``--block-size`` option.
- A compiler writes warnings on stdout, where the program's results go: ``starc build``/``run``
  pass the compiler's output on to stderr only (``toolchains.run_compiler``).
"""

from __future__ import annotations

import functools
import os
import pathlib
import re
from typing import List, Optional, Set, Tuple

import starc
from starc import toolchains
from starc.analysis import plan as P
from starc.backends.base import (Availability, Backend, BackendError, BackendOptions,
                                 BuiltProgram, GeneratedProgram)
from starc.backends.common.cfamily import DialectError
from starc.backends.sycl import SYCL_COMPILER
from starc.backends.common.cpp_host import CppHostPrinter
from starc.analysis.host_tree import launched_kernels
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.sycl.host import SYCLHostDialect
from starc.backends.sycl.kernels import print_kernel
from starc.ir.types import Scalar, SetType

__all__ = ["SYCLBackend", "SYCL_RUNTIME", "runtime_header", "TEST_DOUBLE_VARIABLE",
           "build_commands"]

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"

#: The SYCL prelude generated next to every program (``runtime_header``).
SYCL_RUNTIME = "starc_sycl.hpp"

#: Test-only: an include folder with a host test double of <sycl/sycl.hpp> (see the docstring).
TEST_DOUBLE_VARIABLE = "STARC_SYCL_TEST_DOUBLE"

#: How each supported compiler builds a generated program (documented in its header).
_COMPILER_COMMANDS = (("acpp",), ("icpx", "-fsycl"), ("clang++", "-fsycl"))
_OPTIMIZE = "-O3"
#: Signed integer overflow wraps (two's complement) as in the reference (docs/language-notes.md)
_WRAP = "-fwrapv"


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_sycl.hpp`` for kernels with these features: the atomic helpers they use (every
    one when None) and the rest of the SYCL runtime."""
    return render_prelude("sycl", "prelude.hpp.mako", features)


@functools.lru_cache(maxsize=None)
def _template(name: str):
    from mako.template import Template
    return Template(filename=str(TEMPLATES / name), strict_undefined=True)


def _program_name(plan: P.Plan) -> str:
    return re.sub(r"\W", "_", pathlib.Path(plan.program.filename).stem) or "prog"


def build_commands(program: str) -> List[str]:
    """The one-line build command of ``program.cpp`` for each supported SYCL compiler."""
    return [" ".join([*compiler, _OPTIMIZE, _WRAP, "-o", program, f"{program}.cpp"])
            for compiler in _COMPILER_COMMANDS]


def _run_command(plan: P.Plan, program: str) -> str:
    words = [f"./{program} GRAPH_FILE"]
    for p in plan.function.params:
        if isinstance(p.type, SetType):
            words.append(f"--{p.name} 0,5,9")
        elif isinstance(p.type, Scalar):
            words.append(f"--{p.name} " + ("NODE" if p.type is Scalar.NODE else
                                           "NUMBER" if p.type in (Scalar.FLOAT, Scalar.DOUBLE)
                                           else "0|1" if p.type is Scalar.BOOL else "INT"))
    return " ".join(words + ["[--undirected] [--out FILE] [--time]"])


def double_include_dir() -> Optional[pathlib.Path]:
    """Test-only: the include folder named by ``STARC_SYCL_TEST_DOUBLE``, if it holds
    ``sycl/sycl.hpp``."""
    folder = os.environ.get(TEST_DOUBLE_VARIABLE)
    if folder and (pathlib.Path(folder) / "sycl" / "sycl.hpp").is_file():
        return pathlib.Path(folder)
    return None


class SYCLBackend(Backend):
    name = "sycl"
    description = "standard SYCL 2020 (USM, in-order queue) for acpp, icpx -fsycl, clang++ -fsycl"

    # --- availability ---------------------------------------------------------------------------
    def _toolchain(self, preferred: Optional[str] = None) -> Tuple[str, List[str]]:
        """("sycl", compiler argv) for a real compiler, ("double", g++ argv) for the
        test-only double, or ("", []) when neither is usable."""
        compiler = toolchains.find_sycl_compiler(preferred)
        if compiler is not None:
            return "sycl", list(compiler)
        if preferred is None:
            double = double_include_dir()
            cxx = toolchains.find_program("g++")
            if double is not None and cxx is not None:
                return "double", [cxx, "-std=c++17", "-fopenmp", f"-I{double}"]
        return "", []

    def availability(self) -> Availability:
        kind, argv = self._toolchain()
        if kind == "sycl":
            version = toolchains.tool_version(argv[0])
            detail = " ".join(argv) + (f" ({version})" if version else "")
            return Availability(True, True, detail)
        if kind == "double":
            return Availability(True, True, f"g++ + SYCL test double ({double_include_dir()}) "
                                            "— not a SYCL implementation")
        return Availability(False, False,
                            "no SYCL compiler (acpp, icpx, clang++ -fsycl) on PATH")

    # --- generation ----------------------------------------------------------------------------
    def generate(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        try:
            kernels = [print_kernel(k) for k in launched_kernels(plan)]
            host = CppHostPrinter(plan, SYCLHostDialect(options.block_size),
                                  {k.code.name: k.code for k in kernels})
            main = host.main()
        except DialectError as exc:
            raise BackendError(str(exc), exc.loc) from None
        program = _program_name(plan)
        commands = build_commands(program)
        includes = sorted(set(host.includes()) | {"cstddef"})
        text = _template("program.cpp.mako").render(
            version=starc.__version__, source=pathlib.Path(plan.program.filename).name,
            function=plan.function.name, build_commands=commands,
            run_command=_run_command(plan, program), includes=includes,
            block_default=(f"{options.block_size}, from starc --block-size"
                           if options.block_size else "the runtime's choice"),
            kernels=[k.text for k in kernels], main=main)
        features = set().union(*(k.code.features for k in kernels))
        files = {f"{program}.cpp": text, **runtime_files(), SYCL_RUNTIME: runtime_header(features)}
        return GeneratedProgram("sycl", plan.function.name, files, f"{program}.cpp",
                                build_hint=commands[0])

    # --- building ------------------------------------------------------------------------------
    def build(self, generated: GeneratedProgram, outdir: pathlib.Path,
              options: BackendOptions) -> BuiltProgram:
        outdir = pathlib.Path(outdir)
        preferred = options.value(SYCL_COMPILER)
        kind, argv = self._toolchain(preferred)
        if not kind:
            wanted = f"'{preferred}'" if preferred else "acpp, icpx or clang++ -fsycl"
            raise BackendError(f"cannot build SYCL: no SYCL compiler ({wanted}) found",
                               code="E0502")
        generated.write(outdir)
        program = pathlib.Path(generated.main).stem
        partial = f"{program}.partial"  # renamed when complete: no half-built executable
        flags = (["-O2"] if kind == "double" else [_OPTIMIZE]) + [_WRAP]
        ok, log = toolchains.run_compiler(argv + flags + ["-o", partial, generated.main],
                                          cwd=outdir)
        if not ok:
            (outdir / partial).unlink(missing_ok=True)
            raise BackendError(f"the SYCL compiler failed to build {generated.main}:\n{log}",
                               code="E0502")
        (outdir / partial).replace(outdir / program)
        return BuiltProgram("sycl", generated.function, outdir, [str(outdir / program)])
