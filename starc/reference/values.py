"""C semantics of scalar values for the reference executor: wraparound, float32, INF, casts.

Scalars live as Python values: ``int`` for int/long/node/edge (kept in range by wrapping after
every operation), ``float`` for float/double (a ``float`` value is always exactly representable
in float32: results are rounded after every operation, which for + - * / gives exactly the
IEEE single-precision result) and ``bool``. Properties are numpy arrays of ``numpy_dtype``.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from starc.diagnostics import NO_LOC, SourceLoc
from starc.ir.types import Scalar
from starc.results import numpy_dtype

__all__ = ["ExecutionError", "INT_MIN", "INT_MAX", "LONG_MIN", "LONG_MAX", "FLT_MAX",
           "DBL_MAX", "inf_value", "zero_value", "wrap_int", "wrap_long", "to_float32",
           "normalizer", "cast_value", "numpy_dtype", "c_div", "c_mod", "float_div"]

INT_MIN, INT_MAX = -2**31, 2**31 - 1
LONG_MIN, LONG_MAX = -2**63, 2**63 - 1
FLT_MAX = float(np.finfo(np.float32).max)
DBL_MAX = sys.float_info.max


class ExecutionError(Exception):
    """A run-time error of the program (integer division by zero, a vertex id out of range);
    ``loc`` is the DSL construct that failed."""

    def __init__(self, message: str, loc: SourceLoc = NO_LOC) -> None:
        self.message = message
        self.loc = loc
        where = f"{loc}: " if loc is not NO_LOC and loc.line > 0 else ""
        super().__init__(f"{where}runtime error: {message}")


def wrap_int(value: int) -> int:
    """Two's-complement wraparound to 32 bits (C ``int``)."""
    if INT_MIN <= value <= INT_MAX:
        return value
    return ((value + 2**31) & 0xFFFFFFFF) - 2**31


def wrap_long(value: int) -> int:
    """Two's-complement wraparound to 64 bits (C ``long long``)."""
    if LONG_MIN <= value <= LONG_MAX:
        return value
    return ((value + 2**63) & 0xFFFFFFFFFFFFFFFF) - 2**63


_F32 = np.float32


def to_float32(value: float) -> float:
    """The float32 nearest to ``value`` (overflow gives +-inf), as a Python float."""
    with np.errstate(over="ignore"):
        return float(_F32(value))


def _identity(value):
    return value


def normalizer(scalar: Scalar):
    """The function bringing an exact arithmetic result into ``scalar``'s range."""
    if scalar in (Scalar.INT, Scalar.NODE, Scalar.EDGE):
        return wrap_int
    if scalar is Scalar.LONG:
        return wrap_long
    if scalar is Scalar.FLOAT:
        return to_float32
    if scalar is Scalar.BOOL:
        return bool
    return float if scalar is Scalar.DOUBLE else _identity


def inf_value(scalar: Scalar, negative: bool = False):
    """``INF`` / ``-INF`` of a type: its largest / lowest value (``-INF`` of float is
    ``-FLT_MAX``, never the smallest positive float; of int it is ``INT_MIN``)."""
    if scalar in (Scalar.INT, Scalar.NODE, Scalar.EDGE):
        return INT_MIN if negative else INT_MAX
    if scalar is Scalar.LONG:
        return LONG_MIN if negative else LONG_MAX
    if scalar is Scalar.FLOAT:
        return -FLT_MAX if negative else FLT_MAX
    if scalar is Scalar.DOUBLE:
        return -DBL_MAX if negative else DBL_MAX
    return not negative  # bool


def zero_value(scalar: Scalar):
    if scalar is Scalar.BOOL:
        return False
    if scalar in (Scalar.FLOAT, Scalar.DOUBLE):
        return 0.0
    return 0


def _float_to_int(value: float, low: int, high: int) -> int:
    # C leaves out-of-range conversions undefined; x86's cvtt* instructions give the
    # "integer indefinite" value (the lowest integer), which numpy's astype also gives.
    if math.isnan(value) or math.isinf(value):
        return low
    result = int(value)  # truncation toward zero
    return result if low <= result <= high else low


def cast_value(value, source: Scalar, target: Scalar):
    """C conversion of a Python scalar of type ``source`` to ``target``."""
    if target is Scalar.BOOL:
        return value != 0
    if target in (Scalar.FLOAT, Scalar.DOUBLE):
        if source is Scalar.LONG and target is Scalar.FLOAT:
            return float(np.int64(value).astype(np.float32))  # one rounding, as C does
        result = float(value)
        return to_float32(result) if target is Scalar.FLOAT else result
    # an integer target
    if source in (Scalar.FLOAT, Scalar.DOUBLE):
        if target is Scalar.LONG:
            return _float_to_int(value, LONG_MIN, LONG_MAX)
        return _float_to_int(value, INT_MIN, INT_MAX)
    value = int(value)
    return wrap_long(value) if target is Scalar.LONG else wrap_int(value)


def c_div(a: int, b: int) -> int:
    """C integer division (truncation toward zero); the caller checks ``b != 0``."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a: int, b: int) -> int:
    """C ``%``: the remainder has the dividend's sign; the caller checks ``b != 0``."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def float_div(a: float, b: float) -> float:
    """IEEE division (Python raises on division by zero; C gives inf or nan)."""
    try:
        return a / b
    except ZeroDivisionError:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.float64(a) / np.float64(b))
