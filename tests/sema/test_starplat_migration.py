"""docs/starplat-migration.md is true (issue 16, item 6): each StarPlat snippet is accepted, or
rejected with exactly the help line the guide shows; each starc rewrite is accepted."""

from __future__ import annotations

import pathlib
import re

import pytest

from starc.diagnostics import DiagnosticSink, Severity
from starc.driver import compile_source

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "starplat-migration.md"
_BLOCK = re.compile(r"```(starplat|text|sp)\n(.*?)```", re.S)


def _sections():
    """(title, StarPlat text, help line or None, starc rewrite or None) per '###' section."""
    out = []
    for chunk in GUIDE.read_text().split("\n### ")[1:]:
        title = chunk.splitlines()[0]
        blocks = {lang: text for lang, text in _BLOCK.findall(chunk)}
        help_line = blocks["text"].strip()[len("help: "):] if "text" in blocks else None
        out.append(pytest.param(blocks["starplat"], help_line, blocks.get("sp"), id=title[:40]))
    return out


SECTIONS = _sections()


def _diagnostics(text):
    sink = DiagnosticSink()
    compile_source(text, "guide.sp", sink, stop_after="sema")
    return sink


def test_the_guide_shows_at_least_five_rewrites_of_rejected_forms():
    assert sum(1 for p in SECTIONS if p.values[1] is not None) >= 5


@pytest.mark.parametrize("starplat, help_line, rewrite", SECTIONS)
def test_guide_snippet_matches_the_compiler(starplat, help_line, rewrite):
    sink = _diagnostics(starplat)
    if help_line is None:
        assert not sink.errors, [d.message for d in sink.errors]
    else:
        assert sink.errors, "the guide says this is rejected"
        assert help_line in [d.hint for d in sink.errors]
    if rewrite is not None:
        after = _diagnostics(rewrite)
        assert not after.errors, [d.message for d in after.errors]


def _warnings(sink):
    return {d.code for d in sink.diagnostics if d.severity is not Severity.ERROR}


@pytest.mark.parametrize("starplat, help_line, rewrite",
                         [p for p in SECTIONS if p.values[2] is not None])
def test_a_rewrite_brings_no_warning_of_its_own(starplat, help_line, rewrite):
    """What the guide tells a reader to write is no worse than what they had: a rewrite
    the compiler then warns about (a data race, an unused variable) is bad advice."""
    added = _warnings(_diagnostics(rewrite)) - _warnings(_diagnostics(starplat))
    assert not added, [d.message for d in _diagnostics(rewrite).diagnostics]
