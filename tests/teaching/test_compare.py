"""``starc compare``: the page's content, its links (data attributes) against the source maps,
self-containment, and the command line's errors."""

from __future__ import annotations

import os
import pathlib
import re
import stat

import pytest

from starc.cli import main
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file
from starc.teaching.compare import compare_page
from starc.teaching.highlight import highlight_lines

ROOT = pathlib.Path(__file__).resolve().parents[2]
SSSP = str(ROOT / "dsl" / "sssp.sp")
DEVICE_BACKENDS = ["opencl", "cuda", "sycl", "openacc", "mpi"]
REFUSED_BY_MPI = ROOT / "tests" / "e2e" / "programs" / "heldback" / "refused_two_operators.sp"

_GENERATED_LINE = re.compile(
    r'<div class="ln" role="option" aria-selected="false" id="(\w+)-f\d+-L(\d+)" '
    r'data-file="([^"]+)" data-line="(\d+)"(?: data-s="(\d+)" data-e="(\d+)")?')


@pytest.fixture(scope="module")
def sssp_page() -> str:
    sink = DiagnosticSink()
    page = compare_page(SSSP, DEVICE_BACKENDS, sink)
    assert not sink.has_errors
    return page


def generated_lines(page: str):
    """backend -> {(file, line): (span start, span end) or None}, read from the page."""
    out = {}
    for backend, n, name, line, start, end in _GENERATED_LINE.findall(page):
        assert n == line
        out.setdefault(backend, {})[(name, int(line))] = (int(start), int(end)) if start else None
    return out


def test_every_backend_has_a_column_with_its_program_files(sssp_page):
    lines = generated_lines(sssp_page)
    assert list(lines) == DEVICE_BACKENDS
    for backend in DEVICE_BACKENDS:
        program = compile_file(SSSP, DiagnosticSink(), backend=backend).generated
        files = {name for name, _ in lines[backend]}
        assert files == set(program.program_files)
        for name in files:      # every line of every program file, in order
            count = len(program.files[name].rstrip("\n").split("\n"))
            assert sorted(n for f, n in lines[backend] if f == name) == list(range(1, count + 1))
        # the shared runtime headers are named, not shown
        shared = [f for f in program.files if f not in program.program_files]
        assert shared and ", ".join(shared) in sssp_page


def test_line_links_are_the_source_maps(sssp_page):
    lines = generated_lines(sssp_page)
    for backend in DEVICE_BACKENDS:
        sourcemap = compile_file(SSSP, DiagnosticSink(), backend=backend).sourcemap
        expected = {(name, line): (span.line, span.end_line)
                    for name, spans in sourcemap.items() for line, span in spans.items()}
        got = {key: span for key, span in lines[backend].items() if span is not None}
        assert got == expected


def test_the_dsl_is_shown_whole_and_highlighted(sssp_page):
    source = pathlib.Path(SSSP).read_text().rstrip("\n").split("\n")
    numbers = [int(n) for n in re.findall(r'id="dsl-L(\d+)" data-line="\1"', sssp_page)]
    assert numbers == list(range(1, len(source) + 1))
    assert '<span class="k">forall</span>' in sssp_page
    assert '<span class="k">fixedPoint</span>' in sssp_page
    assert '<span class="kt">propNode</span>' in sssp_page


def test_the_page_is_self_contained(sssp_page):
    assert re.search(r"\b(src|href)\s*=", sssp_page) is None
    assert "<link" not in sssp_page and "@import" not in sssp_page and "url(" not in sssp_page
    assert "<style>" in sssp_page and "<script>" in sssp_page
    assert "prefers-color-scheme: dark" in sssp_page


def test_markup_in_the_program_is_escaped(tmp_path):
    program = tmp_path / "evil.sp"
    program.write_text(pathlib.Path(SSSP).read_text().replace(
        "// Single-source", "// </script><script>alert(1)</script> Single-source"))
    page = compare_page(str(program), ["cuda"], DiagnosticSink())
    assert "<script>alert(1)" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page


def test_highlighting_keeps_one_balanced_fragment_per_line():
    text = "int a; /* one\ntwo */ int b;\n\n\"s\""
    lines = highlight_lines(text, "x.cpp")
    assert len(lines) == 4
    for fragment in lines:
        assert fragment.count("<span") == fragment.count("</span>")


def test_cli_writes_the_page(tmp_path, capsys):
    out = tmp_path / "sssp.html"
    assert main(["compare", SSSP, "-b", "cuda,opencl,cuda", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    page = out.read_text()
    assert list(generated_lines(page)) == ["cuda", "opencl"]
    mode = stat.S_IMODE(out.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_default_output_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["compare", SSSP, "-b", "sycl"]) == 0
    assert (tmp_path / "sssp_compare.html").is_file()


def test_a_backend_that_refuses_the_program_shows_why(tmp_path):
    out = tmp_path / "refused.html"
    assert main(["compare", str(REFUSED_BY_MPI), "-b", "cuda,mpi", "-o", str(out)]) == 0
    page = out.read_text()
    refusal = re.search(r'<pre class="error">(.*?)</pre>', page, re.S).group(1)
    assert f"{REFUSED_BY_MPI}:6:5: error[E0501]: the MPI backend cannot distribute" in refusal
    assert list(generated_lines(page)) == ["cuda"]


@pytest.mark.parametrize("argv, message", [
    (["-b", "cuda,foo"], "unknown backend 'foo' in -b (choose from: opencl, cuda, sycl, "
                         "openacc, mpi)"),
    (["-b", "cuda,"], "empty backend name in -b 'cuda,'"),
    (["-b", "reference"], "-b reference: the reference executor generates no code, so "
                          "there is nothing to show"),
    (["-o", "/nonexistent/dir/x.html"], "directory '/nonexistent/dir' does not exist"),
    (["--block-size", "100"], "--block-size must be a power of two"),
])
def test_usage_errors(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["compare", SSSP] + argv) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_program_with_errors_writes_nothing(tmp_path, capsys):
    program = tmp_path / "bad.sp"
    program.write_text("function f(Graph g) {\n  int x = ;\n}\n")
    out = tmp_path / "bad.html"
    assert main(["compare", str(program), "-o", str(out)]) == 1
    assert f"{program}:2:" in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_program_is_an_input_error(tmp_path, capsys):
    assert main(["compare", str(tmp_path / "none.sp"), "-o", str(tmp_path / "x.html")]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("program", sorted(p.name for p in (ROOT / "dsl").glob("*.sp")))
def test_every_dsl_program_compares_on_every_backend(program, tmp_path):
    """The issue's "done when": `starc compare dsl/bc.sp -o bc.html` (and every other library
    program) gives a page with every device backend's code, none refused."""
    out = tmp_path / "page.html"
    assert main(["compare", str(ROOT / "dsl" / program), "-o", str(out)]) == 0
    page = out.read_text()
    assert list(generated_lines(page)) == DEVICE_BACKENDS
    assert 'class="error"' not in page
