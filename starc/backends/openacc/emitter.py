"""The OpenACC backend: one ``parallel loop`` function per plan kernel (``kernels``), the host
printed by the shared C++ host printer through ``OpenACCHostDialect`` (``host``, whose
docstring says how arrays stay on the device and why swapping host pointers is correct), built
with nvc++ -acc or g++ -fopenacc (``toolchain``)."""

from __future__ import annotations

import pathlib

import starc
from starc.analysis import plan as P
from starc.analysis.host_tree import launched_kernels
from starc.backends.base import BackendOptions, GeneratedProgram
from starc.backends.common.cpp_host import CppHostPrinter
from starc.backends.common.program import CppBackend, program_name, templates, usage_line
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.openacc import toolchain
from starc.backends.openacc.host import OpenACCHostDialect
from starc.backends.common.host_loops import directive_capabilities, native_reduction
from starc.backends.openacc.kernels import RUNTIME_HEADER, print_kernel, runtime_header

__all__ = ["OpenACCBackend"]

_HERE = str(pathlib.Path(__file__).resolve().parent)


class OpenACCBackend(CppBackend):
    name = "openacc"
    description = "OpenACC C++ (nvc++ -acc; g++ -fopenacc, on the host unless offloading)"
    toolchain = toolchain
    title = "OpenACC"
    launch_shape = ("function {kernel}: one #pragma acc parallel loop over the {items} "
                    "{plural}, arrays named in present(...)")
    launch_why = ("the compiler maps the loop's independent iterations to gangs and vector "
                  "lanes; the arrays are already on the device, so the loop moves no data")
    copy_to_device = "#pragma acc update device(...)"
    copy_to_host = "#pragma acc update self(...)"

    capabilities = directive_capabilities("openacc", "OpenACC")

    def native_reduction(self, kernel, reduction):
        return native_reduction(reduction, "the parallel loop")

    def print_program(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        kernels = [print_kernel(k) for k in launched_kernels(plan)]
        dialect = OpenACCHostDialect({k.code.name: k.sizes for k in kernels})
        host = CppHostPrinter(plan, dialect, {k.code.name: k.code for k in kernels})
        main = host.main()
        program = program_name(plan)
        build, *other_builds = toolchain.build_lines(program, options)
        text = templates(_HERE).get_template("program.cpp.mako").render(
            program=program, function=plan.function.name, source=host.source,
            version=starc.__version__, build=build, other_builds=other_builds,
            run_command=usage_line(plan, program),
            includes=sorted(set(host.includes()) | {"algorithm", "utility"}),
            kernels=[k.text for k in kernels], main=main)
        features = set().union(*(k.code.features for k in kernels))
        files = {f"{program}.cpp": text, **runtime_files(), RUNTIME_HEADER: runtime_header(features)}
        return GeneratedProgram("openacc", plan.function.name, files, f"{program}.cpp", build)
