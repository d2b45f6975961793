"""Host dialects whose runtime header has one ``starc_<operation>`` helper per device operation.

SYCL (``starc_sycl.hpp``) and OpenCL (``starc_opencl_host.hpp``) spell every host-side device
operation as the same call, ``starc_fill<T>(handle, array, value, count, where)``, with the
backend's device handle first (SYCL's queue, OpenCL's device): the helper checks the operation
and reports a failure at ``where``. Only the handle and the array type differ, so the hooks
live here once; a backend sets ``handle`` and adds its phases (options, setup) and launches.
"""

from __future__ import annotations

from typing import List

from starc.analysis.host_tree import asks_device_kind
from starc.backends.common.host_dialect import TIMER, HostDialect
from starc.ir.types import Scalar

__all__ = ["HelperHostDialect", "TIMER"]


class HelperHostDialect(HostDialect):
    """Device operations as calls of the runtime header's ``starc_*`` helpers."""

    #: the host variable holding the device handle passed to every helper (``starc_queue``)
    handle = ""
    #: whether ``starc_read_element`` names its element type: it cannot deduce it from an
    #: untyped buffer (OpenCL's ``cl_mem``), as it does from a USM pointer (SYCL)
    typed_read = True

    #: the host variable that says whether the device runs work items in lockstep, set at
    #: start-up where a kernel has a variant for such devices (``Kernel.lockstep_variant``)
    #: or a host test reads it (``host_tree.asks_device_kind``)
    lockstep = "starc_lockstep"

    def lockstep_setup(self) -> List[str]:
        """The start-up line that asks the runtime helper ``starc_lockstep_device`` (printed
        only for a program with kernel variants) for the device's kind, once."""
        if not asks_device_kind(self.host.plan):
            return []
        return [f"const bool {self.lockstep} = starc_lockstep_device({self.handle});  "
                "// a GPU: the kernels' variants for lockstep devices run"]

    def on_lockstep_device(self) -> str:
        return self.lockstep

    def _call(self, helper: str, elem, *args: str) -> str:
        typed = f"<{self.storage_type(elem)}>" if elem is not None else ""
        return f"starc_{helper}{typed}({', '.join([self.handle, *args])})"

    # --- synchronisation ----------------------------------------------------------------------
    def synchronize(self, where: str) -> List[str]:
        return [self._call("finish", None, where) + ";"]

    # --- device memory ------------------------------------------------------------------------
    def allocate(self, var: str, elem: Scalar, count: str, where: str) -> List[str]:
        name = f'"{var}"'   # for the out-of-memory message
        return [f"{var} = {self._call('malloc', elem, count, name, where)};"]

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        return [self._call("free", None, var, where) + ";"]

    def copy_to_device(self, var: str, elem: Scalar, host: str, count: str,
                       where: str) -> List[str]:
        return [self._call("copy_to_device", elem, var, host, count, where) + ";"]

    def copy_to_host(self, host: str, var: str, elem: Scalar, count: str,
                     where: str) -> List[str]:
        return [self._call("copy_to_host", elem, host, var, count, where) + ";"]

    def fill(self, var: str, elem: Scalar, value: str, count: str, where: str) -> List[str]:
        return [self._call("fill", elem, var, value, count, where) + ";"]

    def copy_device(self, dst: str, src: str, elem: Scalar, count: str,
                    where: str) -> List[str]:
        return [self._call("copy", elem, dst, src, count, where) + ";"]

    def write_element(self, var: str, elem: Scalar, index: str, value: str,
                      where: str) -> List[str]:
        return [self._call("write_element", elem, var, index, value, where) + ";"]

    def read_element(self, var: str, elem: Scalar, index: str, where: str) -> str:
        return self._call("read_element", elem if self.typed_read else None, var, index, where)

    # --- a batch's slots of rows with slack (the header's starc_scatter_staging, kept) --------
    def stage_slots(self, staging: str, slots: str, where: str) -> List[str]:
        return [self._call("stage_slots", None, staging, slots, where) + ";"]

    def stage_moves(self, staging: str, records: str, moved: str, where: str) -> List[str]:
        return [self._call("stage_moves", None, staging, records, moved, where) + ";"]

    def move_on_device(self, var: str, elem: Scalar, staging: str, where: str) -> List[str]:
        return [self._call("move", elem, staging, var, where) + ";"]

    def gather_from_device(self, host: str, var: str, elem: Scalar, staging: str,
                           where: str) -> List[str]:
        return [self._call("gather", elem, staging, host, var, where) + ";"]

    def scatter_to_device(self, var: str, elem: Scalar, host: str, staging: str,
                          where: str) -> List[str]:
        return [self._call("scatter", elem, staging, var, host, where) + ";"]
