"""The SYCL host: how the shared C++ host printer spells each device operation in SYCL 2020.

One in-order ``sycl::queue`` (chosen by the program's ``--device cpu|gpu|default``), USM device
arrays, ``q.copy``/``q.fill`` through the prelude's ``starc_*`` helpers, each of which reports
a ``sycl::exception`` as ``error: <what> at <prog.sp>:<line>`` and exits with status 3.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from starc.backends.common.cfamily import KernelCode
from starc.backends.common.cpp_host import HostDialect
from starc.ir.types import Scalar

__all__ = ["SYCLHostDialect", "QUEUE", "BLOCK", "TIMER"]

# Host names of the backend; the ``starc_`` prefix is never given to a DSL name.
QUEUE = "starc_queue"
BLOCK = "starc_block"
TIMER = "starc_timer"


class SYCLHostDialect(HostDialect):
    name = "sycl"

    def __init__(self, block_size: Optional[int] = None) -> None:
        self.cl = "cl"
        # starc's --block-size, the program's default work-group size (0: the runtime's choice)
        self.default_block_size = block_size or 0

    # --- program phases -----------------------------------------------------------------------
    def options(self, cl: str) -> List[str]:
        self.cl = cl
        return [f"[[maybe_unused]] const std::size_t {BLOCK} = starc_block_size({cl}, "
                f"{self.default_block_size});  // --block-size N: work-groups of N"]

    def setup(self, where: str) -> List[str]:
        return [f'sycl::queue {QUEUE} = starc_make_queue({self.cl}.get_extra("device", '
                f'"default"), {where});']

    def timer_start(self, where: str) -> List[str]:
        return [f"starc::Timer {TIMER};", f"{TIMER}.start();"]

    def timer_stop(self, where: str) -> List[str]:
        return [f"{TIMER}.stop();"]

    def timer_seconds(self) -> str:
        return f"{TIMER}.seconds()"

    def synchronize(self, where: str) -> List[str]:
        return [f"starc_finish({QUEUE}, {where});"]

    # --- device memory ------------------------------------------------------------------------
    def allocate(self, var: str, elem: Scalar, count: str, where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f'{var} = starc_malloc<{t}>({QUEUE}, {count}, "{var}", {where});']

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        return [f"starc_free({QUEUE}, {var}, {where});"]

    def copy_to_device(self, var: str, elem: Scalar, host: str, count: str,
                       where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f"starc_copy_to_device<{t}>({QUEUE}, {var}, {host}, {count}, {where});"]

    def copy_to_host(self, host: str, var: str, elem: Scalar, count: str,
                     where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f"starc_copy_to_host<{t}>({QUEUE}, {host}, {var}, {count}, {where});"]

    def fill(self, var: str, elem: Scalar, value: str, count: str, where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f"starc_fill<{t}>({QUEUE}, {var}, {value}, {count}, {where});"]

    def copy_device(self, dst: str, src: str, elem: Scalar, count: str,
                    where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f"starc_copy<{t}>({QUEUE}, {dst}, {src}, {count}, {where});"]

    def write_element(self, var: str, elem: Scalar, index: str, value: str,
                      where: str) -> List[str]:
        t = self.storage_type(elem)
        return [f"starc_write_element<{t}>({QUEUE}, {var}, {index}, {value}, {where});"]

    def read_element(self, var: str, elem: Scalar, index: str, where: str) -> str:
        return f"starc_read_element({QUEUE}, {var}, {index}, {where})"

    # --- kernels ------------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        return [f"{kernel.name}({', '.join([QUEUE, BLOCK, where, *args])});"]
