"""CUDA kernels: the dialect of kernel bodies, the ``__global__`` shell, the helper header."""

from __future__ import annotations

from typing import Optional, Set

from starc.analysis.capabilities import Capabilities
from starc.backends.common import atomic_helpers, cfamily
from starc.backends.common.atomic_helpers import (CPP_TYPES, CUDA_INTEGER_EXCHANGE, AtomicTable,
                                                  CompareExchange, Native, same_call)
from starc.backends.common.binned_shell import GroupSyntax, WarpSyntax, binned_body
from starc.backends.common.frontier_shell import frontier_body
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.kernel_arguments import BOUNDS
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.ir.types import Scalar

__all__ = ["CUDADialect", "CUDA_RESERVED", "ATOMICS", "CAPABILITIES", "KernelShell",
           "RUNTIME_HEADER", "runtime_header"]

#: The CUDA helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_cuda.cuh"

_NUMERIC = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.NODE, Scalar.EDGE)

#: CUDA names a kernel must not shadow.
CUDA_RESERVED = CXX_KEYWORDS | frozenset("""
    threadIdx blockIdx blockDim gridDim warpSize dim3 atomicAdd atomicSub atomicMin atomicMax
    atomicAnd atomicOr atomicCAS atomicExch printf cooperative_groups
""".split())


_INT, _LONG, _FLOAT, _DOUBLE = Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE
_ULL = "unsigned long long"
#: CUDA's 64-bit add/and/or exist for unsigned long long only: the same bits in two's complement.
_CUDA_ULL = f"(long long)atomic{{Op}}(({_ULL}*)p, ({_ULL})v)"
#: atomicAdd on double needs sm_60 (before it, the loop on the 64-bit pattern).
_BEFORE_SM60 = "defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600"

#: CUDA's atomics: native where an instruction exists (signed 64-bit min/max from sm_35, float
#: add, double add from sm_60); atomicCAS exists for int and unsigned long long only.
ATOMICS = AtomicTable(
    c_types=CPP_TYPES,
    native={**same_call(("add", "sub", "min", "max", "and", "or"), [_INT], "atomic{Op}(p, v)"),
            **same_call(("add", "and", "or"), [_LONG], _CUDA_ULL),
            ("sub", _LONG): Native(f"(long long)atomicAdd(({_ULL}*)p, 0ULL - ({_ULL})v)"),
            **same_call(("min", "max"), [_LONG], "atomic{Op}(p, v)"),
            ("add", _FLOAT): Native("atomicAdd(p, v)"),
            ("sub", _FLOAT): Native("atomicAdd(p, -v)"),
            ("add", _DOUBLE): Native("atomicAdd(p, v)", fallback_if=_BEFORE_SM60),
            ("sub", _DOUBLE): Native("atomicAdd(p, -v)", fallback_if=_BEFORE_SM60)},
    compare_exchange={
        **CUDA_INTEGER_EXCHANGE,
        _FLOAT: CompareExchange(exchange="atomicCAS", bits="int",
                                value_to_bits="__float_as_int({})",
                                bits_to_value="__int_as_float({})", bits_pointer="(int*){}"),
        _DOUBLE: CompareExchange(exchange="atomicCAS", bits=_ULL,
                                 value_to_bits=f"({_ULL})__double_as_longlong({{}})",
                                 bits_to_value="__longlong_as_double((long long){})",
                                 bits_pointer=f"({_ULL}*){{}}")},
    about="CUDA's atomic* intrinsics")

#: cooperative_groups' functor per private reduction operator (the fold of the locals; "-"
#: sums them, the atomic then subtracts the sum); "*" keeps one atomic per thread
_GROUP_FOLDS = {"+": "plus", "-": "plus", "&": "bit_and", "|": "bit_or",
                "Min": "less", "Max": "greater"}

#: CUDA's capabilities: threads in lockstep warps (so a push loop runs one thread per edge, and
#: a binned pull gives a middle vertex to a warp, which combines by shuffles),
#: native atomics where an instruction exists, a warp-aggregated combine of private reductions
#: (bitwise ones on integers only), a device-side worklist whose appends a warp aggregates.
CAPABILITIES = Capabilities(
    "cuda", "CUDA", lockstep=True, sub_group_width=32, dynamic_graphs=True, slack_rows=True,
    span_moves=True,
    schedules=frozenset({"vertex", "edges", "binned"}), cooperative_bodies=True,
    frontier_edges=True, union_find=True, divergent_exchange=True,
    group_reductions=frozenset((op, t) for op, fold in _GROUP_FOLDS.items() for t in _NUMERIC
                               if not fold.startswith("bit") or t in (Scalar.INT, Scalar.LONG)),
    **atomic_helpers.atomic_capabilities(ATOMICS))


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

    def group_append(self, length: str) -> str:
        return f"starc_warp_append({length})"

    def group_count(self, length: str) -> str:
        return f"starc_warp_count({length})"


_FULL_WARP = "0xffffffffu"
#: a binned kernel's block and warps (``binned_shell``)
_BINNED = GroupSyntax(
    local="__shared__", barrier="__syncthreads();", lane="static_cast<int>(threadIdx.x)",
    lanes="static_cast<int>(blockDim.x)",
    vertex="static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x)",
    append="atomicAdd(&starc_heavy_count, 1)", local_min="atomicMin(&{0}, {1});",
    warp=WarpSyntax(width=32, ballot=f"__ballot_sync({_FULL_WARP}, {{0}})",
                    first_lane="__ffs({0}) - 1",
                    broadcast=f"__shfl_sync({_FULL_WARP}, {{0}}, {{1}})",
                    down=f"__shfl_down_sync({_FULL_WARP}, {{0}}, {{1}})"))


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
        elif code.cooperative is not None:       # the shell's lines declare the vertex
            self.body = "\n".join(binned_body(code, _BINNED))
        elif code.frontier is not None:          # the shell's lines declare the entry
            self.body = "\n".join(frontier_body(code, _BINNED))
        else:
            self.index_decl = (f"const int {code.index} = "
                               "static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);")
            self.bound = BOUNDS[code.extent]


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_cuda.cuh`` for kernels with these features: the atomic helpers they use (every
    one when None) and the rest of the CUDA runtime."""
    return render_prelude("cuda", "prelude.cuh.mako", features, atomics=ATOMICS,
                          group_combine=features is None or "group_combine" in features,
                          group_append=features is None or "group_append" in features)
