"""The OpenCL backend: OpenCL C 1.2 kernels and a C++ host on the OpenCL C API.

``generate`` writes ``<prog>.cl`` (the kernels), ``<prog>.cpp`` (the host, printed by the shared
C++ host printer through ``OpenCLHostDialect``) and the runtime headers it includes, so the
output folder builds on its own; the built program reads the ``.cl`` file from its own folder,
so the folder can be moved anywhere. ``build`` compiles the host with g++ against libOpenCL
(``toolchain``); the kernels are built by the OpenCL driver when the program starts.
"""

from __future__ import annotations

import pathlib

import starc
from starc.analysis import plan as P
from starc.analysis.host_tree import launched_kernels
from starc.backends.base import BackendOptions, GeneratedProgram
from starc.backends.common.cpp_host import CppHostPrinter
from starc.backends.common.program import CppBackend, program_name, templates, usage_line
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.opencl import toolchain
from starc.backends.opencl.host import Launcher, OpenCLHostDialect
from starc.backends.opencl.kernels import CAPABILITIES, render_kernels

__all__ = ["OpenCLBackend"]

_HERE = str(pathlib.Path(__file__).resolve().parent)


class OpenCLBackend(CppBackend):
    name = "opencl"
    description = "OpenCL C 1.2 kernels and a C++ host on the OpenCL C API (PoCL: any CPU)"
    toolchain = toolchain
    title = "OpenCL"
    default_block_size = 256
    launch_shape = ("__kernel {kernel} on an NDRange: global size {items} rounded up to a "
                    "multiple of {block}, local size {block}, one work item per {item}; on a "
                    "CPU device (no --block-size given) work-groups of one, each work item "
                    "a contiguous run of up to 64 {item}s")
    launch_why = ("the forall's iterations are independent, so each becomes one work item, "
                  "in work-groups of {block} (--block-size)")
    copy_to_device = "clEnqueueWriteBuffer"
    copy_to_host = "clEnqueueReadBuffer"
    capabilities = CAPABILITIES

    def print_program(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        program = program_name(plan)
        kernel_file, host_file = f"{program}.cl", f"{program}.cpp"
        kernels = render_kernels(plan.kernels)
        codes = {code.name: code for code in kernels.kernels}
        launched = {k.name: codes[k.name] for k in launched_kernels(plan)}
        dialect = OpenCLHostDialect(kernel_file, kernels.extensions,
                                    options.block_size or self.default_block_size)
        host = CppHostPrinter(plan, dialect, launched)
        main = host.main()
        run_command = usage_line(plan, program)
        build_command = " ".join(toolchain.build_command(program))
        common = dict(version=starc.__version__, source=pathlib.Path(plan.program.filename).name,
                      function=plan.function.name, kernel_file=kernel_file,
                      run_command=run_command)
        cl_text = templates(_HERE).get_template("kernels.cl.mako").render(
            prelude=kernels.prelude, kernels=kernels.text,
            host_file=host_file, **common)
        cpp_text = templates(_HERE).get_template("program.cpp.mako").render(
            build_command=build_command, includes=sorted(set(host.includes()) | {"cstddef"}),
            block_default=(f"{options.block_size}, from starc --block-size"
                           if options.block_size else str(self.default_block_size)),
            launchers=[Launcher(code) for code in launched.values()], main=main, **common)
        files = {host_file: cpp_text, kernel_file: cl_text,
                 **runtime_files(toolchain.HOST_RUNTIME)}
        return GeneratedProgram("opencl", plan.function.name, files, host_file,
                                build_hint=build_command)
