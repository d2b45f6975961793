"""Differential fuzzing: generated programs agree on every runnable backend.

Each example is a well-typed, race-free program (``programs.py``) run on a few random small
graphs by the reference executor's two layers (vectorised and the closure interpreter), by
OpenCL on PoCL, by SYCL through the test-only host implementation, by OpenACC (g++, host) and
MPI (2 and 3 ranks, 1 rank of 2 threads), and, where an NVIDIA GPU is, by CUDA. Integer results must be identical; a
run-time error must be the same located message everywhere. Programs without kernels run on
every backend too, and updates of one shared target with operators that do not commute must
be the same located compile error. By default each fuzzer has a CI budget of a few minutes; ``pytest -m fuzz -s
--hypothesis-profile=long`` runs the long campaign and prints its figures (the README records
them).

CI time: every example of a fuzzer with a backend is a build (7 to 14 s), so the 'ci' budgets
are a few examples each, and each example batches more phases into its one program (2 to 5
rather than 1 to 3: one build checks several phases) and runs on a fixed witness graph
besides its random ones (``programs.witness_graph``: Hypothesis's first example is its
simplest, a graph of one vertex). The long profile's example counts are unchanged.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import os
import pathlib
import tempfile
from typing import Optional
from unittest import mock

import pytest
from hypothesis import given, note, settings, strategies as st

import starc
from starc.diagnostics import CompileError
from starc.graphs import load_graph, write_mtx
from starc.reference import execute
from starc.results import compare_results

from fuzzing import SETTINGS, budget, campaign
from programs import (EDGE_PHASES, NEW_PHASES, bfs_depth_phase, bfs_phase, flag_phase, fold_phase, graphs,
                      host_programs, non_commuting_programs, own_phase, program_params,
                      programs, push_phase, relax_phase, witness_graph)

# A campaign's example count makes one test run far past the suite's per-test timeout
# (setup.cfg: 600 s; 40 MPI programs took 11 minutes): no timeout then.
pytestmark = [pytest.mark.fuzz, *([pytest.mark.timeout(0)] if campaign() else [])]

# Figures of the campaign, printed at the end of the module (visible with ``-s``).
STATS = collections.Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_figures():
    yield
    print("\ndifferential fuzzing:", ", ".join(f"{v} {k}" for k, v in sorted(STATS.items())))


def outcome(run):
    """``("ok", results)`` or ``("error", message)`` for one run."""
    try:
        return "ok", run()
    except CompileError:
        raise
    except Exception as exc:  # the run-time error every backend must report alike
        return "error", str(exc).strip().splitlines()[-1] if str(exc).strip() else repr(exc)


def assert_agree(name, expected, actual, program, graph):
    kind_e, value_e = expected
    kind_a, value_a = actual
    where = f"{name} disagrees with the reference on graph {graph.num_nodes} vertices " \
            f"{list(zip(graph.sources.tolist(), graph.targets.tolist()))}\n{program}"
    assert kind_e == kind_a, f"{where}\nreference: {value_e}\n{name}: {value_a}"
    if kind_e == "ok":
        problems = compare_results(value_e, value_a)
        assert not problems, where + "\n" + "\n".join(problems)
    else:
        assert value_e == value_a, f"{where}\nreference: {value_e}\n{name}: {value_a}"


def compile_checked(text):
    """The program compiles for the reference without errors or warnings: the generator
    only makes race-free programs, so a data-race warning is itself a finding. Its unread
    locals (``edge e = g.get_edge(v, w);`` before an update that may not use it) are
    deliberate: they exercise the backends' dead locals."""
    try:
        program = starc.compile(text, "reference", function="Fuzz")
    except CompileError as error:
        raise AssertionError("\n".join(d.header() for d in error.diagnostics) + "\n" + text)
    warnings = [d.header() for d in program.compilation.sink.diagnostics
                if d.code != "unused"]
    assert not warnings, "\n".join(warnings) + "\n" + text
    return program


@dataclasses.dataclass(frozen=True)
class Launch:
    """One way to run a backend's program: for MPI, its ranks and each rank's OpenMP threads
    (``$OMP_NUM_THREADS`` when given; else the launcher shares the cores out)."""

    backend: str
    ranks: Optional[int] = None
    threads: Optional[int] = None

    def __str__(self) -> str:
        if self.ranks is None:
            return self.backend
        return f"{self.backend} ({self.ranks} ranks" + \
            (f" x {self.threads} threads)" if self.threads else ")")

    def environment(self):
        """The environment of the compile (the launcher reads it) and of the runs."""
        if self.threads is None:
            return contextlib.nullcontext()
        return mock.patch.dict(os.environ, OMP_NUM_THREADS=str(self.threads))

    def compile(self, text, options):
        with self.environment():
            return starc.compile(text, self.backend, function="Fuzz", options=options,
                                 ranks=self.ranks, oversubscribe=self.ranks is not None)


