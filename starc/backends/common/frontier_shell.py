"""The body of a worklist round split by edges (``KernelCode.frontier``), shared by OpenCL and CUDA.

One work item per worklist entry, in whole work-groups (no item returns early: the group meets
at barriers). Each item reads its entry's vertex and its work (the degrees of its loops; 0 where
the entry's test fails or the item is past the worklist); an inclusive prefix sum in local
memory (Hillis-Steele: a barrier before and after each step's store) gives each entry's end
among the group's edges. The group then walks its edges a group at a time: the item of edge
``e`` finds the first entry whose end passes ``e`` by a binary search, takes that entry's vertex
from local memory and runs the iteration of the entry's loop that ``e`` falls in (its loops one
after the other). (``analysis.frontier_edges``.)
"""

from __future__ import annotations

import re
from typing import List

from starc.backends.common.binned_shell import GroupSyntax, LocalArray
from starc.backends.common.dialect import INDENT
from starc.backends.common.kernel_arguments import BOUNDS, KernelCode
from starc.backends.common.sourcemap import mark_with

__all__ = ["frontier_body", "frontier_locals"]

#: the local memory of a split worklist round: each lane's entry and the prefix sums of the work
FRONTIER_LOCALS = (LocalArray("int", "starc_entry"), LocalArray("int", "starc_ends"))


def frontier_locals(code: KernelCode) -> List[LocalArray]:
    """The local memory of ``code``'s split worklist round (``FRONTIER_LOCALS``)."""
    return list(FRONTIER_LOCALS)


def _indented(lines: List[str], levels: int) -> List[str]:
    return [INDENT * levels + line if line.strip() else line for line in lines]


def frontier_body(code: KernelCode, syntax: GroupSyntax) -> List[str]:
    """The lines inside the kernel's braces (see the module docstring)."""
    split, index, barrier = code.frontier, code.index, syntax.barrier
    bound, vertex = BOUNDS[code.extent], split.vertex
    work = " + ".join(f"({loop.degree})" for loop in split.loops)
    has_work = [f"starc_work = {work};"]
    if split.window:        # an entry past its priority window is deferred whole, no work
        has_work = [f"if ({split.window}) {{"] + _indented(has_work, 1) + ["} else {"] + \
            _indented(split.deferred, 1) + ["}"]
    if split.test:
        has_work = [f"if ({split.test}) {{"] + _indented(has_work, 1) + ["}"]
    entry = split.entry + has_work + [f"starc_entry[starc_lane] = {vertex};"] + split.after
    lines = [line for local in frontier_locals(code) for line in syntax.declare(local)]
    lines += [f"const int {index} = {syntax.vertex};",
             f"const int starc_lane = {syntax.lane};",
             f"const int starc_lanes = {syntax.lanes};",
             "int starc_work = 0;"]
    # (the setup, a work-group's staged appends among it, before the entries: a deferred
    # entry appends itself)
    lines = _indented(lines, 1) + code.setup + _indented(
        [f"if ({index} < {bound}) {{"] + _indented(entry, 1) + ["}"], 1)
    lines += _indented([
        "starc_ends[starc_lane] = starc_work;",
        barrier,
        # each step reads its neighbour's sum before anyone stores the new ones
        "for (int starc_offset = 1; starc_offset < starc_lanes; starc_offset *= 2) {",
        f"{INDENT}const int starc_add = starc_lane >= starc_offset ? "
        "starc_ends[starc_lane - starc_offset] : 0;",
        f"{INDENT}{barrier}",
        f"{INDENT}starc_ends[starc_lane] += starc_add;",
        f"{INDENT}{barrier}",
        "}",
        "const int starc_total = starc_ends[starc_lanes - 1];",
        "for (int starc_base = 0; starc_base < starc_total; starc_base += starc_lanes) {",
        f"{INDENT}const int starc_edge = starc_base + starc_lane;",
        f"{INDENT}if (starc_edge < starc_total) {{"] + _indented(_edge(code), 2) + [
        f"{INDENT}}}",
        "}"], 1)
    return mark_with(lines, code.marker) + code.finish


def _edge(code: KernelCode) -> List[str]:
    """The lines of one edge ``starc_edge``: its entry, its loop, the loop's iteration."""
    split = code.frontier
    lines = ["int starc_low = 0;",      # the first entry whose end passes the edge
             "int starc_high = starc_lanes - 1;",
             "while (starc_low < starc_high) {",
             f"{INDENT}const int starc_middle = (starc_low + starc_high) / 2;",
             f"{INDENT}if (starc_ends[starc_middle] > starc_edge) starc_high = starc_middle;",
             f"{INDENT}else starc_low = starc_middle + 1;",
             "}",
             f"const int {split.vertex} = starc_entry[starc_low];",
             "int starc_step = starc_edge - (starc_low > 0 ? starc_ends[starc_low - 1] : 0);"]
    chain: List[str] = []
    for number, loop in enumerate(split.loops):
        last = number == len(split.loops) - 1
        iteration = loop.binding + loop.body
        if any(re.search(rf"\b{re.escape(loop.position)}\b", line) for line in iteration):
            iteration = [f"const int {loop.position} = {loop.begin} + starc_step;"] + iteration
        if last:
            block = iteration
        else:
            block = [f"if (starc_step < {loop.degree}) {{"] + _indented(iteration, 1) + \
                ["} else {", f"{INDENT}starc_step -= {loop.degree};"]
        chain += _indented(block, number)
    chain += [INDENT * (n - 1) + "}" for n in range(len(split.loops) - 1, 0, -1)]
    return lines + chain
