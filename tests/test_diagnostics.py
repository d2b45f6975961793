"""Internal errors are located by the visitors' own bookkeeping (``tracks_construct``)."""

from __future__ import annotations

import dataclasses
from typing import Tuple

import pytest

from starc.diagnostics import (NO_LOC, DiagnosticSink, SourceLoc, construct_of,
                               report_internal_error, tracks_construct)


@dataclasses.dataclass
class Node:
    name: str
    children: Tuple["Node", ...] = ()
    loc: SourceLoc = NO_LOC


def at(line: int) -> SourceLoc:
    return SourceLoc("t.sp", line, 3)


class Visitor:
    def __init__(self, failing: str, error=ZeroDivisionError) -> None:
        self.failing = failing
        self.error = error

    @tracks_construct
    def visit(self, node: Node, depth: int) -> None:
        if node.name == self.failing:
            raise self.error("boom")
        for child in node.children:
            self.visit(child, depth + 1)


def failure(tree: Node, failing: str) -> Exception:
    with pytest.raises(Exception) as info:
        Visitor(failing).visit(tree, 0)
    return info.value


def test_the_innermost_located_construct_is_named():
    leaf = Node("leaf", loc=at(3))
    tree = Node("root", (Node("middle", (leaf,), at(2)),), at(1))
    assert construct_of(failure(tree, "leaf")) is leaf


def test_a_construct_without_location_defers_to_the_enclosing_one():
    middle = Node("middle", (Node("leaf"),), at(2))
    tree = Node("root", (middle,), at(1))
    assert construct_of(failure(tree, "leaf")) is middle


def test_an_error_raised_while_handling_another_keeps_the_inner_construct():
    leaf = Node("leaf", loc=at(3))

    class Converting(Visitor):
        @tracks_construct
        def outer(self, node: Node) -> None:
            try:
                self.visit(node.children[0], 1)
            except ZeroDivisionError:
                raise ValueError("converted")

    with pytest.raises(ValueError) as info:
        Converting("leaf").outer(Node("root", (leaf,), at(1)))
    assert construct_of(info.value) is leaf


def test_the_report_names_construct_stage_and_location():
    leaf = Node("leaf", loc=at(3))
    sink = DiagnosticSink()
    diag = report_internal_error(sink, "plan", failure(Node("root", (leaf,), at(1)), "leaf"))
    assert (diag.code, diag.loc) == ("E0901", at(3))
    assert diag.message == ("internal compiler error in plan while processing Node: "
                            "ZeroDivisionError: boom")
    unlocated = report_internal_error(sink, "parse", KeyError("k"))
    assert unlocated.loc is NO_LOC
    assert unlocated.message == "internal compiler error in parse: KeyError: 'k'"


def test_only_fixed_arity_visitors_are_tracked():
    with pytest.raises(TypeError, match="tracked visitor takes"):
        tracks_construct(lambda self, node, a, b: None)
