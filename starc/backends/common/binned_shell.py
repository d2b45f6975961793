"""The body of a binned kernel (``KernelCode.cooperative``), shared by the OpenCL and CUDA shells.

One work item per vertex, in whole work-groups (no item returns early: the group meets at
barriers); item i takes the i-th vertex of the kernel's binned order (the light vertices
sorted by degree: ``plan.CooperativeLoop.order``). A light vertex runs the forall's body on
its own item. A vertex whose degree is at
least the work-group's size goes to the group's list in local memory; after a barrier the
group runs each listed vertex together: every lane takes every ``starc_lanes``-th edge into
its own accumulator, a tree in local memory combines the lanes' values (any group size), and
the first lane finishes the vertex. Where the target has lockstep sub-groups (CUDA's warps),
a vertex of middling degree (``CooperativeCode.warp_from`` up to ``group_from`` times the
group's size) goes to its warp instead, which combines with shuffles.
"""

from __future__ import annotations

import dataclasses
import re
from typing import List, Optional

from starc.backends.common.dialect import INDENT
from starc.backends.common.kernel_arguments import BOUNDS, KernelCode, StepCode
from starc.backends.common.sourcemap import mark_with

__all__ = ["GroupSyntax", "WarpSyntax", "LocalArray", "binned_body", "binned_locals",
           "group_tree", "MAX_GROUP"]

#: the largest work-group (``--block-size`` allows up to 1024): sizes the local arrays, whose
#: size the kernel languages need at compile time
MAX_GROUP = 1024


@dataclasses.dataclass(frozen=True)
class WarpSyntax:
    """A target's lockstep sub-groups: their width, the mask of a whole one, the ballot of a
    condition, and the shuffles (``{0}`` the value, ``{1}`` the lane or offset)."""

    width: int
    ballot: str           # "__ballot_sync(0xffffffffu, {0})"
    first_lane: str       # "__ffs({0}) - 1"
    broadcast: str        # "__shfl_sync(0xffffffffu, {0}, {1})"
    down: str             # "__shfl_down_sync(0xffffffffu, {0}, {1})"


@dataclasses.dataclass(frozen=True)
class LocalArray:
    """A work-group's local memory: ``name`` of C type ``type``, one element per lane (sized
    for the largest group where the kernel language needs the size at compile time) or one
    value, or ``extent`` elements (a macro's count: a work-group's staged queue)."""

    type: str
    name: str
    per_lane: bool = True
    extent: str = ""


@dataclasses.dataclass(frozen=True)
class GroupSyntax:
    """How a kernel language says what a binned kernel needs of its work-group."""

    local: str            # the qualifier of a work-group's shared array ("__local")
    barrier: str          # "barrier(CLK_LOCAL_MEM_FENCE);"
    lane: str             # the item's index in its group
    lanes: str            # the group's size
    vertex: str           # the item's global index
    append: str           # the old value of the list's count, atomically incremented
    warp: Optional[WarpSyntax] = None
    #: the statement lowering a local int to a value ({0} the int, {1} the value): a search's
    #: first lane that found an edge
    local_min: str = ""   # "atomic_min(&{0}, {1});"
    #: where the launch, not the kernel, makes local memory (SYCL's local_accessor, made in
    #: the command group): how the kernel binds a one-value local ({type}, {name}); a per-lane
    #: one it uses by name. "": the kernel declares its locals, qualified by ``local``
    bind_local: str = ""
    #: the smaller of two ints ({0}, {1})
    minimum: str = "min({0}, {1})"

    def declare(self, local: LocalArray) -> List[str]:
        """The kernel's lines (depth 0) that declare ``local``."""
        if self.bind_local:
            return [] if local.per_lane or local.extent else \
                [self.bind_local.format(type=local.type, name=local.name)]
        extent = f"[{local.extent}]" if local.extent else f"[{MAX_GROUP}]" if local.per_lane else ""
        return [f"{self.local} {local.type} {local.name}{extent};"]


def _indented(lines: List[str], levels: int) -> List[str]:
    return [INDENT * levels + line if line.strip() else line for line in lines]


def _holds(skip: str) -> str:
    """The condition under which an item runs, from ``KernelCode.guard`` (when it skips):
    ``!(c)`` gives ``c``."""
    depth = 0
    if skip.startswith("!(") and skip.endswith(")"):
        for position, char in enumerate(skip[1:], 1):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                return skip[2:-1] if position == len(skip) - 1 else f"!({skip})"
    return f"!({skip})"


