"""``record``: immutable dataclasses whose equality, hash, repr and immutability are shared code.

The compiler's trees (the AST, the IR, the plan) are some 150 frozen dataclasses, and on
Python 3.11 ``@dataclass(frozen=True)`` compiles six methods per class from source text when
its module is imported: about 90 ms of the 0.2 s that ``starc compile`` may take in all
(issue 15). A ``record`` is a dataclass that generates only ``__init__``; its comparison,
hashing, printing and immutability are the same methods of one base class, ``Record``, so a
class costs one compilation instead of six. The meaning is a frozen dataclass's: instances
compare and hash by their fields of ``compare=True``, only instances of the same class compare
equal, the repr lists the fields of ``repr=True``, and assigning or deleting an attribute after
``__init__`` raises ``dataclasses.FrozenInstanceError``. ``dataclasses.fields``, ``replace``
and ``is_dataclass`` work as on any dataclass.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Callable, TypeVar

__all__ = ["Record", "record"]

_T = TypeVar("_T")


def _no_fields(_record: Any) -> tuple:
    return ()


class Record:
    """The shared methods of every ``record`` class."""

    __slots__ = ()

    #: the fields that equality and hashing compare, as one getter (set by ``record``)
    _record_key: Callable[[Any], Any] = staticmethod(_no_fields)
    #: the names ``repr`` shows (set by ``record``)
    _record_shown: tuple = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = self._record_key
        return key(self) == key(other)

    def __hash__(self) -> int:
        return hash(self._record_key(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        # The dataclass __init__ assigns each field once; every later assignment is refused.
        if name in self.__dict__ or name not in self.__dataclass_fields__:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def record(cls: type[_T]) -> type[_T]:
    """Make ``cls`` (a subclass of ``Record``) an immutable dataclass, as
    ``@dataclass(frozen=True)`` would."""
    if not issubclass(cls, Record):
        raise TypeError(f"@record class {cls.__qualname__} must derive from Record")
    cls = dataclasses.dataclass(eq=False, repr=False)(cls)
    fields = dataclasses.fields(cls)
    compared = [f.name for f in fields if f.compare]
    # attrgetter of one name gives the value itself, of several a tuple: either is a key.
    cls._record_key = staticmethod(operator.attrgetter(*compared) if compared else _no_fields)
    cls._record_shown = tuple(f.name for f in fields if f.repr)
    return cls
