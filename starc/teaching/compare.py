"""``starc compare``: one self-contained HTML page with the DSL and every backend's output, linked line to line."""

from __future__ import annotations

import dataclasses
import html
import json
import os
from typing import Dict, List, Optional, Sequence

from starc.backends.common.sourcemap import Span
from starc.diagnostics import DiagnosticSink, render
from starc.driver import Compilation, compile_source, read_source
from starc.records import Record, record

__all__ = ["LineView", "FileView", "Column", "compare_page", "render_page"]


@record
class LineView(Record):
    """One line of a file: its number, highlighted HTML and the DSL span it comes from."""

    number: int
    html: str
    span: Optional[Span] = None


@record
class FileView(Record):
    name: str
    lines: List[LineView]


@record
class Column(Record):
    """One backend's column: its files and counts, or why it cannot run the program."""

    backend: str
    description: str
    files: List[FileView]
    counts: Dict[str, int]
    error: Optional[str] = None
    #: the backend's runtime headers, the same for every program: named, not shown
    shared: List[str] = dataclasses.field(default_factory=list)


def file_view(name: str, text: str, spans: Dict[int, Span]) -> FileView:
    from starc.teaching.highlight import highlight_lines
    fragments = highlight_lines(text.rstrip("\n"), name)
    return FileView(name, [LineView(n, frag, spans.get(n))
                           for n, frag in enumerate(fragments, start=1)])


def _columns(comp: Compilation, backends: Sequence[str], options,
             show_traceback: bool) -> List[Column]:
    """Each backend's column, all generated from the one plan. A backend that cannot generate
    this program (an MPI E0501, a missing dialect mapping) shows its located message instead
    of code: the page is about comparing, and "this backend cannot" is an answer too."""
    from starc.teaching.counts import backend_counts
    from starc.teaching.decisions import targets
    found = targets(comp.plan, backends, options, show_traceback)
    counts = backend_counts(found)
    columns = []
    for name, target in found.items():
        description = target.backend.description
        if target.generated is None:
            error = "\n".join(render(d, {comp.filename: comp.source}) for d in target.errors)
            columns.append(Column(name, description, [], {}, error))
            continue
        program = target.generated
        files = [file_view(f, program.files[f], program.sourcemap.get(f, {}))
                 for f in program.program_files]
        shared = [f for f in program.files if f not in program.program_files]
        columns.append(Column(name, description, files, counts.get(name, {}), shared=shared))
    return columns


def compare_page(path: str, backends: Sequence[str], sink: DiagnosticSink, *,
                 function: Optional[str] = None, options=None,
                 show_traceback: bool = False) -> Optional[str]:
    """The page for program ``path`` and ``backends``, or None when the program has errors
    (they are in ``sink``: the page is written only for a program that checks)."""
    source = read_source(path, sink)
    if source is None:
        return None
    comp = compile_source(source, path, sink, stop_after="plan", function=function,
                          show_traceback=show_traceback)
    if sink.has_errors or comp.plan is None:
        return None
    return render_page(comp, _columns(comp, backends, options, show_traceback))


def render_page(comp: Compilation, columns: List[Column]) -> str:
    from starc.backends.common.program import templates
    from starc.teaching.highlight import highlight_lines, style_css
    name = os.path.basename(comp.filename)
    dsl = [LineView(n, frag) for n, frag in
           enumerate(highlight_lines(comp.source.rstrip("\n"), name), start=1)]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "templates", "compare.css"), encoding="utf-8") as f:
        css = f.read()
    with open(os.path.join(here, "templates", "compare.js"), encoding="utf-8") as f:
        js = f.read()
    page = templates(here).get_template("compare.html.mako")
    return page.render(title=name, function=comp.function.name, dsl=dsl, columns=columns,
                       css=css + style_css(), js=js, escape=html.escape, json=json)
