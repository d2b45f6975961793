"""Issue 29 item 2 on OpenACC (g++ -fopenacc, regions on the host): a kernel that appends to a
worklist or counts a dense round runs a gang per chunk of STARC_GANG_CHUNK items on its vector
lanes, stages the appends in a gang-private queue and takes the gang's slots with one global
atomic after the vector loop. Against the reference on the hub graphs of the OpenCL tests
(``test_group_combining``: the star's centre appends 300 vertices from one item) at chunks of
1, 3 and the default, with the gang queue (STARC_LOCAL_QUEUE) shrunk until it overflows and
on the big star that overflows the default one; scalar reductions in an appending kernel keep
their clauses on both loops.

CI time: every gang chunk and every gang queue is a macro of the build, so each case is a build
of its own; the appending programs x chunks x gang queues (the default, and shrunk to 1 and to 5
entries until it overflows) are covered pairwise (tests/pairwise.py's all_pairs: every program
at every chunk and every queue, every chunk with every queue), bfs (which does not append) at
chunks of 1 beside them, rather than the full product of the first two and a separate build
per overflow case."""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import re

import pytest

import starc
from starc.backends.common.group_end import LOCAL_QUEUE, LOCAL_QUEUE_DEFAULT
from starc.backends.openacc.kernels import GANG_CHUNK, GANG_CHUNK_DEFAULT
from starc.diagnostics import DiagnosticSink
from starc.results import compare_results
from starc.runner import build

from e2e_cases import CASES, PROGRAMS
from pairwise import all_pairs
from test_group_combining import (APPENDING_PROGRAMS, _expected, _openers,  # noqa: F401
                                  _run_matches_the_reference, big_star, hub_files, run_built)

pytestmark = pytest.mark.openacc

#: appending programs (dense and sparse rounds) and bfs, whose kernels do not append
GANG_PROGRAMS = APPENDING_PROGRAMS + ("bfs",)
CHUNKS = (1, 3, GANG_CHUNK_DEFAULT)
#: the gang queue's capacity: the default (None), or shrunk until the hub's round overflows it
QUEUES = (None, 1, 5)
#: (program, chunk, queue): the appending programs pairwise, and bfs
STAGED_CASES = all_pairs(APPENDING_PROGRAMS, CHUNKS, QUEUES) + [("bfs", 1, None)]
#: a worklist kernel with a sum and a Max reduction beside its appends
REACH_SUM = pathlib.Path(__file__).resolve().parent / "programs" / "frontier_reach_sum.sp"


@functools.lru_cache(maxsize=None)
def _openacc(path: str):
    return starc.compile(path, "openacc")


def _built(path, tmp_path, **macros):
    """The OpenACC program of ``path`` built with ``macros`` defined before its includes
    (skipped where OpenACC cannot run)."""
    compiled = _openacc(str(path))
    if not compiled.backend.availability().can_run:
        pytest.skip(f"no OpenACC compiler: {compiled.backend.availability().detail}")
    if not macros:      # the program as generated: the session's build cache's (CI time)
        built = build(compiled.compilation, DiagnosticSink(), compiled.options)
        assert built is not None
        return built
    generated = compiled.compilation.generated
    defines = "".join(f"#define {name} {value}\n" for name, value in macros.items())
    files = dict(generated.files, **{generated.main: defines + generated.files[generated.main]})
    return compiled.backend.build(dataclasses.replace(generated, files=files), tmp_path,
                                  compiled.options)


def _chunk(size: int):
    """The macros giving gangs chunks of ``size`` items (none for the default)."""
    return {} if size == GANG_CHUNK_DEFAULT else {GANG_CHUNK: size}


