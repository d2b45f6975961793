"""The OpenCL backend: OpenCL C 1.2 kernels and a C++ host on the OpenCL C API.

``generate`` writes ``<prog>.cl`` (the kernels), ``<prog>.cpp`` (the host, printed by the shared
C++ host printer through ``OpenCLHostDialect``) and the runtime headers it includes, so the
output folder builds on its own; the built program reads the ``.cl`` file from its own folder,
so the folder can be moved anywhere. ``build`` compiles the host with g++ against libOpenCL
(``toolchain``); the kernels are built by the OpenCL driver when the program starts.
"""

from __future__ import annotations

from starc.analysis import plan as P
from starc.analysis.host_tree import asks_device_kind, launched_kernels, walk_host
from starc.backends.base import BackendOptions
from starc.backends.common.host_updates import ROW_BOUNDS
from starc.backends.common.program import CppBackend, PrintedKernels, program_name
from starc.backends.opencl import toolchain
from starc.backends.opencl.host import Launcher, OpenCLHostDialect
from starc.backends.opencl.kernels import ATOMICS, CAPABILITIES, render_kernels

__all__ = ["OpenCLBackend"]


class OpenCLBackend(CppBackend):
    name = "opencl"
    description = "OpenCL C 1.2 kernels and a C++ host on the OpenCL C API (PoCL: any CPU)"
    toolchain = toolchain
    title = "OpenCL"
    default_block_size = 256
    launch_shape = ("__kernel {kernel} on an NDRange: global size {items} rounded up to a "
                    "multiple of {block}, local size {block}, one work item per {item}; on a "
                    "CPU device (no --block-size given) work-groups of one, each work item "
                    "a contiguous run of up to 64 {plural}")
    launch_why = ("the forall's iterations are independent, so each becomes one work item, "
                  "in work-groups of {block} (--block-size)")
    variant_choice = ("the program picks by its device's CL_DEVICE_TYPE (a GPU's work items "
                      "run in lockstep); STARC_OPENCL_LOCKSTEP=1 or 0 in the environment "
                      "overrides it")
    copy_to_device = "clEnqueueWriteBuffer"
    copy_to_host = "clEnqueueReadBuffer"
    capabilities = CAPABILITIES
    atomics = ATOMICS
    program_includes = frozenset({"cstddef"})

    def group_combine(self, reduction) -> str:
        return ("every work item of a work-group reaches the kernel's end (none returns early), "
                "where the group folds its privates by a tree in local memory and its first "
                "item alone does the atomic: one atomic per work-group")

    def group_append(self) -> str:
        return ("one atomic per work-group: an append takes a slot in the group's queue in "
                "local memory (a local atomic_inc; past the queue's capacity, "
                "STARC_LOCAL_QUEUE, its own slot in the worklist); at the kernel's end, after "
                "a barrier, the group's first item reserves the group's count with one "
                "atomic_add and the items copy the entries out; a dense round counts its flags "
                "in local memory and adds them likewise")

    def print_kernels(self, plan: P.Plan) -> PrintedKernels:
        # every kernel goes into the .cl file; the host has a launcher for each one it launches
        # rows with slack: a batch's changed slots (and the bounds of the rows it touched) are
        # scattered by type, the slots its moves read gathered from the arrays read back, and
        # its moves applied on the device (span moves) to every slot array
        slack = plan.target is not None and plan.target.slack_rows
        scattered = [a.elem for a in plan.arrays
                     if a.extent == "edges" or a.name in ROW_BOUNDS] if slack else []
        gathered = [a.elem for s in walk_host(plan.host) if isinstance(s, P.ApplyUpdates)
                    for a in s.read_back] if slack else []
        moved = [a.elem for a in plan.arrays if a.extent == "edges"] if any(
            isinstance(s, P.ApplyUpdates) and s.span_moves for s in walk_host(plan.host)) else []
        kernel_file = render_kernels(plan.kernels, scattered=scattered, gathered=gathered,
                                     moved=moved)
        codes = {code.name: code for code in kernel_file.kernels}
        launched = {k.name: codes[k.name] for k in launched_kernels(plan)}
        return PrintedKernels(launched, [Launcher(code) for code in launched.values()],
                              asks_device_kind(plan), kernel_file)

    def host_dialect(self, plan: P.Plan, kernels: PrintedKernels,
                     options: BackendOptions) -> OpenCLHostDialect:
        return OpenCLHostDialect(f"{program_name(plan)}.cl", kernels.printed.extensions,
                                 options.block_size or self.default_block_size)

    def kernel_files(self, program: str, kernels: PrintedKernels, values):
        text = self.template("kernels.cl.mako").render(
            **dict(values, prelude=kernels.printed.prelude, kernels=kernels.printed.text))
        return {f"{program}.cl": text}
