"""The SYCL backend: standard SYCL 2020 programs built with acpp, icpx -fsycl or clang++ -fsycl.

``generate`` writes ``<prog>.cpp`` plus the runtime headers it includes (the shared C++ runtime
and ``starc_sycl.hpp``), so the output folder builds on its own. ``build`` compiles it with the
SYCL compiler ``toolchain.find`` finds (``--sycl-compiler`` overrides).

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
  won" (multi-assignments with secondary targets) is a compare-and-swap loop on AdaptiveCpp
  (``STARC_SYCL_FETCH_MINMAX_RETURNS_NEW``, defined by the prelude there) and ``fetch_min``/
  ``fetch_max`` elsewhere; updates whose result is unused call them everywhere. The double
  reproduces the behaviour with ``-DSYCL_HOST_FETCH_MINMAX_RETURNS_NEW`` (tests/backends/sycl).
- The JIT compiles a kernel again for every new work-group size, and a ``range<1>`` launch
  lets the runtime choose one from the item count, which changes every round of a frontier:
  sssp ran 0.2-4 s where it takes 5 ms. Programs launch fixed work-groups (256,
  ``--block-size``).
- Its OpenMP backend splits a launch's work-groups between the threads in equal contiguous
  blocks: on a degree-ordered graph, where tc's work sits at the top ids, one thread did it
  all. On a CPU device a launch is a few work-groups of one work-item that claim runs of 64
  items from a counter (``starc_cpu_runs`` in the prelude), 1024 where every item does the
  same small work (``Kernel.uniform_items``): a claim, its cache line passing between the
  threads, costs about what 64 such items do (pr's per-vertex term kernel took a fifth of pr's
  time). The item loop counts in ``int``, the kernels' index type: a ``size_t`` cast to
  ``int`` under ``-fwrapv`` kept the JIT from vectorising any item loop.
- The runtime prints warnings on ``std::cout`` (``kernel_cache`` on a run that JIT-compiles):
  the program sends ``std::cout`` to stderr before the runtime starts.
- A work-group size that is not a power of two breaks ``sycl::reduction``: ``--block-size``
  must be a power of two, both for ``starc`` (which bakes it into the program as the default)
  and for the generated program's own ``--block-size`` option.
- A compiler writes warnings on stdout, where the program's results go: ``starc build``/``run``
  pass the compiler's output on to stderr only (``toolchains.run_compiler``).
"""

from __future__ import annotations

from starc.analysis import plan as P
from starc.backends.base import BackendOptions
from starc.backends.common.program import CppBackend, PrintedKernels
from starc.backends.sycl import toolchain
from starc.backends.sycl.host import SYCLHostDialect
from starc.backends.sycl.kernels import (ATOMICS, CAPABILITIES, LOCKSTEP, SYCL_RUNTIME,
                                        native_reduction, print_kernel, runtime_header)

__all__ = ["SYCLBackend"]


class SYCLBackend(CppBackend):
    name = "sycl"
    description = "standard SYCL 2020 (USM, in-order queue) for acpp, icpx -fsycl, clang++ -fsycl"
    toolchain = toolchain
    title = "SYCL"
    launch_shape = ("{kernel}: q.parallel_for over an nd_range of {items} items rounded up to "
                    "work-groups of {block}, one work item per {item}; on a CPU device 4 "
                    "work-groups of one per compute unit, each claiming runs of 64 {plural} "
                    "(1024 where every item does the same small work) until none is left")
    launch_why = ("the forall's iterations are independent, so each becomes one work item; the "
                  "work-group size is fixed because AdaptiveCpp compiles a kernel again for each "
                  "new one, which a range<1> of varying length (a frontier's) would choose; on a "
                  "CPU, AdaptiveCpp gives each thread an equal block of work-groups, so claimed "
                  "runs balance work that grows with the id (a degree-ordered graph)")
    #: work-groups of 256 unless --block-size says otherwise (launch_why)
    default_block_size = 256
    variant_choice = ("the program picks by its device's sycl::device::is_gpu() (a GPU's "
                      "work items run in lockstep); STARC_SYCL_LOCKSTEP=1 or 0 in the "
                      "environment overrides it")
    copy_to_device = "q.memcpy (host to USM device memory)"
    copy_to_host = "q.memcpy (USM device memory to host)"
    write_element = "q.fill of one element, not waited for: the in-order queue runs it first"
    capabilities = CAPABILITIES
    atomics = ATOMICS
    program_includes = frozenset({"cstddef"})
    native_reduction = staticmethod(native_reduction)

    def group_combine(self, reduction) -> str:
        return ("the work items of a binned kernel or a split worklist round all reach its end, "
                "where the group folds its privates by a tree in a local_accessor (not "
                "sycl::reduce_over_group, which AdaptiveCpp's CPU target cannot load) and its "
                "first item alone does the atomic: one atomic per work-group")

    def group_append(self) -> str:
        return ("one atomic per work-group: a kernel that appends is a command group whose "
                "local_accessor holds the group's queue; an append takes a slot there with a "
                "work-group atomic_ref (past the queue's capacity, STARC_LOCAL_QUEUE, its own "
                "slot in the worklist); at the kernel's end, after a group barrier, the group's "
                "first item reserves the group's count with one atomic and the items copy the "
                "entries out (on a CPU device a group is one work item running a run of "
                "items); a dense round counts its flags in local memory and adds them likewise")

    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        return PrintedKernels.each(print_kernel, plan)

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> SYCLHostDialect:
        return SYCLHostDialect(options.block_size or self.default_block_size)

    def device_header(self, kernels: PrintedKernels):
        # (the prelude's starc_lockstep_device where the host asks it: a kernel's variant, or
        # a union-find's test of the device kind)
        asks = {LOCKSTEP} if kernels.asks_device_kind else set()
        return {SYCL_RUNTIME: runtime_header(kernels.features | asks)}
