"""The shared results format of every backend: formatting, parsing and comparing results.

```
# starc results: <function> backend=<name> graph=<file>
<property> <vertex> <value>     one line per vertex for each propNode parameter, ascending ids
return <value>                  when the function returns a value
```
Integers (``int``, ``long``, ``node``, ``edge``) print exactly, ``float`` with ``%.9g``,
``double`` with ``%.17g``, ``bool`` as ``1``/``0``. NaN prints ``nan`` whatever its sign bit and
infinities ``inf``/``-inf``, exactly as the C++ runtime (``starc_results.hpp``) prints them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

import numpy as np

from starc.ir.types import Scalar, is_floating

__all__ = ["Results", "ResultsFormatError", "format_results", "format_value", "parse_results",
           "compare_results", "numpy_dtype"]

_HEADER = "# starc results: "
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")     # a DSL property name

_DTYPES = {Scalar.BOOL: np.bool_, Scalar.INT: np.int32, Scalar.LONG: np.int64,
           Scalar.FLOAT: np.float32, Scalar.DOUBLE: np.float64, Scalar.NODE: np.int32,
           Scalar.EDGE: np.int32}


def numpy_dtype(scalar: Scalar) -> np.dtype:
    """The numpy dtype holding one element of ``scalar`` (node and edge ids are int32)."""
    return np.dtype(_DTYPES[scalar])


Value = Union[int, float, bool]


@dataclass
class Results:
    """What one run of a program produced; ``props`` keeps the parameter order."""

    function: str
    backend: str
    graph: str
    props: Dict[str, np.ndarray] = field(default_factory=dict)
    prop_types: Dict[str, Scalar] = field(default_factory=dict)
    ret: Optional[Value] = None
    ret_type: Optional[Scalar] = None


class ResultsFormatError(ValueError):
    """Text that is not in the results format; the message names the line."""


def format_value(value, scalar: Optional[Scalar]) -> str:
    """One value as the results format prints a value of type ``scalar``."""
    if scalar is None:
        scalar = _guess_scalar(value)
    if scalar is Scalar.BOOL:
        return "1" if bool(value) else "0"
    if scalar is Scalar.FLOAT:
        return _format_float(float(np.float32(value)), 9)
    if scalar is Scalar.DOUBLE:
        return _format_float(float(value), 17)
    return str(int(value))


def _format_float(value: float, digits: int) -> str:
    if math.isnan(value):
        return "nan"
    return "%.*g" % (digits, value)


def _guess_scalar(value) -> Scalar:
    if isinstance(value, (bool, np.bool_)):
        return Scalar.BOOL
    if isinstance(value, np.floating):
        return Scalar.FLOAT if value.dtype == np.float32 else Scalar.DOUBLE
    if isinstance(value, float):
        return Scalar.DOUBLE
    return Scalar.LONG


def _array_lines(name: str, values: np.ndarray, scalar: Scalar) -> List[str]:
    values = np.asarray(values)
    if scalar is Scalar.BOOL:
        texts = np.where(values.astype(bool), "1", "0").tolist()
    elif is_floating(scalar):
        digits = 9 if scalar is Scalar.FLOAT else 17
        caster = np.float32 if scalar is Scalar.FLOAT else np.float64
        texts = [_format_float(float(v), digits) for v in values.astype(caster).tolist()]
    else:
        texts = [str(v) for v in values.astype(np.int64).tolist()]
    return [f"{name} {vertex} {text}" for vertex, text in enumerate(texts)]


def format_results(results: Results) -> str:
    """The text of ``results`` in the shared format (ends with a newline)."""
    lines = [f"{_HEADER}{results.function} backend={results.backend} graph={results.graph}"]
    for name, values in results.props.items():
        scalar = results.prop_types.get(name) or _guess_scalar(np.asarray(values).dtype.type(0))
        lines.extend(_array_lines(name, values, scalar))
    if results.ret is not None:
        lines.append(f"return {format_value(results.ret, results.ret_type)}")
    return "\n".join(lines) + "\n"


def _parse_value(text: str, scalar: Optional[Scalar], where: str) -> Value:
    try:
        if scalar is None:
            try:
                return int(text)
            except ValueError:
                return float(text)
        if scalar is Scalar.BOOL:
            if text not in ("0", "1"):
                raise ValueError(text)
            return text == "1"
        if is_floating(scalar):
            return float(text)
        return int(text)
    except ValueError:
        kind = "a number" if scalar is None else f"a {scalar} value"
        raise ResultsFormatError(f"{where}: expected {kind}, got {text!r}") from None


def parse_results(text: str, prop_types: Optional[Dict[str, Scalar]] = None,
                  ret_type: Optional[Scalar] = None, source: str = "<results>") -> Results:
    """Parse the results format. Values are read by the declared types when given, otherwise
    as ints where possible and floats otherwise. Vertices must be listed 0, 1, 2, ... per
    property. Raises ResultsFormatError naming ``source`` and the line."""
    prop_types = dict(prop_types or {})
    lines = text.splitlines()
    if not lines or not lines[0].startswith(_HEADER):
        # Quote the line: it is typically a stray message (a compiler or runtime warning)
        # printed on the program's stdout before the results.
        got = f", got {lines[0]!r}" if lines else " (the output is empty)"
        raise ResultsFormatError(f"{source}:1: missing the '{_HEADER.strip()}' header "
                                 f"line{got}")
    head = lines[0][len(_HEADER):].split(" backend=", 1)
    if len(head) != 2 or " graph=" not in head[1]:
        raise ResultsFormatError(f"{source}:1: malformed header {lines[0]!r}")
    backend, graph = head[1].split(" graph=", 1)
    results = Results(function=head[0], backend=backend, graph=graph, ret_type=ret_type)
    columns: Dict[str, list] = {}
    for number, line in enumerate(lines[1:], start=2):
        where = f"{source}:{number}"
        if not line.strip():
            continue
        words = line.split()
        if words[0] == "return" and len(words) == 2:
            if results.ret is not None:
                raise ResultsFormatError(f"{where}: a second 'return' line")
            results.ret = _parse_value(words[1], ret_type, where)
            continue
        if len(words) != 3:
            raise ResultsFormatError(f"{where}: expected '<property> <vertex> <value>', "
                                     f"got {line!r}")
        name, vertex_text, value_text = words
        if not (_NAME.fullmatch(name) and vertex_text.isdigit()):
            # Not '<identifier> <vertex number> <value>': a stray line, never a property.
            raise ResultsFormatError(f"{where}: not a result line: {line!r}")
        column = columns.setdefault(name, [])
        if vertex_text != str(len(column)):
            raise ResultsFormatError(f"{where}: expected vertex {len(column)} of {name!r}, "
                                     f"got {vertex_text!r}")
        column.append(_parse_value(value_text, prop_types.get(name), where))
    for name, column in columns.items():
        scalar = prop_types.get(name)
        if scalar is not None:
            array = np.array(column, dtype=numpy_dtype(scalar))
        elif all(isinstance(v, int) for v in column):
            array = np.array(column, dtype=np.int64)
        else:
            array = np.array(column, dtype=np.float64)
        results.props[name] = array
        if scalar is not None:
            results.prop_types[name] = scalar
    return results


def _is_floating_values(values: np.ndarray, scalar: Optional[Scalar]) -> bool:
    if scalar is not None:
        return is_floating(scalar)
    return np.issubdtype(np.asarray(values).dtype, np.floating)


def _equal_mask(expected: np.ndarray, actual: np.ndarray, floating: bool,
                rtol: float, atol: float, scalar: Optional[Scalar] = None) -> np.ndarray:
    if not floating:
        return expected.astype(np.int64) == actual.astype(np.int64)
    if scalar is Scalar.FLOAT:   # a float printed with %.9g reads back as the same float32
        expected, actual = expected.astype(np.float32), actual.astype(np.float32)
    expected = expected.astype(np.float64)
    actual = actual.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(expected - actual) <= atol + rtol * np.abs(expected)
    both_nan = np.isnan(expected) & np.isnan(actual)
    # inf == inf holds exactly; inf - inf is nan so the tolerance test alone would fail.
    return (expected == actual) | close | both_nan


def compare_results(expected: Results, actual: Results, rtol: float = 0.0, atol: float = 0.0,
                    max_lines: int = 5) -> List[str]:
    """Human-readable differences (empty when the results agree). Integer and bool values
    must match exactly; floating ones within ``atol + rtol * |expected|``, with inf == inf and
    NaN == NaN. At most ``max_lines`` differing vertices are listed per property."""
    problems: List[str] = []
    if expected.function != actual.function:
        problems.append(f"function: expected {expected.function}, got {actual.function}")
    for name, want in expected.props.items():
        if name not in actual.props:
            problems.append(f"property {name!r} missing")
            continue
        want = np.asarray(want)
        got = np.asarray(actual.props[name])
        if want.shape != got.shape:
            problems.append(f"property {name!r}: expected {want.size} vertices, got {got.size}")
            continue
        scalar = expected.prop_types.get(name) or actual.prop_types.get(name)
        floating = _is_floating_values(want, scalar) or _is_floating_values(got, scalar)
        bad = np.flatnonzero(~_equal_mask(want, got, floating, rtol, atol, scalar))
        for vertex in bad[:max_lines].tolist():
            problems.append(f"{name}[{vertex}]: expected {format_value(want[vertex], scalar)}, "
                            f"got {format_value(got[vertex], scalar)}")
        if bad.size > max_lines:
            problems.append(f"{name}: {bad.size - max_lines} more vertices differ "
                            f"({bad.size} of {want.size})")
    for name in actual.props:
        if name not in expected.props:
            problems.append(f"unexpected property {name!r}")
    if (expected.ret is None) != (actual.ret is None):
        problems.append(f"return: expected {expected.ret!r}, got {actual.ret!r}")
    elif expected.ret is not None:
        scalar = expected.ret_type or actual.ret_type
        floating = (scalar is not None and is_floating(scalar)) or isinstance(
            expected.ret, float) or isinstance(actual.ret, float)
        if not _equal_mask(np.array([expected.ret]), np.array([actual.ret]),
                           floating, rtol, atol, scalar)[0]:
            problems.append(f"return: expected {format_value(expected.ret, scalar)}, "
                            f"got {format_value(actual.ret, scalar)}")
    return problems