def binned_body(code: KernelCode, syntax: GroupSyntax) -> List[str]:
    """The lines inside the kernel's braces (see the module docstring)."""
    heavy, warp = code.cooperative, syntax.warp
    bound, index, m = BOUNDS[code.extent], code.index, code.marker
    i1, i2, i3 = (INDENT * k for k in range(1, 4))
    acc = heavy.accumulator
    lines = [INDENT + line for local in binned_locals(code)
             for line in syntax.declare(local)]
    lines += [*_vertex_lines(code, syntax),
             f"{i1}const int starc_group_lane = {syntax.lane};",
             f"{i1}const int starc_group_size = {syntax.lanes};"]
    if warp is not None:
        # the warp tier runs only in groups of whole warps, at least two: a ballot or shuffle
        # over a partial warp with the whole mask is undefined (--block-size 48)
        lines.append(f"{i1}const bool starc_warps = starc_group_size > {warp.width} && "
                     f"starc_group_size % {warp.width} == 0;")
    group_from = "starc_group_size"
    if heavy.group_from > 1:      # (only where a warp tier takes the lighter ones)
        group_from = "starc_group_from"
        lines.append(f"{i1}const int starc_group_from = starc_warps ? "
                     f"{heavy.group_from} * starc_group_size : starc_group_size;")
    lines += [f"{i1}if (starc_group_lane == 0) starc_heavy_count = 0;",
              f"{i1}{syntax.barrier}"]
    lines += code.setup
    if warp is not None:
        lines.append(f"{i1}bool starc_for_warp = false;")
    # The guard is evaluated by the vertex's own item only: the group must agree on the list.
    bins = [f"if ({heavy.degree} >= {group_from}) {{",
            f"{INDENT}starc_heavy[{syntax.append}] = {index};"]
    if warp is not None:
        # (a group of one warp or less, or of a partial warp, takes such a vertex whole)
        bins += [f"}} else if (starc_warps && {heavy.degree} >= {heavy.warp_from}) {{",
                 f"{INDENT}starc_for_warp = true;"]
    bins += ["} else {"] + _indented(code.item, 0) + ["}"]
    if code.guard is not None:
        bins = [f"if ({_holds(code.guard)}) {{"] + _indented(bins, 1) + ["}"]
    lines += [f"{i1}if (starc_vertex < {bound}) {{",
              f"{i2}const int {index} = starc_vertex;"]
    lines += _indented(bins, 2) + [f"{i1}}}"]
    if warp is not None:
        lines += _warp_tier(code, warp)
    lines += [f"{i1}{syntax.barrier}",
              f"{i1}for (int starc_next = 0; starc_next < starc_heavy_count; starc_next++) {{",
              f"{i2}const int starc_lane = starc_group_lane;",
              f"{i2}const int starc_lanes = starc_group_size;",
              f"{i2}const int {index} = starc_heavy[starc_next];"]
    if heavy.steps:
        # (each step ends where every lane may go on: the next vertex's steps reuse the arrays)
        lines += _indented(_steps(heavy.steps, _GroupTier(syntax)), 2) + [f"{i1}}}"]
        return mark_with(lines, m) + code.finish
    lines += _indented(heavy.shared, 1)
    lines += _indented(group_tree(syntax, "starc_partial", acc, heavy.combine), 2)
    lines += [f"{i2}if (starc_lane == 0) {{",
              f"{i3}{acc} = starc_partial[0];"]
    lines += _indented(heavy.rest, 2)
    # the list's next vertex overwrites starc_partial only after every lane read the tree
    lines += [f"{i2}}}", f"{i1}}}"]
    # every line of the shell implements the forall (bins, lists, trees): map it there
    return mark_with(lines, m) + code.finish


def group_tree(syntax: GroupSyntax, partial: str, value: str, combine: str) -> List[str]:
    """The lines (depth 0) that combine every lane's ``value`` into ``partial[0]`` by a tree in
    the local array ``partial``, on every lane of the group (``starc_lane`` of
    ``starc_lanes``): any group size, the live part halving each step, [half, width) into
    [0, ..). ``combine`` is the operator's text, ``{0}`` and ``{1}`` its operands."""
    barrier = syntax.barrier
    combined = combine.format(f"{partial}[starc_lane]", f"{partial}[starc_lane + starc_half]")
    return [f"{partial}[starc_lane] = {value};", barrier,
            "for (int starc_width = starc_lanes; starc_width > 1; ) {",
            f"{INDENT}const int starc_half = (starc_width + 1) / 2;",
            f"{INDENT}if (starc_lane + starc_half < starc_width) {{",
            f"{INDENT * 2}{partial}[starc_lane] = {combined};", f"{INDENT}}}",
            f"{INDENT}{barrier}", f"{INDENT}starc_width = starc_half;", "}"]


