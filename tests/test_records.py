"""``starc.records.record`` behaves as ``@dataclass(frozen=True)``: the same equality, hash,
repr and immutability, checked side by side on twin classes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from starc.records import Record, record


@record
class Point(Record):
    x: int
    y: int = 0
    note: str = field(default="", compare=False, repr=False)


@record
class Point3(Point):
    z: int = 0


@record
class Empty(Record):
    pass


@dataclass(frozen=True)
class FrozenPoint:
    x: int
    y: int = 0
    note: str = field(default="", compare=False, repr=False)


def test_equality_and_hash_follow_the_compared_fields():
    assert Point(1, 2) == Point(1, 2, note="ignored")
    assert hash(Point(1, 2)) == hash(Point(1, 2, note="other"))
    assert Point(1, 2) != Point(2, 1)
    assert len({Point(1), Point(1, 0), Point(2)}) == 2
    assert Empty() == Empty() and hash(Empty()) == hash(Empty())


def test_only_the_same_class_compares_equal():
    assert Point3(1, 2, z=0) != Point(1, 2)
    assert Point(1, 2) != FrozenPoint(1, 2)
    assert Point(1, 2) != (1, 2)


def test_repr_is_the_dataclass_repr():
    assert repr(Point(1, 2, note="n")) == repr(FrozenPoint(1, 2, note="n")).replace(
        "FrozenPoint", "Point")
    assert repr(Point3(1, z=3)) == "Point3(x=1, y=0, z=3)"
    assert repr(Empty()) == "Empty()"


@pytest.mark.parametrize("make", [lambda: Point(1, 2), lambda: FrozenPoint(1, 2)])
def test_fields_cannot_be_assigned_or_deleted(make):
    point = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.other = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x
    assert point.x == 1


def test_dataclass_functions_work():
    point = Point3(1, 2, z=3)
    assert dataclasses.is_dataclass(point)
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "note", "z"]
    assert dataclasses.replace(point, y=5) == Point3(1, 5, z=3)
    assert dataclasses.astuple(point) == (1, 2, "", 3)


def test_a_record_must_derive_from_record():
    with pytest.raises(TypeError, match="must derive from Record"):
        @record
        class Plain:
            x: int
