"""The MPI backend: one OpenMP function per plan kernel (``kernels``), the host printed by the
shared C++ host printer through ``MPIHostDialect`` (``host``), one superstep per launch with
the exchanges ``analysis.distribution`` decides, on the header-only runtime of ``runtime/``
(distribution, supersteps); built with mpicxx -fopenmp and run under mpirun (``toolchain``)."""

from __future__ import annotations

import pathlib

import starc
from starc.analysis import plan as P
from starc.analysis.host_tree import launched_kernels
from starc.backends.base import BackendOptions, GeneratedProgram
from starc.backends.common.cpp_host import CppHostPrinter
from starc.backends.common.program import CppBackend, program_name, templates, usage_line
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.mpi import toolchain
from starc.backends.mpi.host import MPIHostDialect
from starc.backends.common.host_loops import directive_capabilities, native_reduction
from starc.backends.mpi.kernels import KERNEL_HEADER, kernel_header, print_kernel

__all__ = ["MPIBackend", "RUNTIME_DIR"]

_HERE = pathlib.Path(__file__).resolve().parent

#: The MPI runtime's own headers (distribution, supersteps), written next to every program.
RUNTIME_DIR = _HERE / "runtime"


class MPIBackend(CppBackend):
    name = "mpi"
    description = "MPI + OpenMP C++ (mpicxx; distributed graph, ghost vertices, supersteps)"
    toolchain = toolchain
    has_stats = True
    title = "MPI"
    # OpenMP loops on each rank, built with -fwrapv; the graph split among the ranks
    capabilities = directive_capabilities("mpi", "MPI", worklists=False, distributed=True,
                                          renumbers_graph=False, wraps_signed=True)
    launch_shape = ("function {kernel}: #pragma omp parallel for over the rank's own {plural} "
                    "[first, last), then one superstep of exchanges")
    launch_why = ("each rank owns a range of vertices and their out-edges; OpenMP threads share "
                  "the rank's work, and what the kernel wrote at other ranks' vertices is "
                  "exchanged after it (bulk-synchronous)")

    def native_reduction(self, kernel, reduction):
        return native_reduction(reduction, "the rank's OpenMP loop")

    def print_program(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        distribution = plan.target.distribution
        kernels = [print_kernel(k) for k in launched_kernels(plan)]
        dialect = MPIHostDialect(distribution, {k.code.name: k.sizes for k in kernels},
                                 {k.code.name: k.inputs for k in kernels})
        host = CppHostPrinter(plan, dialect, {k.code.name: k.code for k in kernels})
        main = host.main()
        program = program_name(plan)
        build = " ".join(toolchain.build_command(program))
        text = templates(str(_HERE)).get_template("program.cpp.mako").render(
            program=program, function=plan.function.name, source=host.source,
            version=starc.__version__, build=build,
            run_command="mpirun -np RANKS " + usage_line(plan, program),
            includes=sorted(set(host.includes()) | {"algorithm", "utility"}),
            kernels=[k.text for k in kernels], main=main)
        features = set().union(*(k.code.features for k in kernels))
        files = {f"{program}.cpp": text, **runtime_files(*sorted(RUNTIME_DIR.glob("*.hpp"))),
                 KERNEL_HEADER: kernel_header(features)}
        return GeneratedProgram("mpi", plan.function.name, files, f"{program}.cpp", build)
