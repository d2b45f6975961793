"""Source maps: which DSL span each generated line comes from, recorded by the shared printers.

The printers return lines of text, which templates join into files, so a location cannot
travel as an attribute of a line. It travels inside the text instead: a printer prefixes a
line with a *marker* (two ASCII separator characters around ``line:col:end_line``, which no
generated program contains), and ``GeneratedProgram`` strips every marker from every file,
keeping the first of each line as that line's span. One mechanism for every backend: the
kernel and host statement printers mark what they print, inner statements before outer ones,
so a line maps to the innermost construct that produced it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, Iterable, List, Optional, Tuple

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.records import Record, record

OPEN, CLOSE = "\x1e", "\x1f"
_MARKER = re.compile(OPEN + r"(\d+):(\d+):(\d+)" + CLOSE)


@record
class Span(Record):
    """DSL lines ``line``..``end_line`` (inclusive), starting at column ``col``."""

    line: int
    col: int
    end_line: int

    def contains(self, other: "Span") -> bool:
        return self.line <= other.line and other.end_line <= self.end_line

    def as_json(self) -> Dict[str, int]:
        return dataclasses.asdict(self)


def span_of(node) -> Optional[Span]:
    """The DSL span of an IR or plan node: from its location to the last line any location
    inside it names (ends are not kept by the parser, so a construct ends at its last located
    part, not at its closing brace)."""
    loc = getattr(node, "loc", None)
    if loc is None or loc.line <= 0:
        return None
    return Span(loc.line, loc.col, max(loc.line, _last_line(node, set())))


def _last_line(node, seen: set) -> int:
    if id(node) in seen:
        return 0
    seen.add(id(node))
    if isinstance(node, (list, tuple)):
        return max((_last_line(x, seen) for x in node), default=0)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return 0
    if isinstance(node, (ir.Symbol, P.DeviceArray)):
        return 0    # declared elsewhere: not part of this construct's text
    loc = getattr(node, "loc", None)
    last = loc.line if loc is not None and getattr(loc, "line", 0) > 0 else 0
    for field in dataclasses.fields(node):
        last = max(last, _last_line(getattr(node, field.name), seen))
    return last


def marker(span: Optional[Span]) -> str:
    return "" if span is None else f"{OPEN}{span.line}:{span.col}:{span.end_line}{CLOSE}"


def mark(lines: Iterable[str], node) -> List[str]:
    """``lines`` with every line not yet marked marked as coming from ``node``."""
    return mark_with(lines, marker(span_of(node)))


def mark_with(lines: Iterable[str], prefix: str) -> List[str]:
    """``lines`` with every line not yet marked prefixed by the marker ``prefix``."""
    out: List[str] = []
    for text in lines:
        for line in text.split("\n"):
            out.append(line if not prefix or OPEN in line else prefix + line)
    return out


def strip(text: str) -> Tuple[str, Dict[int, Span]]:
    """``text`` without markers, and the span of each marked line (numbered from 1)."""
    spans: Dict[int, Span] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if OPEN not in line:
            continue
        found = _MARKER.search(line)
        if found:
            spans[number] = Span(*map(int, found.groups()))
        lines[number - 1] = _MARKER.sub("", line)
    return "\n".join(lines), spans