def binned_locals(code: KernelCode) -> List[LocalArray]:
    """The local memory of ``code``'s binned kernel: the fold tree's lanes, a search's first
    lane, a branch's shared test, the heavy vertices' list and its count."""
    heavy = code.cooperative
    kinds = {step.kind for step in _flat(heavy.steps)}
    locals_ = [LocalArray(heavy.type, "starc_partial")] \
        if not heavy.steps or "fold" in kinds else []
    locals_ += [LocalArray("int", f"starc_{name}", False) for name, kind in
                (("first", "search"), ("branch", "branch")) if kind in kinds]
    return locals_ + [LocalArray("int", "starc_heavy"),
                      LocalArray("int", "starc_heavy_count", False)]


def _vertex_lines(code: KernelCode, syntax: GroupSyntax) -> List[str]:
    """``starc_vertex``: the vertex the item takes, its own id or its entry of the binned
    order (the bound where it has none)."""
    if not code.cooperative.order:
        return [f"{INDENT}const int starc_vertex = {syntax.vertex};"]
    bound = BOUNDS[code.extent]
    return [f"{INDENT}const int starc_item = {syntax.vertex};",
            f"{INDENT}const int starc_vertex = starc_item < {bound} ? "
            f"{code.cooperative.order}[starc_item] : {bound};"]


def _warp_tier(code: KernelCode, warp: WarpSyntax) -> List[str]:
    """Each warp runs the vertices its lanes marked, one after the other: the warp's lanes
    share the edges and fold their values down to lane 0 with shuffles. Only in groups of
    whole warps, more than one (``starc_warps``; a smaller group takes such vertices whole),
    so that every warp is full and its whole mask is right."""
    heavy, index = code.cooperative, code.index
    i1, i2, i3, i4 = (INDENT * k for k in range(1, 5))
    acc = heavy.accumulator
    down = heavy.combine.format(acc, warp.down.format(acc, "starc_offset"))
    lines = [f"{i1}if (starc_warps) {{",
             f"{i2}const int starc_lane = starc_group_lane % {warp.width};",
             f"{i2}const int starc_lanes = {warp.width};",
             f"{i2}unsigned starc_marked = {warp.ballot.format('starc_for_warp')};",
             f"{i2}while (starc_marked != 0) {{",
             f"{i3}const int starc_owner = {warp.first_lane.format('starc_marked')};",
             f"{i3}starc_marked &= starc_marked - 1;",
             f"{i3}const int {index} = {warp.broadcast.format('starc_vertex', 'starc_owner')};"]
    if heavy.steps:
        lines += _indented(_steps(heavy.steps, _WarpTier(warp)), 3)
        return lines + [f"{i2}}}", f"{i1}}}"]
    lines += _indented(heavy.shared, 2)
    lines += [f"{i3}for (int starc_offset = {warp.width // 2}; starc_offset > 0; "
              "starc_offset /= 2) {",
              f"{i4}{acc} = {down};",
              f"{i3}}}",
              f"{i3}if (starc_lane == 0) {{"]
    lines += _indented(heavy.rest, 3)
    return lines + [f"{i3}}}", f"{i2}}}", f"{i1}}}"]


# --- a body of several loops, step by step (``CooperativeCode.steps``) -------------------------

def _flat(steps):
    for step in steps:
        yield step
        yield from _flat(step.then + step.orelse)


