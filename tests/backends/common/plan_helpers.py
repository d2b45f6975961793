"""Hand-built kernels for the printer tests: the CSR arrays a plan would pass."""

from starc.analysis import plan as P
from starc.ir.types import Scalar

#: every array of a compact CSR as a kernel parameter (the printer leaves unused ones out of
#: the signature); rows with slack also pass their ends (``P.ROW_ENDS``)
GRAPH_PARAMS = tuple(
    P.KernelParam(name, Scalar.INT, array=P.DeviceArray(name, Scalar.INT, extent, "graph",
                                                         copy_in=True))
    for name, extent in P.GRAPH_ARRAYS.items() if name not in P.ROW_ENDS.values())
