"""dsl/cc.sp in a form the union-find does not take (analysis/union_find.py), for the tests of
the rounds' machinery (worklists, schedules, skipped pushes) that a union-find replaces in cc.sp
on every backend but MPI: its flags set by the forall that sets the labels instead of filled
before the loop (the same lines, so the same kernel names; the same fixed point)."""

from __future__ import annotations

import pathlib

__all__ = ["cc_in_rounds", "write_cc_in_rounds"]

_CC = pathlib.Path(__file__).resolve().parents[1] / "dsl" / "cc.sp"


def cc_in_rounds() -> str:
    """The text of dsl/cc.sp with its flags set in the labels' forall."""
    text = _CC.read_text()
    changed = text.replace("g.attachNodeProperty(modified = True);",
                           "g.attachNodeProperty(modified = False);") \
        .replace("        v.comp = v;\n", "        v.comp = v; v.modified = True;\n")
    assert changed.count("v.modified = True;") == 1 and "modified = False" in changed
    return changed


def write_cc_in_rounds(folder: pathlib.Path) -> pathlib.Path:
    """``cc_in_rounds()`` as ``folder``/cc.sp."""
    path = folder / "cc.sp"
    path.write_text(cc_in_rounds())
    return path
