"""Generic traversal of frozen-dataclass trees, shared by the syntax tree and the typed IR."""

from __future__ import annotations

import dataclasses
from typing import Iterator, Tuple, Type

__all__ = ["child_nodes"]


def child_nodes(node, base: Type, skip: Tuple[str, ...]) -> Iterator:
    """The direct children of ``node`` that are ``base`` instances, in field order, with
    tuples (including pairs) flattened; fields named in ``skip`` are not looked at."""
    for f in dataclasses.fields(node):
        if f.name not in skip:
            yield from _instances(getattr(node, f.name), base)


def _instances(value, base: Type) -> Iterator:
    if isinstance(value, base):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _instances(item, base)
