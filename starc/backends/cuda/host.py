"""The CUDA host: how the shared C++ host printer spells each device operation with the CUDA
runtime API, every call checked (``STARC_CUDA_CHECK`` reports the DSL line and exits 3)."""

from __future__ import annotations

from typing import List, Sequence, Tuple

from starc.backends.common.cfamily import KernelCode
from starc.backends.common.host_dialect import Count, HostDialect, HostPrinter
from starc.ir.types import Scalar

__all__ = ["CUDAHostDialect"]


class CUDAHostDialect(HostDialect):
    """The host's device operations with the CUDA runtime API, every call checked."""

    name = "cuda"

    def __init__(self, block_size: int) -> None:
        self.default_block_size = block_size

    def attach(self, printer: HostPrinter) -> None:
        super().attach(printer)
        self.block = printer.names.fresh("block_size")

    def _bytes(self, elem: Scalar, count: Count) -> str:
        return f"sizeof({self.storage_type(elem)}) * {count.factor}"

    def program_flags(self) -> List[Tuple[str, str, str]]:
        return [("block-size", "N", f"threads per block, 1 to 1024 (default {self.default_block_size})")]

    def options(self, cl: str) -> List[str]:
        return [f"const int {self.block} = starc_block_size({cl}, {self.default_block_size});"]

    def setup(self, where: str) -> List[str]:
        return ["// Create the CUDA context now, outside the timed region.",
                f"starc_cuda_context({where});"]

    def warm_up(self, where: str) -> List[str]:
        if not self.host.kernels:
            return []
        return [f"starc_load_kernels({', '.join([where, *self.host.kernels])});"]

    def allocate(self, var: str, elem: Scalar, count: Count, where: str) -> List[str]:
        if count.may_be_zero:   # never a 0-byte allocation
            count = Count(f"std::max({count}, 1)")
        return [f"STARC_CUDA_CHECK(cudaMalloc(&{var}, {self._bytes(elem, count)}), {where});"]

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaFree({var}), {where});"]

    def copy_to_device(self, var, elem, host, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({var}, {host}, {self._bytes(elem, count)}, "
                f"cudaMemcpyHostToDevice), {where});"]

    def copy_to_host(self, host, var, elem, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({host}, {var}, {self._bytes(elem, count)}, "
                f"cudaMemcpyDeviceToHost), {where});"]

    def copy_device(self, dst, src, elem, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({dst}, {src}, {self._bytes(elem, count)}, "
                f"cudaMemcpyDeviceToDevice), {where});"]

    def fill(self, var, elem, value, count, where):
        if value.zero_bytes:  # all-zero bytes are 0, false and 0.0 in every element type
            return [f"STARC_CUDA_CHECK(cudaMemset({var}, 0, {self._bytes(elem, count)}), "
                    f"{where});"]
        return [f"starc_fill({var}, {value}, {count}, {self.block}, {where});"]

    def write_element(self, var, elem, index, value, where):
        if index.zero_bytes and value.zero_bytes:  # resetting a flag: no blocking host copy
            return [f"STARC_CUDA_CHECK(cudaMemset({var}, 0, {self._bytes(elem, Count('1'))}), "
                    f"{where});"]
        return [f"starc_write_element({var}, {index}, {value}, {where});"]

    def read_element(self, var, elem, index, where):
        return f"starc_read_element({var}, {index}, {where})"

    # rows with slack: a batch's slots, packed and scattered (gathered) by the prelude's
    # kernels, and its moves applied there; the staging kept across the batches
    def stage_slots(self, staging: str, slots: str, where: str) -> List[str]:
        return [f"starc_stage_slots({staging}, {slots}, {where});"]

    def stage_moves(self, staging: str, records: str, moved: str, where: str) -> List[str]:
        return [f"starc_stage_moves({staging}, {records}, {moved}, {where});"]

    def move_on_device(self, var: str, elem, staging: str, where: str) -> List[str]:
        return [f"starc_move({staging}, {var}, {where});"]

    def gather_from_device(self, host, var, elem, staging, where):
        return [f"starc_gather({staging}, {host}, {var}, {where});"]

    def scatter_to_device(self, var, elem, host, staging, where):
        return [f"starc_scatter({staging}, {var}, {host}, {where});"]

    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        if kernel.extent == "single":
            config = "1, 1"
        else:
            count = {"nodes": f"{self.host.graph}.num_nodes", "edges": self.host.edge_bound("edges"),
                     "frontier": next((value for value, arg in zip(args, kernel.args)
                                       if arg.source == ("size", "frontier")), "")}[kernel.extent]
            config = f"starc_grid({count}, {self.block}), {self.block}"
        return [f"{kernel.name}<<<{config}>>>({', '.join(args)});",
                f'starc_launch_check("{kernel.name}", {where});']

    def synchronize(self, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaDeviceSynchronize(), {where});"]