#: MPI as the general fuzzers run it: 2 and 3 ranks (so some rank owns one vertex, or none,
#: of a small graph) and one rank of 2 OpenMP threads (its kernels' atomics shared in a rank).
#: One build serves them all (the generated program does not depend on the launch); a long
#: campaign adds 4 ranks (more ranks than vertices on most graphs) and one of 1 thread.
MPI_LAUNCHES = (Launch("mpi", 2), Launch("mpi", 3), Launch("mpi", 1, threads=2)) + \
    ((Launch("mpi", 4), Launch("mpi", 1, threads=1)) if campaign() else ())


def _launches(backends):
    return [b if isinstance(b, Launch) else Launch(b, 2 if b == "mpi" else None)
            for b in backends]


def run_all(program_text, graph_list, backends, options=None):
    """Run on every graph by the reference and by each of ``backends`` (names, or
    ``Launch``es for MPI's ranks and threads; a bare "mpi" is 2 ranks)."""
    reference = compile_checked(program_text)
    STATS["programs"] += 1
    compiled = [(launch, launch.compile(program_text, options))
                for launch in _launches(backends)]
    with tempfile.TemporaryDirectory(prefix="starc-fuzz-") as tmp:
        for index, graph in enumerate([*graph_list, witness_graph()]):
            # Matrix Market keeps the vertex count and the weight field even with no edges.
            path = pathlib.Path(tmp) / f"g{index}.mtx"
            write_mtx(graph, path)
            _run_one(reference, compiled, program_text, graph, path,
                     program_params(program_text, graph.num_nodes))


def _run_one(reference, compiled, program_text, graph, path, params):
    STATS["runs"] += 1
    expected = outcome(lambda: reference.run(path, **params))
    if expected[0] == "error":
        STATS["reference errors"] += 1
    interpreted = outcome(lambda: execute(reference.compilation.ir, load_graph(str(path)),
                                          params, function="Fuzz", vectorize=False))
    assert_agree("the closure interpreter", expected, interpreted, program_text, graph)
    for launch, program in compiled:
        with launch.environment():
            actual = outcome(lambda: program.run(path, **params))
        STATS[f"{launch.backend} runs"] += 1
        assert_agree(str(launch), expected, actual, program_text, graph)


