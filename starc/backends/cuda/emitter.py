"""The CUDA backend: one ``__global__`` kernel per plan kernel (``kernels``), the host printed
by the shared C++ host printer through ``CUDAHostDialect`` (``host``), built with nvcc
(``toolchain``)."""

from __future__ import annotations

from starc.analysis import plan as P
from starc.analysis.host_tree import asks_device_kind, launched_kernels
from starc.backends.base import BackendOptions
from starc.backends.common import cfamily
from starc.backends.common.program import CppBackend, PrintedKernels
from starc.backends.cuda import toolchain
from starc.backends.cuda.host import CUDAHostDialect
from starc.backends.cuda.kernels import (ATOMICS, CAPABILITIES, CUDADialect, KernelShell,
                                        RUNTIME_HEADER, runtime_header)

__all__ = ["CUDABackend"]


class CUDABackend(CppBackend):
    name = "cuda"
    description = "CUDA C++ for NVIDIA GPUs (nvcc)"
    toolchain = toolchain
    extension = ".cu"
    title = "CUDA"
    default_block_size = 256
    launch_shape = "kernel {kernel}<<<ceil({items}/{block}), {block}>>>, one thread per {item}"
    launch_why = ("the forall's iterations are independent, so each becomes one GPU thread, "
                  "in blocks of {block} threads (--block-size)")
    copy_to_device = "cudaMemcpy(..., cudaMemcpyHostToDevice)"
    copy_to_host = "cudaMemcpy(..., cudaMemcpyDeviceToHost)"
    write_element = ("a one-item fill kernel, queued without waiting: the value travels with "
                     "the launch")

    capabilities = CAPABILITIES
    atomics = ATOMICS

    def group_combine(self, reduction) -> str:
        return ("the threads of a warp that reach it together first fold their privates "
                "(cooperative_groups::reduce), so one atomic per warp group")

    def group_append(self) -> str:
        return ("one atomicAdd per warp (starc_warp_append): the threads that append together "
                "(__activemask()) add their count once, the old length reaches each by "
                "__shfl_sync, and a thread's slot is it plus the appending lanes below it; a dense "
                "round counts the flags it flips likewise (starc_warp_count)")

    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        dialect = CUDADialect()
        codes = {k.name: cfamily.lower_kernel(k, dialect) for k in launched_kernels(plan)}
        return PrintedKernels(codes, [KernelShell(code, dialect) for code in codes.values()],
                              asks_device_kind(plan))

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> CUDAHostDialect:
        return CUDAHostDialect(options.block_size or self.default_block_size)

    def device_header(self, kernels: PrintedKernels):
        return {RUNTIME_HEADER: runtime_header(kernels.features)}
