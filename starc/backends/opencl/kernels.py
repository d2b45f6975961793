"""OpenCL C 1.2 kernels from a plan: the dialect table, kernel shells and the ``.cl`` file."""

from __future__ import annotations

import dataclasses
import pathlib
from typing import List, Optional, Sequence, Set

from starc.backends.common.cfamily import (INDENT, Dialect, KernelArg, KernelCode,
                                           lower_kernel)
from starc.ir.types import Scalar

__all__ = ["OpenCLDialect", "KernelFile", "render_kernels", "PRELUDE_PATH",
           "required_extensions"]

PRELUDE_PATH = pathlib.Path(__file__).resolve().parent / "runtime" / "starc_opencl.cl"

_INT, _LONG, _FLOAT, _DOUBLE = Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE


class OpenCLDialect(Dialect):
    """OpenCL C 1.2: ``long`` is 64-bit, bool arrays are ``uchar``, float atomics are
    compare-and-swap loops in the prelude, 64-bit atomics need the ``cl_khr_int64_*``
    extensions (checked by the host at start-up)."""

    name = "opencl"
    scalar_types = {Scalar.BOOL: "bool", _INT: "int", _LONG: "long", _FLOAT: "float",
                    _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    storage_types = {Scalar.BOOL: "uchar", _INT: "int", _LONG: "long", _FLOAT: "float",
                     _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    inf_values = {_INT: ("INT_MAX", "INT_MIN"), Scalar.NODE: ("INT_MAX", "INT_MIN"),
                  Scalar.EDGE: ("INT_MAX", "INT_MIN"), _LONG: ("LONG_MAX", "LONG_MIN"),
                  _FLOAT: ("FLT_MAX", "-FLT_MAX"), _DOUBLE: ("DBL_MAX", "-DBL_MAX")}
    long_suffix = "L"
    atomics = frozenset(
        [(op, t) for op in ("add", "sub", "mul", "and", "or", "min", "max")
         for t in (_INT, _LONG)]
        + [(op, t) for op in ("add", "sub", "mul", "min", "max") for t in (_FLOAT, _DOUBLE)])
    minmax_functions = {(f, t): f.lower() for f in ("Min", "Max")
                        for t in (_INT, _LONG, _FLOAT, _DOUBLE, Scalar.NODE, Scalar.EDGE)}
    reserved = Dialect.reserved | frozenset("""
        kernel __kernel global __global local __local constant __constant private __private
        read_only write_only image2d_t image3d_t sampler_t event_t half uchar ushort uint ulong
        size_t ptrdiff_t get_global_id get_local_id barrier mem_fence atomic_add atomic_min
        atomic_max atomic_cmpxchg as_int as_float as_long as_double fmin fmax
    """.split())


def required_extensions(features: Set[str]) -> List[str]:
    """The device extensions the kernels' features need, in a fixed order."""
    atomics = [f.split("_")[1:] for f in features if f.startswith("atomic_")]
    long_ops = {op for op, elem in atomics if elem == "long"}
    needed = []
    if "double" in features:
        needed.append("cl_khr_fp64")
    if long_ops & {"add", "sub", "mul"} or any(elem == "double" for _, elem in atomics):
        needed.append("cl_khr_int64_base_atomics")    # double atomics CAS on the long bits
    if long_ops & {"min", "max", "and", "or"}:
        needed.append("cl_khr_int64_extended_atomics")
    return needed


_DEFINES = {"cl_khr_fp64": "STARC_FP64",
            "cl_khr_int64_base_atomics": "STARC_INT64_BASE_ATOMICS",
            "cl_khr_int64_extended_atomics": "STARC_INT64_EXTENDED_ATOMICS"}


@dataclasses.dataclass
class KernelFile:
    """The printed kernels and what the host needs to know about them."""

    kernels: List[KernelCode]
    text: str                      # every kernel, ready to follow the prelude
    defines: List[str]             # STARC_* macros to define before the prelude
    extensions: List[str]          # device extensions the kernels need


def _signature(arg: KernelArg, dialect: OpenCLDialect) -> str:
    if arg.is_array:
        const = "" if arg.written else "const "
        return f"__global {const}{dialect.storage_type(arg.elem)} *{arg.name}"
    return f"{dialect.storage_type(arg.elem)} {arg.name}"


def _shell(code: KernelCode, dialect: OpenCLDialect) -> List[str]:
    params = [_signature(a, dialect) for a in code.args]
    head = f"__kernel void {code.name}("
    # Wrap long parameter lists one per line, aligned under the first.
    if len(head) + sum(len(p) + 2 for p in params) > 96:
        pad = " " * len(head)
        sig = head + (",\n" + pad).join(params) + ")"
    else:
        sig = head + ", ".join(params) + ")"
    lines = ([code.comment] if code.comment else []) + [sig + " {"]
    if code.extent == "single":
        if code.index is not None:
            lines.append(f"{INDENT}int {code.index} = 0;")
    else:
        bound = "n" if code.extent == "nodes" else "m"
        lines += [f"{INDENT}int {code.index} = get_global_id(0);",
                  f"{INDENT}if ({code.index} >= {bound}) return;"]
    return lines + code.body + ["}"]


def render_kernels(kernels: Sequence, dialect: Optional[OpenCLDialect] = None) -> KernelFile:
    """Print every plan kernel as an OpenCL ``__kernel``."""
    dialect = dialect or OpenCLDialect()
    codes = [lower_kernel(k, dialect) for k in kernels]
    features: Set[str] = set()
    for code in codes:
        features |= code.features
        if any(a.elem is Scalar.DOUBLE for a in code.args):
            features.add("double")
    extensions = required_extensions(features)
    text = "\n\n".join("\n".join(_shell(code, dialect)) for code in codes)
    return KernelFile(codes, text, [_DEFINES[e] for e in extensions], extensions)


def prelude() -> str:
    return PRELUDE_PATH.read_text()