@settings(max_examples=budget(40), **SETTINGS)
@given(program=programs(), graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_reference_layers_agree(program, graph_list):
    """Vectorised reference == closure interpreter (cheap: many examples)."""
    note(program.text)
    run_all(program.text, graph_list, backends=())


@pytest.mark.opencl
@settings(max_examples=budget(6), **SETTINGS)
@given(program=programs(min_phases=2, max_phases=5),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_opencl_agrees_with_reference(program, graph_list):
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl",))


@pytest.mark.opencl
@settings(max_examples=budget(3), **SETTINGS)
@given(program=programs(phases=EDGE_PHASES + [own_phase()], min_phases=2, max_phases=5),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_opencl_agrees_on_edge_shapes(program, graph_list):
    """Every example holds a shape of issue 32 (updates reading their own target, mixed
    commuting updates, overflowing arithmetic): drawn among all phases, they are rare."""
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl",))


@pytest.mark.opencl
@settings(max_examples=budget(3), **SETTINGS)
@given(program=programs(phases=[push_phase(), relax_phase(), flag_phase()], min_phases=2,
                        max_phases=5),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_opencl_agrees_with_one_item_per_edge(program, graph_list):
    """--schedule edges (analysis/schedules.py) on the phases whose loops push to their
    neighbours: the rewritten kernels must give the reference's results."""
    from starc.backends.base import BackendOptions
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl",),
            options=BackendOptions(schedule="edges"))


@pytest.mark.opencl
@settings(max_examples=budget(3), **SETTINGS)
@given(program=programs(phases=[fold_phase(), own_phase(), bfs_phase()], min_phases=2,
                        max_phases=5),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_opencl_agrees_with_binned_groups(program, graph_list):
    """--schedule binned (analysis/binned.py) with work-groups of 2, so every vertex of degree
    2 or more is shared by its group: the folds, and the BFS steps run step by step
    (analysis/cooperative.py), must give the reference's results."""
    from starc.backends.base import BackendOptions
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl",),
            options=BackendOptions(schedule="binned", block_size=2))


@pytest.mark.opencl
@pytest.mark.mpi
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(phases=[bfs_depth_phase(), own_phase()], min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_backends_agree_on_bfs_depth_values(program, graph_list):
    """Every example holds a BFS whose parents loop may set `a` from the depth
    (analysis/depth_values.py) or a near miss of it: drawn among all phases, they are rare."""
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl", "mpi"))


@pytest.mark.openacc
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(phases=[fold_phase(), own_phase(), push_phase(), relax_phase(),
                                flag_phase()], min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_openacc_agrees_with_vector_loops(program, graph_list):
    """--schedule binned on OpenACC (analysis/schedules.py, vector_loops): the folds and the
    pushes as `loop vector`s of a vertex's gang, with their reduction clauses; each example
    a g++ -fopenacc build, so few of them."""
    from starc.backends.base import BackendOptions
    note(program.text)
    run_all(program.text, graph_list, backends=("openacc",),
            options=BackendOptions(schedule="binned"))


#: per forced schedule, the phases it rewrites first: Hypothesis's simplest example (the one
#: example of the CI budget) is made of the first phase
_SCHEDULED_PHASES = {"binned": [fold_phase(), own_phase(), push_phase(), relax_phase(),
                                flag_phase()],
                     "edges": [push_phase(), relax_phase(), flag_phase(), fold_phase(),
                               own_phase()]}


@pytest.mark.sycl
@pytest.mark.parametrize("schedule", sorted(_SCHEDULED_PHASES))
@settings(max_examples=budget(1), **SETTINGS)
@given(data=st.data(), graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_sycl_agrees_with_forced_schedules(schedule, data, graph_list):
    """--schedule binned (work-groups of 2: every vertex of degree 2 or more is shared by its
    group, the fold tree and the per-group reduction run) and --schedule edges on SYCL, whose
    grouped kernels are command groups with local memory and barriers; each example a g++
    build on the test double (real work-groups), so one per schedule in CI (its program the
    schedule's own phases, run on the witness graph too); the long profile fuzzes them."""
    from starc.backends.base import BackendOptions
    program = data.draw(programs(phases=_SCHEDULED_PHASES[schedule], min_phases=2,
                                 max_phases=4))
    note(program.text)
    run_all(program.text, graph_list, backends=("sycl",),
            options=BackendOptions(schedule=schedule, block_size=2))


@pytest.mark.sycl
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=2, max_size=3))
def test_sycl_agrees_with_reference(program, graph_list):
    """Each SYCL example costs a g++ build, so fewer of them."""
    note(program.text)
    run_all(program.text, graph_list, backends=("sycl",))


@pytest.mark.cuda
@pytest.mark.gpu
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=2, max_size=3))
def test_cuda_agrees_with_reference(program, graph_list):
    """Each CUDA example costs an nvcc build, so few of them; runs only where a GPU is."""
    note(program.text)
    run_all(program.text, graph_list, backends=("cuda",))


_STRICT_BACKENDS = [pytest.param("openacc", marks=pytest.mark.openacc),
                    pytest.param("mpi", marks=pytest.mark.mpi)]


@pytest.mark.parametrize("backend", _STRICT_BACKENDS)
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=2, max_size=3))
def test_strict_builds_agree_with_reference(backend, program, graph_list):
    """OpenACC (its default schedule) and MPI build with -Wall -Wextra -Werror: a program
    they reject is a finding (a comparison of a value with itself once was one). Each example
    costs a build; MPI's one build runs on 2 and 3 ranks and on 1 rank of 2 threads."""
    note(program.text)
    run_all(program.text, graph_list, backends=MPI_LAUNCHES if backend == "mpi" else (backend,))


@pytest.mark.opencl
@pytest.mark.mpi
@settings(max_examples=budget(2), **SETTINGS)
@given(program=programs(phases=NEW_PHASES, min_phases=2, max_phases=4),
       graph_list=st.lists(graphs(), min_size=1, max_size=3))
def test_backends_agree_on_constructs_beyond_the_library(program, graph_list):
    """Every example is made of the constructs no dsl program uses (programs.NEW_PHASES:
    is_an_edge between neighbours, one-shot Min/Max with secondary targets, loops on a
    scalar the forall computes, a SetN of BFS sources, long values, edge loops reading
    minWt/maxWt): drawn among all phases they are rare. OpenCL and MPI (2 and 3 ranks, 1 rank of 2 threads)."""
    note(program.text)
    run_all(program.text, graph_list, backends=("opencl", *MPI_LAUNCHES))


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("sycl", marks=pytest.mark.sycl),
                                     *_STRICT_BACKENDS])
@settings(max_examples=budget(2), **SETTINGS)
@given(program=host_programs(), graph_list=st.lists(graphs(), min_size=1, max_size=2))
def test_programs_without_kernels_agree(backend, program, graph_list):
    """An MPI program without a kernel once failed to build (its graph alias unused)."""
    note(program.text)
    run_all(program.text, graph_list, backends=(backend,))


@settings(max_examples=budget(30), **SETTINGS)
@given(case=non_commuting_programs())
def test_updates_that_do_not_commute_are_one_located_error(case):
    """Reference, OpenCL and OpenACC once returned 22 and MPI 14 for one such program: it has
    no meaning, so every backend refuses it at the second update, before building."""
    text, line = case
    note(text)
    for backend in ("reference", "opencl", "mpi"):
        with pytest.raises(CompileError) as error:
            starc.compile(text, backend, function="Fuzz")
        errors = [d for d in error.value.diagnostics if d.severity.name == "ERROR"]
        assert [(d.code, d.loc.line) for d in errors] == [("E0402", line)], text
        assert "do not commute" in errors[0].message
