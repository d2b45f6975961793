"""The OpenACC backend: one ``parallel loop`` function per plan kernel (``kernels``), the host
printed by the shared C++ host printer through ``OpenACCHostDialect`` (``host``, whose
docstring says how arrays stay on the device and why swapping host pointers is correct), built
with nvc++ -acc or g++ -fopenacc (``toolchain``)."""

from __future__ import annotations

from starc.analysis import plan as P
from starc.backends.base import BackendOptions
from starc.backends.common.host_loops import native_reduction
from starc.backends.common.program import CppBackend, PrintedKernels
from starc.backends.openacc import toolchain
from starc.backends.openacc.host import OpenACCHostDialect
from starc.backends.openacc.kernels import (ATOMICS, CAPABILITIES, RUNTIME_HEADER, print_kernel,
                                           runtime_header)

__all__ = ["OpenACCBackend"]


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

    capabilities = CAPABILITIES
    atomics = ATOMICS

    def native_reduction(self, kernel, reduction):
        return native_reduction(reduction, "the parallel loop")

    def group_append(self) -> str:
        return ("one atomic per gang: a kernel that appends is a parallel loop gang over chunks "
                "of STARC_GANG_CHUNK items, each run by a loop vector; an append takes a slot in "
                "the gang's private queue (private(...) on the gang loop, GPU shared memory "
                "under GCC) by an atomic capture (past the queue's capacity, STARC_LOCAL_QUEUE, "
                "its own slot in the worklist); after the vector loop the gang reserves its "
                "count with one atomic and a second loop vector copies the entries out; a dense "
                "round counts its flags per gang and adds them likewise")

    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        return PrintedKernels.each(print_kernel, plan)

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> OpenACCHostDialect:
        return OpenACCHostDialect({k.code.name: k.sizes for k in kernels.printed})

    def device_header(self, kernels: PrintedKernels):
        return {RUNTIME_HEADER: runtime_header(kernels.features)}
