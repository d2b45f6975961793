"""Work-group combining where every work item of a group meets, at a kernel's end (OpenCL's shells, SYCL's grouped ones).

A private scalar reduction's values are folded by a tree in local memory
(``binned_shell.group_tree``; its partial array a ``LocalArray`` the shell makes where the
launch makes local memory, SYCL's local_accessor), and the group's first item alone does the
atomic. A worklist's
appends are staged in a queue in local memory: each item takes its slot there with a local
atomic (an append past the queue's capacity takes a global slot at once, so the queue never
overflows); at the end, after a barrier, the group's first item reserves the group's entries
in the global queue with one atomic, and after another barrier the items copy them out. A
dense round's counts are counted in local memory and added with one atomic likewise.
"""

from __future__ import annotations

import dataclasses
from typing import List, NamedTuple, Optional, Sequence

from starc.backends.common.binned_shell import MAX_GROUP, GroupSyntax, LocalArray, group_tree
from starc.backends.common.dialect import INDENT
from starc.ir.types import Scalar

__all__ = ["StagedQueue", "LOCAL_QUEUE", "LOCAL_QUEUE_DEFAULT", "GROUP_REDUCTIONS", "GroupFold",
           "reduction_tree", "staged_locals", "stage_open", "stage_close"]

#: the private reductions a work-group folds by a tree in local memory before one atomic
#: (``Capabilities.group_reductions``; bitwise ones on integers only; "*" keeps one atomic per
#: work item)
GROUP_REDUCTIONS = frozenset(
    (op, t) for op in ("+", "-", "&", "|", "Min", "Max")
    for t in (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE)
    if op not in "&|" or t in (Scalar.INT, Scalar.LONG))

#: the name of the local queue's capacity in the kernel file, and its value: room for two
#: appends per work item of the largest group (a GPU's item is one vertex, and most append
#: at most once or twice per round) and for a CPU run's 64 items appending 32 each; the
#: capacity is a macro so that a test can shrink it to force the overflow
LOCAL_QUEUE = "STARC_LOCAL_QUEUE"
LOCAL_QUEUE_DEFAULT = 2 * MAX_GROUP


@dataclasses.dataclass
class StagedQueue:
    """A worklist (``queue``: its global array; None where the kernel only counts) whose
    appends a work-group stages in local memory under the names ``stem``..., its length's
    address (``length``) and the global fetch-and-add on it (``reserve``, ``{}`` the
    amount)."""

    stem: str
    queue: Optional[str]
    length: str
    reserve: str

    @property
    def count(self) -> str:
        return f"{self.stem}_count"


class GroupFold(NamedTuple):
    """A work-group's fold of a private reduction (``reduction_tree``)."""

    lines: List[str]      # depth 0, at the kernel's scope
    leader: str           # the condition true in the group's first item alone
    partial: LocalArray   # the tree's local array, made by the shell where the launch makes them


def reduction_tree(syntax: GroupSyntax, type_name: str, local: str, combine: str) -> GroupFold:
    """The fold after whose lines the group's first item's ``local`` holds the fold of every
    item's."""
    array = LocalArray(type_name, f"starc_group_{local}")
    partial = array.name
    tree = [f"const int starc_lane = {syntax.lane};",
            f"const int starc_lanes = {syntax.lanes};"]
    tree += group_tree(syntax, partial, local, combine)
    tree.append(f"if (starc_lane == 0) {local} = {partial}[0];")
    lines = syntax.declare(array) + ["{"] + [INDENT + line for line in tree] + ["}"]
    return GroupFold(lines, f"{syntax.lane} == 0", array)


def staged_locals(queue: StagedQueue) -> List[LocalArray]:
    """The local memory of a staged queue: its entries and base (none where it only counts)
    and its count."""
    arrays = [LocalArray("int", queue.stem, per_lane=False, extent=LOCAL_QUEUE),
              LocalArray("int", f"{queue.stem}_base", per_lane=False)] \
        if queue.queue is not None else []
    return arrays + [LocalArray("int", queue.count, per_lane=False)]


def stage_open(syntax: GroupSyntax, queues: Sequence[StagedQueue]) -> List[str]:
    """The local queues' declarations and their reset, before the items (depth 0)."""
    lines = [line for queue in queues for local in staged_locals(queue)
             for line in syntax.declare(local)]
    resets = [f"{INDENT}{queue.count} = 0;" for queue in queues]
    return lines + [f"if ({syntax.lane} == 0) {{"] + resets + ["}", syntax.barrier]


def stage_close(syntax: GroupSyntax, queues: Sequence[StagedQueue]) -> List[str]:
    """Every group's entries taken into the global queues, one atomic per queue (depth 0)."""
    lines = [syntax.barrier, f"if ({syntax.lane} == 0) {{"]
    copies = []
    for queue in queues:
        if queue.queue is None:
            lines.append(f"{INDENT}if ({queue.count} != 0) "
                         f"{queue.reserve.format(queue.count)};")
            continue
        staged = syntax.minimum.format(queue.count, LOCAL_QUEUE)
        lines.append(f"{INDENT}if ({queue.count} != 0) "
                     f"{queue.stem}_base = {queue.reserve.format(staged)};")
        copies += [f"for (int starc_staged_at = {syntax.lane}; starc_staged_at < {staged}; "
                   f"starc_staged_at += {syntax.lanes}) {{",
                   f"{INDENT}{queue.queue}[{queue.stem}_base + starc_staged_at] = "
                   f"{queue.stem}[starc_staged_at];", "}"]
    lines.append("}")
    return lines + ([syntax.barrier] + copies if copies else [])
