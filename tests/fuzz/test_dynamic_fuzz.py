"""Differential fuzzing of Dynamic programs (issue 31, item 5) on the reference executor:
random Dynamic programs over random update streams give the same results on both layers of
the reference (vectorised and the closure interpreter), and after the last batch, since every
batch ends by recomputing the static function, the results of that function run on the graph
the stream leaves; and on OpenCL, OpenACC, SYCL and MPI (2 ranks; and 1, 3 or 4), the results
of the reference, batch after batch through the shared lowering's host loop over batches and
its in-place graph updates.

CI time: on the device backends each example is a build (7 to 14 s), so the 'ci' budget is two
examples a backend and one of MPI on 1, 3 or 4 ranks, and each build runs two streams: the
example's graph and stream, and a stream of at least four updates of the fixed witness graph
(``programs.witness_graph``; Hypothesis's first example is its simplest, one vertex and no
update)."""

from __future__ import annotations

import pathlib
import tempfile

from hypothesis import given, note, settings, strategies as st
import pytest

import starc
from starc.graphs import write_mtx
from starc.graphs.updates import ADD, DELETE, write_updates
from starc.reference import execute
from starc.results import compare_results

from dynamic_programs import distances, dynamic_programs, graph_after, update_streams
from fuzzing import SETTINGS, budget
from programs import graphs, witness_graph

pytestmark = pytest.mark.fuzz


def _outcome(run):
    try:
        return "ok", run()
    except Exception as exc:  # a run-time error must be the same located message
        return "error", str(exc).strip().splitlines()[-1]


def _draw_case(program, graph, data):
    stream = data.draw(update_streams(graph))
    # sizes past the stream's length too: one batch, shorter than its size
    batch_size = data.draw(st.integers(1, len(stream) + 2))
    note(program.text)
    note(f"graph {graph.num_nodes} vertices "
         f"{list(zip(graph.sources.tolist(), graph.targets.tolist()))}")
    note(f"updates {list(zip(stream.kinds.tolist(), stream.src.tolist(), stream.dst.tolist()))}"
         f", batches of {batch_size}")
    return stream, batch_size


@settings(max_examples=budget(40), **SETTINGS)
@given(program=dynamic_programs(), graph=graphs(), data=st.data())
def test_dynamic_programs_agree_with_their_static_function_on_the_updated_graph(
        program, graph, data):
    stream, batch_size = _draw_case(program, graph, data)
    compiled = starc.compile(program.text, "reference")
    ir_program = compiled.compilation.ir
    options = {"src": "0", "batchSize": str(batch_size)}
    fast = _outcome(lambda: execute(ir_program, graph, options, updates=stream))
    slow = _outcome(lambda: execute(ir_program, graph, options, updates=stream,
                                    vectorize=False))
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "error":
        assert fast[1] == slow[1]
        return
    assert not compare_results(fast[1], slow[1])
    after = graph_after(graph, stream, batch_size)
    static = _outcome(lambda: execute(ir_program, after, {"src": "0"}, function="Base"))
    assert static[0] == "ok", static
    dynamic, expected = fast[1], static[1]
    for name in ("a", "b", "flag", "f", "d"):
        assert (dynamic.props[name] == expected.props[name]).all(), name
    if "dist" in dynamic.props:      # kept by Incremental / Decremental over the batches
        assert (dynamic.props["dist"] == distances(after)).all()
    # the Dynamic adds 1000 per update its OnDelete / OnAdd bodies saw: every deletion /
    # addition of the stream (of a missing edge or a duplicate too)
    seen = ((stream.kinds == DELETE).sum() if "OnDelete" in program.text else 0) + \
        ((stream.kinds == ADD).sum() if "OnAdd" in program.text else 0)
    assert dynamic.ret == expected.ret + 1000 * seen


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("openacc", marks=pytest.mark.openacc),
                                     pytest.param("sycl", marks=pytest.mark.sycl),
                                     pytest.param("mpi", marks=pytest.mark.mpi)])
@settings(max_examples=budget(2), **SETTINGS)
@given(program=dynamic_programs(), graph=graphs(), data=st.data())
def test_dynamic_programs_on_the_device_backends_agree_with_the_reference(backend, program,
                                                                          graph, data):
    """The same programs and streams on OpenCL (PoCL), OpenACC (g++), SYCL (the host test
    double) and MPI (2 ranks): the reference's results, or its run-time error (few examples:
    each builds a program)."""
    _agree_with_the_reference(starc.compile(program.text, backend), program, graph, data)


@pytest.mark.mpi
@settings(max_examples=budget(1), **SETTINGS)
@given(program=dynamic_programs(), graph=graphs(), data=st.data(),
       ranks=st.sampled_from([1, 3, 4]))
def test_dynamic_programs_on_1_3_and_4_mpi_ranks_agree_with_the_reference(program, graph,
                                                                           data, ranks):
    """MPI on one rank (no peers, no ghosts) and on more ranks than the 2 of the test above:
    ghosts added and retired by updates between more parts, and ranks that own no vertex
    (graphs of fewer vertices than ranks; oversubscribed on this machine's cores)."""
    note(f"{ranks} ranks")
    compiled = starc.compile(program.text, "mpi", ranks=ranks, oversubscribe=True)
    _agree_with_the_reference(compiled, program, graph, data)


def _agree_with_the_reference(compiled, program, graph, data):
    """Runs ``compiled`` (built once, at its first run) on the example's stream and on one of
    the witness graph, and compares each with the reference's results or run-time error."""
    cases = [(graph, *_draw_case(program, graph, data))]
    witness = witness_graph()
    stream = data.draw(update_streams(witness, min_size=4))
    batch_size = data.draw(st.integers(1, len(stream) + 2))
    note(f"witness graph updates "
         f"{list(zip(stream.kinds.tolist(), stream.src.tolist(), stream.dst.tolist()))}"
         f", batches of {batch_size}")
    cases.append((witness, stream, batch_size))
    reference = starc.compile(program.text, "reference")
    for index, (graph, stream, batch_size) in enumerate(cases):
        params = {"src": "0", "batchSize": str(batch_size)}
        with tempfile.TemporaryDirectory(prefix="starc-dynfuzz-") as tmp:
            # Matrix Market keeps the vertex count (and the weight field) of any graph
            path, updates = pathlib.Path(tmp) / "g.mtx", pathlib.Path(tmp) / "u.txt"
            write_mtx(graph, path)
            write_updates(updates, stream)
            expected = _outcome(lambda: reference.run(path, updates=str(updates), **params))
            actual = _outcome(lambda: compiled.run(path, updates=str(updates), **params))
        where = f"stream {index} ({graph.name})"
        assert expected[0] == actual[0], (where, expected, actual)
        if expected[0] == "error":
            assert expected[1] == actual[1], where
            continue
        problems = compare_results(expected[1], actual[1])
        assert not problems, where + "\n" + "\n".join(problems)
