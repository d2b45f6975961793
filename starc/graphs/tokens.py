"""Vectorised tokenising of text graph pieces: tokens per line; all-integer pieces parsed in C."""

from __future__ import annotations

import warnings
from typing import Optional, Tuple

import numpy as np

__all__ = ["scan_piece", "parse_integers"]

# Values this large may have been clamped by the C parser: the slow path decides.
_SAFE_MAGNITUDE = 10**18


def scan_piece(data: bytes) -> Tuple[np.ndarray, bool]:
    """(tokens on each ``\\n``-separated line, every token is ``[+-]digits``).

    Whitespace is exactly what ``bytes.split()`` splits on, so the counts agree with the
    line-by-line scan. Elementwise comparisons only (a table lookup would index with a
    64-bit copy of the piece): token starts and newlines become one event list, and the
    tokens of a line are the events between its newline and the previous one.
    """
    buffer = np.frombuffer(data, dtype=np.uint8)
    space = (buffer == 32) | ((buffer - np.uint8(9)) < 5)       # \t \n \v \f \r and ' '
    starts = ~space
    starts[1:] &= space[:-1]
    events = np.flatnonzero(starts | (buffer == 10))
    newlines = np.flatnonzero(buffer[events] == 10)
    counts = np.diff(newlines, prepend=-1, append=events.size) - 1
    del events, newlines
    sign = (buffer == 43) | (buffer == 45)
    digit = (buffer - np.uint8(48)) < 10
    # Only digits, and signs that start a token and precede a digit: the C parser reads
    # "5-3" as two numbers, a lone "+" at the end as 0 and "- 1" as -1.
    sign &= starts
    sign[:-1] &= digit[1:]
    sign[-1:] = False
    integers = bool(np.all(space | digit | sign))
    return counts, integers


def parse_integers(data: bytes, tokens: int) -> Optional[np.ndarray]:
    """The ``tokens`` integers of a piece that ``scan_piece`` found all-integer, as int64,
    or None when numpy's C parser disagrees (a lone sign, a value too large)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # a partial parse only warns
        try:
            values = np.fromstring(data, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if values.size != tokens:
        return None
    if values.size and (values.max() >= _SAFE_MAGNITUDE or values.min() <= -_SAFE_MAGNITUDE):
        return None
    return values
