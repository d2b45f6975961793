"""Source maps (issue 12, item 1): every backend's generated lines map back to the DSL through
the one mechanism of ``backends/common/sourcemap.py``."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from starc.analysis.host_tree import launched_kernels
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.backends.common.sourcemap import CLOSE, OPEN, span_of
from starc.cli import main
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "dsl").glob("*.sp"))
BACKENDS = ["cuda", "opencl", "sycl", "openacc", "mpi"]


def _compile(path, backend):
    sink = DiagnosticSink()
    comp = compile_file(str(path), sink, backend=backend, options=BackendOptions())
    assert comp is not None and comp.ok, [d.header() for d in sink.diagnostics]
    return comp


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_every_mapped_line_is_in_both_files(path, backend):
    comp = _compile(path, backend)
    dsl_lines = len(path.read_text().splitlines())
    assert comp.sourcemap, "nothing mapped"
    for name, text in comp.generated.files.items():
        assert OPEN not in text and CLOSE not in text, f"a marker left in {name}"
    for name, spans in comp.sourcemap.items():
        lines = comp.generated.files[name].split("\n")
        for line, span in spans.items():
            assert 1 <= line <= len(lines)
            assert lines[line - 1].strip(), f"{name}:{line} is blank but mapped"
            assert 1 <= span.line <= span.end_line <= dsl_lines


def _function_bodies(text: str, head: str):
    """name -> the line numbers (from 1) strictly inside each C function whose first line
    matches ``head`` (a regex with a group for the name); functions end at a column-0 '}'."""
    lines = text.split("\n")
    bodies, current = {}, None
    for number, line in enumerate(lines, start=1):
        found = re.match(head, line)
        if found:
            current = found.group(1)
            bodies[current] = []
        elif current and line.startswith("}"):
            current = None
        elif current and not line.startswith(" " * 8) and line.rstrip().endswith("{"):
            continue        # the rest of a long signature
        elif current:
            bodies[current].append(number)
    return bodies


@pytest.mark.parametrize("backend, file, head", [
    ("cuda", "{}.cu", r"__global__ void (\w+)\("),
    ("opencl", "{}.cl", r"__kernel void (\w+)\("),
])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_kernel_statements_map_into_their_forall(path, backend, file, head):
    comp = _compile(path, backend)
    name = file.format(path.stem)
    spans = comp.sourcemap[name]
    # the kernels of the loop form this backend prints (a fixedPoint's worklist or topology form)
    printed = comp.specialized
    kernels = {k.name: span_of(k) for k in launched_kernels(printed)}
    bodies = _function_bodies(comp.generated.files[name], head)
    assert set(bodies) == set(kernels)
    text = comp.generated.files[name].split("\n")
    for kernel, numbers in bodies.items():
        mapped = [n for n in numbers if n in spans]
        assert mapped, kernel
        for n in mapped:
            assert kernels[kernel].contains(spans[n]), (kernel, n, text[n - 1], spans[n])
        # after the first mapped line (the template's index and bounds come before it)
        # every statement line is mapped
        for n in numbers[numbers.index(mapped[0]):]:
            if text[n - 1].strip() not in ("}", ""):
                assert n in spans, f"{name}:{n} not mapped: {text[n - 1]}"


@pytest.mark.parametrize("backend, file, atomic", [
    ("cuda", "sssp.cu", "starc_atomic_min"), ("opencl", "sssp.cl", "starc_atomic_min"),
    ("sycl", "sssp.cpp", "starc_atomic_min"), ("openacc", "sssp.cpp", "starc_atomic_min"),
    ("mpi", "sssp.cpp", "starc_atomic_min")])
def test_the_min_of_sssp_maps_to_its_line(backend, file, atomic):
    path = ROOT / "dsl" / "sssp.sp"
    min_line = next(n for n, line in enumerate(path.read_text().splitlines(), 1)
                    if "Min(" in line)
    comp = _compile(path, backend)
    lines = comp.generated.files[file].split("\n")
    # call sites (the helpers' own definitions, in the prelude, come from no DSL line), but
    # a priority window's: a deferred entry's min of its key maps to the round's forall
    atomic_lines = [n for n, line in enumerate(lines, 1)
                    if atomic + "_" in line and "inline" not in line and "_window[" not in line]
    assert atomic_lines
    assert {comp.sourcemap[file][n].line for n in atomic_lines} == {min_line}


def test_emit_sourcemap_prints_json(capsys):
    path = str(ROOT / "dsl" / "sssp.sp")
    assert main(["compile", path, "-b", "cuda", "--emit", "sourcemap"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == path and data["backend"] == "cuda"
    spans = data["files"]["sssp.cu"]
    assert all(set(span) == {"line", "col", "end_line"} for span in spans.values())
