"""The MPI backend: one OpenMP function per plan kernel (``kernels``), the host printed by the
shared C++ host printer through ``MPIHostDialect`` (``host``), one superstep per launch with
the exchanges ``analysis.distribution`` decides, on the header-only runtime of ``runtime/``
(distribution, supersteps); built with mpicxx -fopenmp and run under mpirun (``toolchain``)."""

from __future__ import annotations

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.backends.base import BackendOptions
from starc.backends.common.host_loops import native_reduction
from starc.backends.common.program import CppBackend, PrintedKernels
from starc.backends.mpi import toolchain
from starc.backends.mpi.host import MPIHostDialect
from starc.backends.mpi.kernels import (ATOMICS, CAPABILITIES, KERNEL_HEADER, kernel_header,
                                       print_kernel)

__all__ = ["MPIBackend"]


class MPIBackend(CppBackend):
    name = "mpi"
    description = "MPI + OpenMP C++ (mpicxx; distributed graph, ghost vertices, supersteps)"
    toolchain = toolchain
    has_stats = True
    title = "MPI"
    capabilities = CAPABILITIES
    atomics = ATOMICS
    launch_shape = ("function {kernel}: #pragma omp parallel for over the rank's own {plural} "
                    "[first, last), then one superstep of exchanges")
    launch_why = ("each rank owns a range of vertices and their out-edges; OpenMP threads share "
                  "the rank's work, and what the kernel wrote at other ranks' vertices is "
                  "exchanged after it (bulk-synchronous)")

    def native_reduction(self, kernel, reduction):
        return native_reduction(reduction, "the rank's OpenMP loop")

    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        return PrintedKernels.each(print_kernel, plan)

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> MPIHostDialect:
        return MPIHostDialect(plan.target.distribution,
                              {k.code.name: k.sizes for k in kernels.printed},
                              {k.code.name: k.inputs for k in kernels.printed})

    def device_header(self, kernels: PrintedKernels):
        return {KERNEL_HEADER: kernel_header(kernels.features)}

    def runtime_includes(self, plan: P.Plan):
        return (["starc_mpi_components.hpp"]
                if any(isinstance(s, P.LeastLabels) for s in walk_host(plan.host)) else [])
