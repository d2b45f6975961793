"""The OpenACC host: how the shared C++ host printer spells each device operation in OpenACC.

A device array is a host array (``new T[count]``) that one unstructured data region keeps
present on the device from its allocation (``#pragma acc enter data create``, before the
algorithm) to its release (``exit data delete``, after the results are copied back): the plan
allocates every array once, up front, so no data clause is ever printed inside a loop. The
plan's transfers are ``update device``/``update self`` of the whole array (copy-in of the graph
and weights, copy-out of the results: outside every loop) or of one element
(``update device(a[i:1])``, ``update self(a[i:1])``: the fixedPoint flag the host tests each
round). Fills and device-to-device copies are ``parallel loop``s of ``starc_openacc.hpp``.

Double buffers (``SwapArrays``) swap the two host pointers. That is correct because both
arrays stay present for the whole run and every kernel takes its arrays as arguments and
finds their device copies by ``present(a[0:len])`` at each call: after the swap, ``a`` names
the other host array, and ``present`` maps it to that array's device copy. Nothing is copied.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from starc.backends.common.cfamily import KernelCode
from starc.backends.common.host_dialect import Count, HostDialect
from starc.ir.types import Scalar

__all__ = ["OpenACCHostDialect"]


class OpenACCHostDialect(HostDialect):
    """The host's device operations as OpenACC directives on host arrays (the timer stops
    after the last ``update self``, which waits for the device)."""

    name = "openacc"

    def __init__(self, sizes: Dict[str, List[str]]) -> None:
        #: kernel name -> the graph sizes ("n", "m") its function takes before its arguments
        self.sizes = sizes
        #: array variable -> its element count (``exit data`` names the section again)
        self.counts: Dict[str, str] = {}

    # --- program phases -----------------------------------------------------------------------
    def options(self, cl: str) -> List[str]:
        return [f"starc_openacc_options({cl});"]

    def setup(self, where: str) -> List[str]:
        return ["// Start the OpenACC runtime (and its device) now, outside the timed region.",
                "acc_init(acc_get_device_type());"]

    def synchronize(self, where: str) -> List[str]:
        return []       # every construct is synchronous (no async clause)

    # --- device memory ------------------------------------------------------------------------
    def allocate(self, var: str, elem: Scalar, count: Count, where: str) -> List[str]:
        if count.may_be_zero:   # never a 0-element array
            count = Count(f"std::max({count}, 1)", may_be_zero=False)
        self.counts[var] = count
        return [f"{var} = new {self.storage_type(elem)}[{count}];",
                f"#pragma acc enter data create({var}[0:{count}])"]

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        return [f"#pragma acc exit data delete({var}[0:{self.counts[var]}])",
                f"delete[] {var};"]

    def copy_to_device(self, var, elem, host, count, where):
        return [f"std::copy({host}, {host} + {count}, {var});",
                f"#pragma acc update device({var}[0:{count}])"]

    def copy_to_host(self, host, var, elem, count, where):
        return [f"#pragma acc update self({var}[0:{count}])",
                f"std::copy({var}, {var} + {count}, {host});"]

    def fill(self, var, elem, value, count, where):
        return [f"starc_fill({var}, {value}, {count});"]

    def copy_device(self, dst, src, elem, count, where):
        return [f"starc_copy({dst}, {src}, {count});"]

    def write_element(self, var, elem, index, value, where):
        return [f"{var}[{index}] = {value};", f"#pragma acc update device({var}[{index}:1])"]

    def read_element(self, var, elem, index, where):
        return f"starc_read_element({var}, {index})"

    # rows with slack: the slots a batch wrote (or its moves read), packed by the prelude and
    # scattered (gathered) by one parallel loop, its moves applied there; the staging (device
    # buffers from acc_malloc) kept across the batches
    def stage_slots(self, staging: str, slots: str, where: str) -> List[str]:
        return [f"starc_stage_slots({staging}, {slots});"]

    def stage_moves(self, staging: str, records: str, moved: str, where: str) -> List[str]:
        return [f"starc_stage_moves({staging}, {records}, {moved});"]

    def move_on_device(self, var: str, elem, staging: str, where: str) -> List[str]:
        return [f"starc_move({var}, {staging});"]

    def gather_from_device(self, host, var, elem, staging, where):
        return [f"starc_gather({host}, {var}, {staging});"]

    def scatter_to_device(self, var, elem, host, staging, where):
        return [f"starc_scatter({var}, {host}, {staging});"]

    # --- kernels ------------------------------------------------------------------------------
    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        graph = self.host.graph
        sizes = [f"{graph}.num_nodes" if size == "n" else self.host.edge_bound(kernel.extent)
                 for size in self.sizes[kernel.name]]
        rest = [arg for arg, spec in zip(args, kernel.args)
                if spec.source[0] != "size" or spec.source[1] == "frontier"]
        return [f"{kernel.name}({', '.join(sizes + rest)});"]
