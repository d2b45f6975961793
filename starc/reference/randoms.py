"""randSP's numbers (``ir.Random``) in numpy: the same bits as the prelude's starc_random."""

from __future__ import annotations

import numpy as np

__all__ = ["starc_random"]

_U64 = np.uint64
# splitmix64's increment and finaliser multipliers (Steele, Lea and Flood, "Fast splittable
# pseudorandom number generators", 2014); common/templates/device_helpers.mako spells them too.
_GOLDEN, _MIX1, _MIX2 = _U64(0x9E3779B97F4A7C15), _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)


def _mix(z):
    z = z + _GOLDEN
    z = (z ^ (z >> _U64(30))) * _MIX1
    z = (z ^ (z >> _U64(27))) * _MIX2
    return z ^ (z >> _U64(31))


def _bits(value):
    """A signed integer (or array) as its two's-complement uint64, as C's cast gives it."""
    return np.asarray(value, dtype=np.int64).astype(np.uint64)


def starc_random(seed, draw, position, vertex):
    """The int32 value(s) in [0, 2^31) for the given seed, draw, argument position and
    vertex (scalars or arrays, broadcast): splitmix64's finaliser chained over the four."""
    with np.errstate(over="ignore"):
        h = _mix(_bits(seed))
        h = _mix(h ^ _bits(draw))
        h = _mix(h ^ _bits(position))
        h = _mix(h ^ _bits(vertex))
    return (h >> _U64(33)).astype(np.int32)
