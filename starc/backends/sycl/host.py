"""The SYCL host: how the shared C++ host printer spells each device operation in SYCL 2020.

One in-order ``sycl::queue`` (chosen by the program's ``--device cpu|gpu|default``), USM device
arrays, ``q.copy``/``q.fill`` through the prelude's ``starc_*`` helpers, each of which reports
a ``sycl::exception`` as ``error: <what> at <prog.sp>:<line>`` and exits with status 3 (the
hooks that call them are shared with OpenCL: ``common/helper_host``).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from starc.backends.common.cfamily import KernelCode
from starc.backends.common.helper_host import TIMER, HelperHostDialect

__all__ = ["SYCLHostDialect", "QUEUE", "BLOCK", "TIMER"]

# Host names of the backend; the ``starc_`` prefix is never given to a DSL name.
QUEUE = "starc_queue"
BLOCK = "starc_block"


class SYCLHostDialect(HelperHostDialect):
    name = "sycl"
    handle = QUEUE
    typed_read = False      # starc_read_element deduces it from the USM pointer

    def __init__(self, block_size: Optional[int] = None) -> None:
        self.cl = "cl"
        # starc's --block-size, the program's default work-group size (0: the runtime's choice)
        self.default_block_size = block_size or 0

    # --- program phases -----------------------------------------------------------------------
    def program_flags(self) -> List[Tuple[str, str, str]]:
        default = self.default_block_size or "the runtime's choice"
        return [("device", "cpu|gpu|default", "the SYCL device (default: default)"),
                ("block-size", "N", f"work-group size, a power of two from 1 to 65536 (default {default})")]

    def options(self, cl: str) -> List[str]:
        self.cl = cl
        return [f"[[maybe_unused]] const std::size_t {BLOCK} = starc_block_size({cl}, "
                f"{self.default_block_size});  // --block-size N: work-groups of N"]

    def setup(self, where: str) -> List[str]:
        return [f'sycl::queue {QUEUE} = starc_make_queue({self.cl}.get_extra("device", '
                f'"default"));'] + self.lockstep_setup()

    def warm_up(self, where: str) -> List[str]:
        return [f"starc_warm_up({QUEUE}, {where});"] if self.host.kernels else []

    # --- kernels ------------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        return [f"{kernel.name}({', '.join([QUEUE, BLOCK, where, *args])});"]
