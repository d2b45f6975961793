"""CUDA kernels: the dialect of kernel bodies, the ``__global__`` shell, the helper header."""

from __future__ import annotations

from typing import Optional, Set

from starc.analysis.capabilities import Capabilities
from starc.backends.common import atomic_helpers, cfamily
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.kernel_arguments import BOUNDS
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.ir.types import Scalar

__all__ = ["CUDADialect", "CUDA_RESERVED", "CAPABILITIES", "KernelShell", "RUNTIME_HEADER",
           "runtime_header"]

#: The CUDA helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_cuda.cuh"

_NUMERIC = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.NODE, Scalar.EDGE)

#: CUDA names a kernel must not shadow.
CUDA_RESERVED = CXX_KEYWORDS | frozenset("""
    threadIdx blockIdx blockDim gridDim warpSize dim3 atomicAdd atomicSub atomicMin atomicMax
    atomicAnd atomicOr atomicCAS atomicExch printf cooperative_groups
""".split())


#: cooperative_groups' functor per private reduction operator (the fold of the locals; "-"
#: sums them, the atomic then subtracts the sum); "*" keeps one atomic per thread
_GROUP_FOLDS = {"+": "plus", "-": "plus", "&": "bit_and", "|": "bit_or",
                "Min": "less", "Max": "greater"}

#: CUDA's capabilities: native atomics where an instruction exists, a warp-aggregated combine
#: of private reductions (bitwise ones on integers only), a device-side worklist.
CAPABILITIES = Capabilities(
    "cuda", "CUDA",
    group_reductions=frozenset((op, t) for op, fold in _GROUP_FOLDS.items() for t in _NUMERIC
                               if not fold.startswith("bit") or t in (Scalar.INT, Scalar.LONG)),
    **atomic_helpers.atomic_capabilities(atomic_helpers.TABLES["cuda"]))


class CUDADialect(cfamily.Dialect):
    """Kernel bodies in CUDA C++: native atomics through the ``starc_cuda.cuh`` helpers
    (CAS loops where CUDA has no instruction), bool arrays as bytes."""

    name = "cuda"
    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(func, t): f"starc_{func.lower()}"
                        for func in ("Min", "Max") for t in _NUMERIC}
    reserved = CUDA_RESERVED

    def group_combine(self, op: str, elem: Scalar, local: str) -> Optional[str]:
        return (f"starc_warp_reduce({local}, "
                f"cooperative_groups::{_GROUP_FOLDS[op]}<{self.type_name(elem)}>())")


class KernelShell:
    """What the template needs of one kernel."""

    def __init__(self, code: cfamily.KernelCode, dialect: CUDADialect) -> None:
        self.name = code.name
        self.comment = code.comment
        self.index = code.index
        self.body = "\n".join(code.body)
        params = []
        for arg in code.args:
            elem = dialect.storage_type(arg.elem)
            if arg.is_array:
                qualifier = "" if arg.written else "const "
                params.append(f"{qualifier}{elem}* __restrict__ {arg.name}")
            else:
                params.append(f"{elem} {arg.name}")
        self.signature = ", ".join(params)
        head = f"__global__ void {self.name}("
        if len(head) + len(self.signature) + 3 > 100:  # one parameter per line
            self.signature = (",\n" + " " * len(head)).join(params)
        self.bound = None
        self.index_decl = None
        if code.extent == "single":
            if code.index is not None:
                self.index_decl = f"const int {code.index} = 0;"
        else:
            self.index_decl = (f"const int {code.index} = "
                               "static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);")
            self.bound = BOUNDS[code.extent]


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_cuda.cuh`` for kernels with these features: the atomic helpers they use (every
    one when None) and the rest of the CUDA runtime."""
    return render_prelude("cuda", "prelude.cuh.mako", features,
                          group_combine=features is None or "group_combine" in features)
