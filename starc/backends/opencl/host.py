"""The OpenCL host: how the shared C++ host printer spells each device operation in OpenCL.

The OpenCL 1.2 C API through the helpers of ``runtime/starc_opencl_host.hpp``, one call per
device operation, each checked (``error: <what> (<CL error name>) at <prog.sp>:<line>``, exit
status 3). Device arrays are ``cl_mem`` buffers; the program reads its kernels from the ``.cl``
file next to it and builds them at start-up, creating every kernel object once. Each kernel
gets a small launcher function (``Launcher``): one ``starc_set_arg`` per argument, then the
NDRange launch, so the algorithm calls a kernel as CUDA and SYCL programs do.
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional, Sequence, Tuple

from starc.backends.base import BackendError
from starc.backends.common.cfamily import C_KEYWORDS, KernelCode, NameTable
from starc.backends.common.host_dialect import CXX_KEYWORDS, HostPrinter
from starc.backends.common.helper_host import HelperHostDialect
from starc.backends.opencl.kernels import OpenCLDialect
from starc.ir.types import Scalar

__all__ = ["OpenCLHostDialect", "Launcher", "DEVICE", "BLOCK"]

# Host names of the backend; the ``starc_`` prefix is never given to a DSL name.
DEVICE = "starc_device"
BLOCK = "starc_block"

#: The parameters every launcher takes before the kernel's own.
_SHELL_PARAMS = ("device", "kernel", "where")


class Launcher:
    """The host function that launches one kernel: what the template prints of it."""

    def __init__(self, code: KernelCode) -> None:
        # Kernel argument names are OpenCL C names, already off the C keywords: keep them
        # but off what only C++ reserves and off the launcher's own parameters.
        names = NameTable(sorted((CXX_KEYWORDS - C_KEYWORDS) | set(_SHELL_PARAMS)))
        self.name = code.name
        self.comment = code.comment
        params = ["const starc_opencl& device", "const starc_kernel& kernel", "const char* where"]
        self.args: List[str] = []
        count: Optional[str] = None
        for arg in code.args:
            name = names.fresh(arg.name)
            self.args.append(name)
            # A scalar has the host type of the kernel's storage type: cl_int for int,
            # cl_uchar for bool ...
            params.append(f"cl_mem {name}" if arg.is_array
                          else f"cl_{OpenCLDialect.storage_types[arg.elem]} {name}")
            if arg.source == ("size", code.extent):
                count = name
        if code.extent == "single":
            self.launch = "starc_launch_single(device, kernel, where);"
        elif code.extent == "group":
            self.launch = "starc_launch_group(device, kernel, where);"
        elif count is not None:
            # a binned kernel's groups share heavy vertices, a split worklist round's its
            # entries' edges: whole groups even on a CPU
            grouped = code.cooperative is not None or code.frontier is not None
            launcher = "starc_launch_groups" if grouped else "starc_launch"
            # items of the same small work: long runs on a CPU (starc_launch)
            runs = ", STARC_UNIFORM_RUN_ITEMS" if code.uniform and not grouped else ""
            self.launch = f"{launcher}(device, kernel, {count}, where{runs});"
        else:
            raise BackendError(f"the opencl backend cannot launch {code.name}: it has no "
                               f"argument for the size of its '{code.extent}' range")
        head = f"static void {self.name}("
        self.signature = ", ".join(params)
        if len(head) + len(self.signature) + 3 > 100:  # one parameter per line
            self.signature = (",\n" + " " * len(head)).join(params)


class OpenCLHostDialect(HelperHostDialect):
    """Device operations through the ``starc_*`` helpers of ``starc_opencl_host.hpp`` (the
    hooks shared with SYCL), kernel objects created at start-up, launches by launcher."""

    name = "opencl"
    handle = DEVICE

    def __init__(self, kernel_file: str, extensions: Sequence[str],
                 block_size: int) -> None:
        self.cl = "cl"
        self.kernel_file = kernel_file
        self.extensions = list(extensions)
        # starc's --block-size or OpenCLBackend.default_block_size: the program's default
        self.default_block_size = block_size
        self.kernel_vars: Dict[str, str] = {}

    def attach(self, printer: HostPrinter) -> None:
        super().attach(printer)
        for name in printer.kernels:
            self.kernel_vars[name] = printer.names.fresh(f"kernel_{name}")

    def array_declaration(self, var: str, elem: Scalar) -> str:
        return f"cl_mem {var} = nullptr;"     # a buffer: its element type is the helpers'

    # --- a block of one-value arrays: kernels keep a cl_mem each, a sub-buffer of the block ----
    def pack_slot_words(self, size: str) -> str:
        return size

    def pack_slot_lines(self, size: str, where: str) -> List[str]:
        bits = self.host.names.fresh(f"{size}_bits")
        return [f"// a slot per member, at an origin the device accepts for a sub-buffer",
                f"cl_uint {bits} = 0;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bits",
                f"starc_cl_check(clGetDeviceInfo({DEVICE}.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, "
                f"sizeof {bits}, &{bits}, nullptr), \"clGetDeviceInfo\", {where});",
                f"const std::size_t {size} = std::max<std::size_t>(1, {bits} / 64);  "
                "// in 8-byte words"]

    def pack_member(self, var: str, elem: Scalar, block: str, offset: str,
                    where: str) -> List[str]:
        status = self.host.names.fresh(f"{var}_status")
        return [f"cl_int {status} = CL_SUCCESS;",
                f"{{ cl_buffer_region region{{sizeof(long long) * {offset}, "
                f"sizeof({self.storage_type(elem)})}};",
                f"  {var} = clCreateSubBuffer({block}, CL_MEM_READ_WRITE, "
                f"CL_BUFFER_CREATE_TYPE_REGION, &region, &{status}); }}",
                f"starc_cl_check({status}, \"clCreateSubBuffer\", {where});"]

    def free_member(self, var: str, elem: Scalar, where: str) -> List[str]:
        return self.free(var, elem, where)

    # --- program phases -----------------------------------------------------------------------
    def program_flags(self) -> List[Tuple[str, str, str]]:
        return [("device", "cpu|gpu|default", "the OpenCL device: the first of that kind that builds the "
                 "kernels (default: default, GPUs first)"),
                ("block-size", "N", f"work-group size, 1 to 1024 (default {self.default_block_size})")]

    def options(self, cl: str) -> List[str]:
        self.cl = cl
        option = f"starc_block_size({cl}, {self.default_block_size});"
        if not self.kernel_vars:
            return [f"{option}  // checked, but the program launches no kernel"]
        return [f"const std::size_t {BLOCK} = {option}  // --block-size N: work-groups of N"]

    def setup(self, where: str) -> List[str]:
        extensions = ", ".join(json.dumps(e) for e in self.extensions)
        lines = [f"// The first device of --device on which {self.kernel_file} (next to this "
                 "program) builds; its kernel objects.",
                 f"starc_opencl {DEVICE} = starc_open_device({self.cl}, "
                 f"{json.dumps(self.kernel_file)}, {{{extensions}}}, {where});"]
        lines += self.lockstep_setup()
        locations = {k.name: k.loc for k in self.host.plan.kernels}
        for name, var in self.kernel_vars.items():
            lines.append(f"starc_kernel {var} = starc_create_kernel({DEVICE}, "
                         f"{json.dumps(name)}, {BLOCK}, "
                         f"{self.host.where(locations.get(name))});")
        return lines

    # --- kernels ------------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        call_args = [DEVICE, self.kernel_vars[kernel.name], where, *args]
        return [f"{kernel.name}({', '.join(call_args)});"]
