"""Hand-built kernels for the printer tests: the CSR arrays a plan would pass."""

from starc.analysis import plan as P
from starc.ir.types import Scalar

#: every CSR array as a kernel parameter (the printer leaves unused ones out of the signature)
GRAPH_PARAMS = tuple(
    P.KernelParam(name, Scalar.INT, array=P.DeviceArray(name, Scalar.INT, extent, "graph",
                                                         copy_in=True))
    for name, extent in P.GRAPH_ARRAYS.items())