@pytest.mark.parametrize("program, chunk, capacity", STAGED_CASES)
def test_gang_staged_appends_match_the_reference(program, chunk, capacity, hub_files, tmp_path):
    """Gangs of ``chunk`` items against the reference; with the gang queue shrunk to
    ``capacity`` entries (not None) the hub's round (and cc's dense rounds) overflow it, and
    every entry past it takes a global slot of its own."""
    assert {p for p, _, _ in STAGED_CASES} == set(GANG_PROGRAMS)
    macros = _chunk(chunk)
    if capacity is not None:
        generated = _openacc(str(CASES[program].path)).compilation.generated
        assert f"#define {LOCAL_QUEUE} {LOCAL_QUEUE_DEFAULT}" in \
            generated.files["starc_openacc.hpp"]
        macros[LOCAL_QUEUE] = capacity
    built = _built(CASES[program].path, tmp_path, **macros)
    queue = "" if capacity is None else f", gang queue of {capacity}"
    _run_matches_the_reference(built, program, hub_files[CASES[program].weighted], tmp_path,
                               f"OpenACC, gangs of {chunk} items{queue}")


def test_a_hub_overflows_the_gang_queue_by_itself(tmp_path):
    """The big star: the centre's one item appends 3000 vertices, past the default gang queue
    (2048 entries); the distances are still the reference's."""
    path = big_star(tmp_path)
    built = _built(PROGRAMS["sssp"].path, tmp_path)
    problems = compare_results(_expected("sssp", path),
                               run_built(built, path, False, {"src": "0"}, tmp_path))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_reductions_beside_staged_appends_match_the_reference(chunk, hub_files, tmp_path):
    """A kernel that appends and reduces a sum and a Max: its reduction clauses are on the gang
    loop and on the vector loop, and the returned value is the reference's."""
    text = _openacc(str(REACH_SUM)).compilation.generated.files["frontier_reach_sum.cpp"]
    assert re.search(r"#pragma acc parallel loop gang present\([^#]*reduction\(\+:total_sum\) "
                     r"reduction\(max:deepest_reduced\)[^#]*private\(starc_staged_", text)
    assert "#pragma acc loop vector reduction(+:total_sum) reduction(max:deepest_reduced)" in text
    path = hub_files[False]
    params = {"src": "0"}
    expected = starc.compile(str(REACH_SUM), "reference").run(path, **params)
    assert expected.ret is not None and int(expected.ret) > 0
    actual = run_built(_built(REACH_SUM, tmp_path, **_chunk(chunk)), path, False, params,
                       tmp_path)
    problems = compare_results(expected, actual)
    assert not problems, f"gangs of {chunk} items:\n" + "\n".join(problems)


def _kernels(path):
    """(name, lines) of each kernel function of the OpenACC program of ``path``."""
    generated = _openacc(str(path)).compilation.generated
    for chunk in generated.files[generated.main].split("\nstatic void ")[1:]:
        yield chunk.split("(", 1)[0], chunk[:chunk.index("\n}")].splitlines()


@pytest.mark.parametrize("path", [CASES[p].path for p in APPENDING_PROGRAMS] + [REACH_SUM],
                         ids=lambda p: p.stem)
def test_each_global_atomic_on_a_queue_length_is_once_per_gang(path):
    """Every kernel that stages is a ``parallel loop gang`` (no vector) over chunks with its
    queues private to the gang, and each global atomic on a worklist's length sits directly in
    the chunk loop, after the vector loop (gang-redundant code: once per gang), one per staged
    queue; an append past the gang queue's capacity takes its own slot inside
    ``starc_gang_append`` only."""
    assert _openacc(str(path)).compilation.specialized.target.appends == "gang"
    staged = [(name, lines) for name, lines in _kernels(path)
              if any("starc_staged_" in line for line in lines)]
    assert staged
    for name, lines in staged:
        text = "\n".join(lines)
        directive = next(line for line in lines if line.startswith("#pragma acc parallel loop"))
        assert directive.startswith("#pragma acc parallel loop gang present(") and \
            "private(starc_staged_" in text, name
        assert "#pragma acc loop vector" in text and "gang vector" not in text, name
        queues = set(re.findall(r"starc_staged_(\w+)_count = 0;", text))
        combines = 0
        for at, line in enumerate(lines):
            if not re.search(r"starc_atomic\w*\(&\w+_size\[frontier_round % 2\]", line):
                continue
            assert next(_openers(lines, at)).lstrip().startswith(
                "for (int starc_chunk = 0; "), f"{name}: {line.strip()}"
            combines += 1
        assert queues and combines == len(queues), name
