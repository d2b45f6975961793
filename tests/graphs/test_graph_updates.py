"""Update streams (issue 31): the reader's file:line errors, the writer, the seeded generator
(`starc graph gen updates`), applying deletions and additions, and `starc run --updates`."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import starc

from starc.cli import main
from starc.graphs.csr import Graph
from starc.graphs.errors import GraphFormatError
from starc.graphs.readers import load_graph
from starc.graphs.updates import (ADD, DELETE, add_edges, delete_edges, generate_updates,
                                  read_updates, write_updates)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _file(tmp_path, text, name="u.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_reads_additions_deletions_comments_and_weights(tmp_path):
    path = _file(tmp_path, "# a stream\na 0 1 5\n\n% note\nd 2 0\na 1 1 2.5\n")
    stream = read_updates(path, 3)
    assert stream.kinds.tolist() == [ADD, DELETE, ADD]
    assert (stream.src.tolist(), stream.dst.tolist()) == ([0, 2, 1], [1, 0, 1])
    assert stream.weights.tolist() == [5.0, 0.0, 2.5] and not stream.weights_integral
    assert read_updates(_file(tmp_path, "d 0 1\na 1 0\n", "v.txt"), 2).weights is None


@pytest.mark.parametrize("text, line, message", [
    ("a 0 1\nx 0 1\n", 2, "an update starts with 'a' (add) or 'd' (delete), not 'x'"),
    ("a 0\n", 1, "expected 'a SRC DST [WEIGHT]', found 2 fields"),
    ("d 0 1 4\n", 1, "expected 'd SRC DST (a deletion has no weight)', found 4 fields"),
    ("a 0 one\n", 1, "target id 'one' is not an integer"),
    ("# c\nd 3 0\n", 2, "source id 3 is not a vertex of the graph (0..2); updates do not add "
                        "vertices"),
    ("a -1 0\n", 1, "source id -1 is not a vertex of the graph (0..2); updates do not add "
                    "vertices"),
    ("a 0 1 2\nd 0 1\na 1 2\n", 3, "weights on some additions only: this line has no weight, "
                                   "line 1 has one"),
    ("a 0 1 nan\n", 1, "weight 'nan' is not finite"),
    ("a 0 1 w\n", 1, "weight 'w' is not a number"),
])
def test_bad_lines_are_located(tmp_path, text, line, message):
    path = _file(tmp_path, text)
    with pytest.raises(GraphFormatError) as info:
        read_updates(path, 3)
    assert str(info.value) == f"{path}:{line}: {message}"


def test_write_then_read_round_trip(tmp_path):
    graph = Graph.from_edges(5, [0, 1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4])
    stream = generate_updates(graph, 6, 0.5, seed=4, weights=True)
    path = str(tmp_path / "u.txt")
    write_updates(path, stream)
    again = read_updates(path, 5)
    for field in ("kinds", "src", "dst", "weights"):
        assert np.array_equal(getattr(again, field), getattr(stream, field)), field


def test_generator_deletes_existing_and_adds_new_edges_seeded():
    graph = Graph.from_edges(6, [0, 0, 1, 2, 3, 4, 5, 5], [1, 2, 2, 3, 4, 5, 0, 0])
    stream = generate_updates(graph, 6, 0.5, seed=1)
    existing = set(zip(graph.sources.tolist(), graph.targets.tolist()))
    pairs = list(zip(stream.src.tolist(), stream.dst.tolist()))
    deleted = [p for p, k in zip(pairs, stream.kinds) if k == DELETE]
    added = [p for p, k in zip(pairs, stream.kinds) if k == ADD]
    assert len(deleted) == 3 and set(deleted) <= existing and len(set(deleted)) == 3
    assert len(added) == 3 and not set(added) & existing and len(set(added)) == 3
    assert stream.weights is None
    again = generate_updates(graph, 6, 0.5, seed=1)
    assert np.array_equal(again.src, stream.src) and np.array_equal(again.kinds, stream.kinds)
    with pytest.raises(ValueError, match="5 deletions asked for, but the graph has only 2"):
        generate_updates(Graph.from_edges(2, [0, 1], [1, 0]), 5, 1.0)


def test_deleting_removes_every_copy_and_adding_keeps_ids_stable():
    graph = Graph.from_edges(3, [0, 0, 1, 2], [1, 1, 2, 0], [4, 5, 6, 7])
    smaller, new_ids = delete_edges(graph, [0, 2], [1, 2])      # 2 -> 2 is missing
    assert new_ids.tolist() == [-1, -1, 0, 1]
    assert list(zip(smaller.sources.tolist(), smaller.targets.tolist())) == [(1, 2), (2, 0)]
    larger, old_ids, added = add_edges(graph, [1, 0], [2, 0], [8, 9])
    assert list(zip(larger.sources.tolist(), larger.targets.tolist(),
                    larger.weights.tolist())) == [(0, 0, 9), (0, 1, 4), (0, 1, 5), (1, 2, 6),
                                                  (1, 2, 8), (2, 0, 7)]
    assert old_ids.tolist() == [1, 2, 3, 5] and added.tolist() == [4, 0]


def test_symmetrised_stream_keeps_batches_of_file_lines(tmp_path):
    stream = read_updates(_file(tmp_path, "a 0 1\nd 2 2\na 1 2\n"), 3).symmetrised()
    assert stream.line_count == 3 and len(stream) == 5
    pairs = [list(zip(part.src.tolist(), part.dst.tolist()))
             for part in (stream.batch(0, 1), stream.batch(1, 2), stream.batch(2, 3))]
    assert pairs == [[(0, 1), (1, 0)], [(2, 2)], [(1, 2), (2, 1)]]


def _starc(*args):
    proc = subprocess.run([sys.executable, "-m", "starc", *map(str, args)],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_gen_updates_command_and_run_with_updates(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text("0 1 5\n1 2 3\n2 0 1\n0 2 9\n")
    updates = tmp_path / "u.txt"
    assert main(["graph", "gen", "updates", "--graph", str(graph), "--count", "4",
                 "--weights", "--seed", "3", "-o", str(updates)]) == 0
    lines = updates.read_text().split("\n")[:-1]
    assert len(lines) == 4 and sum(line.startswith("d ") for line in lines) == 2
    status, out, err = _starc("run", ROOT / "dsl" / "dynamic" / "dyn_sssp.sp", "-b",
                              "reference", "--graph", graph, "--updates", updates,
                              "--batchSize", "2", "--src", "0")
    assert status == 0, err
    assert out.startswith(f"# starc results: DynSSSP backend=reference graph={graph}\n")
    assert "dist 0 0\n" in out


def test_run_with_a_bad_update_file_names_its_line(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text("0 1 5\n")
    updates = _file(tmp_path, "a 0 1 1\nd 0 7\n")
    status, out, err = _starc("run", ROOT / "dsl" / "dynamic" / "dyn_sssp.sp", "-b",
                              "reference", "--graph", graph, "--updates", updates,
                              "--batchSize", "2", "--src", "0")
    assert status == 1 and out == ""
    assert f"{updates}:2: target id 7 is not a vertex of the graph (0..1)" in err
    assert "Traceback" not in err
    status, _, err = _starc("run", ROOT / "dsl" / "sssp.sp", "-b", "reference", "--graph",
                            graph, "--updates", updates, "--src", "0")
    assert status == 2 and "--updates: Compute_SSSP takes no update stream" in err


def test_compiled_program_runs_over_an_update_stream(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text("0 1 5\n1 2 3\n2 0 1\n0 2 9\n")
    updates = _file(tmp_path, "d 1 2\na 2 1 1\n")
    program = starc.compile((ROOT / "dsl" / "dynamic" / "dyn_sssp.sp").read_text())
    results = program.run(str(graph), updates=updates, batchSize=1, src=0)
    # 1 -> 2 gone: 2 is reached directly (9), and 1 by 0 -> 1 (5)
    assert results.props["dist"].tolist() == [0, 5, 9]
    undirected = program.run(str(graph), undirected=True, updates=updates, batchSize=2, src=0)
    assert undirected.props["dist"].tolist() == [0, 2, 1]


_LINE = st.one_of(
    st.text(alphabet="ad #%-+.0123456789ex\t", max_size=12),
    st.tuples(st.sampled_from(["a", "d", "x"]), st.integers(-2, 5), st.integers(-2, 5),
              st.one_of(st.none(), st.integers(-3, 300), st.floats(allow_nan=True)))
    .map(lambda t: " ".join(str(x) for x in t if x is not None)))


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINE, max_size=8))
def test_any_text_is_read_or_refused_at_a_line(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("u") / "u.txt"
    path.write_text("\n".join(lines) + "\n")
    try:
        stream = read_updates(str(path), 4)
    except GraphFormatError as error:
        assert str(error).startswith(f"{path}:")
        return
    assert len(stream) <= len(lines)
    ids = np.concatenate([stream.src, stream.dst])
    assert ((0 <= ids) & (ids < 4)).all()
