"""The CUDA backend: one ``__global__`` kernel per plan kernel (``kernels``), the host printed
by the shared C++ host printer through ``CUDAHostDialect`` (``host``), built with nvcc
(``toolchain``)."""

from __future__ import annotations

import pathlib

import starc
from starc.analysis import plan as P
from starc.analysis.host_tree import launched_kernels
from starc.backends.base import BackendOptions, GeneratedProgram
from starc.backends.common import cfamily
from starc.backends.common.cpp_host import CppHostPrinter
from starc.backends.common.program import CppBackend, program_name, templates, usage_line
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.cuda import GPU_ARCH, toolchain
from starc.backends.cuda.host import CUDAHostDialect
from starc.backends.cuda.kernels import (CAPABILITIES, CUDADialect, KernelShell, RUNTIME_HEADER,
                                        runtime_header)

__all__ = ["CUDABackend"]

_HERE = str(pathlib.Path(__file__).resolve().parent)


class CUDABackend(CppBackend):
    name = "cuda"
    description = "CUDA C++ for NVIDIA GPUs (nvcc)"
    toolchain = toolchain
    title = "CUDA"
    default_block_size = 256
    launch_shape = "kernel {kernel}<<<ceil({items}/{block}), {block}>>>, one thread per {item}"
    launch_why = ("the forall's iterations are independent, so each becomes one GPU thread, "
                  "in blocks of {block} threads (--block-size)")
    copy_to_device = "cudaMemcpy(..., cudaMemcpyHostToDevice)"
    copy_to_host = "cudaMemcpy(..., cudaMemcpyDeviceToHost)"

    capabilities = CAPABILITIES

    def group_combine(self, reduction) -> str:
        return ("the threads of a warp that reach it together first fold their privates "
                "(cooperative_groups::reduce), so one atomic per warp group")

    def print_program(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        dialect = CUDADialect()
        codes = {k.name: cfamily.lower_kernel(k, dialect) for k in launched_kernels(plan)}
        host = CppHostPrinter(plan, CUDAHostDialect(options.block_size or self.default_block_size), codes)
        main = host.main()
        program = program_name(plan)
        build = " ".join(toolchain.build_command(program, options.value(GPU_ARCH), strict=False))
        text = templates(_HERE).get_template("program.cu.mako").render(
            program=program, function=plan.function.name, source=host.source,
            version=starc.__version__, build=build, run_command=usage_line(plan, program),
            includes=sorted(set(host.includes()) | {"algorithm", "utility"}),
            kernels=[KernelShell(codes[name], dialect) for name in codes], main=main)
        features = set().union(*(code.features for code in codes.values()))
        files = {f"{program}.cu": text, **runtime_files(),
                 RUNTIME_HEADER: runtime_header(features)}
        return GeneratedProgram("cuda", plan.function.name, files, f"{program}.cu", build)