class _GroupTier:
    """What the steps of a vertex need of its work-group: barriers and local memory."""

    def __init__(self, syntax: GroupSyntax) -> None:
        self.syntax = syntax

    def fold(self, step: StepCode) -> List[str]:
        """The lanes' ``accumulator`` combined into the first lane's (``group_tree``)."""
        acc = step.accumulator
        # (the next fold's tree writes starc_partial[0] only after this read: lane 0's)
        return group_tree(self.syntax, "starc_partial", acc, step.combine) + \
            [f"if (starc_lane == 0) {acc} = starc_partial[0];"]

    def first_found(self) -> List[str]:
        """``starc_winner``: the lowest lane whose ``starc_found`` holds (the lanes where none);
        the last barrier keeps the next chunk's reset after every lane's read."""
        barrier = self.syntax.barrier
        return ["if (starc_lane == 0) starc_first = starc_lanes;", barrier,
                f"if (starc_found) {self.syntax.local_min.format('starc_first', 'starc_lane')}",
                barrier, "const int starc_winner = starc_first;", barrier]

    def share(self, test: str) -> List[str]:
        """``starc_taken``: the first lane's ``test``, the same on every lane."""
        barrier = self.syntax.barrier
        return [f"if (starc_lane == 0) starc_branch = ({test}) ? 1 : 0;", barrier,
                "const bool starc_taken = starc_branch != 0;", barrier]


class _WarpTier:
    """The same of a warp, whose lanes run in lockstep: shuffles and ballots."""

    def __init__(self, warp: WarpSyntax) -> None:
        self.warp = warp

    def fold(self, step: StepCode) -> List[str]:
        acc = step.accumulator
        down = step.combine.format(acc, self.warp.down.format(acc, "starc_offset"))
        return [f"for (int starc_offset = {self.warp.width // 2}; starc_offset > 0; "
                "starc_offset /= 2) {", f"{INDENT}{acc} = {down};", "}"]

    def first_found(self) -> List[str]:
        ballot = self.warp.ballot.format("starc_found")
        return [f"const unsigned starc_found_lanes = {ballot};",
                "const int starc_winner = starc_found_lanes == 0u ? starc_lanes : "
                f"{self.warp.first_lane.format('starc_found_lanes')};"]

    def share(self, test: str) -> List[str]:
        shared = self.warp.broadcast.format(f"({test}) ? 1 : 0", "0")
        return [f"const bool starc_taken = {shared} != 0;"]


def _steps(steps: List[StepCode], tier) -> List[str]:
    """The lines (depth 0) that run ``steps`` for one vertex on every lane of the ``tier``."""
    lines: List[str] = []
    for step in steps:
        if step.kind in ("all", "push"):
            lines += step.lines
        elif step.kind == "fold":
            lines += step.lines + tier.fold(step)
        elif step.kind == "leader":
            lines += ["if (starc_lane == 0) {"] + _indented(step.lines, 1) + ["}"]
        elif step.kind == "search":
            lines += _search(step, tier)
        else:
            lines += tier.share(step.test) + ["if (starc_taken) {"]
            lines += _indented(_steps(step.then, tier), 1) + ["} else {"]
            lines += _indented(_steps(step.orelse, tier), 1) + ["}"]
    return lines


def _search(step: StepCode, tier) -> List[str]:
    """The lanes test the row's edges ``starc_lanes`` at a time, in the loop's order; the first
    lane that found one runs the loop's branch there, and the group stops."""
    count = f"{step.end} - {step.begin}"
    at = (f"{step.end} - 1 - starc_step" if step.descending
          else f"{step.begin} + starc_step")
    test = step.test or "true"
    tested = step.binding + [f"starc_found = {test};"]
    won = step.winner_binding + step.lines
    # (a flag, not a break, leaves the loop: PoCL's work-group loops mishandle a break out of
    # a loop with barriers)
    loop = [f"for (int starc_base = 0; starc_searching && starc_base < {count}; "
            "starc_base += starc_lanes) {",
            f"{INDENT}const int starc_step = starc_base + starc_lane;",
            f"{INDENT}bool starc_found = false;",
            f"{INDENT}if (starc_step < {count}) {{"] + \
        _indented(_position(step.position, at, tested), 2) + [f"{INDENT}}}"] + \
        _indented(tier.first_found(), 1) + \
        [f"{INDENT}if (starc_winner < starc_lanes) {{",
         f"{INDENT * 2}if (starc_lane == starc_winner) {{"] + \
        _indented(_position(step.position, at, won), 3) + \
        [f"{INDENT * 2}}}", f"{INDENT * 2}starc_searching = false;", f"{INDENT}}}", "}"]
    return ["{", f"{INDENT}bool starc_searching = true;"] + _indented(loop, 1) + ["}"]


def _position(name: str, at: str, lines: List[str]) -> List[str]:
    """``lines`` after the position's declaration, where they read it (an unused variable
    is an error in warnings-as-errors builds)."""
    used = any(re.search(rf"\b{re.escape(name)}\b", line) for line in lines)
    return ([f"const int {name} = {at};"] if used else []) + lines
