"""vertices_up_to (starc.graphs.peek): a graph's vertex count up to a bound, read no further
than needed, and the bound itself whenever the file must speak for itself."""

import os

import pytest

from starc.graphs import load_graph
from starc.graphs.binary import save_sg
from starc.graphs.peek import vertices_up_to


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


@pytest.mark.parametrize("bound", [1, 2, 5, 6, 7, 100])
def test_counts_of_an_edge_list_and_its_sg(tmp_path, bound):
    text = write(tmp_path, "g.el", "# a comment\n% another\n\n0 1 2\n3 5 1\n")
    binary = str(tmp_path / "g.sg")
    save_sg(load_graph(text), binary)
    assert vertices_up_to(text, bound) == vertices_up_to(binary, bound) == min(6, bound)


def test_an_edge_list_is_read_only_until_the_bound(tmp_path):
    # what follows the first line is not a graph: a reader would stop there, the peek never
    # gets that far
    path = write(tmp_path, "g.el", "0 9\n" + "not an edge\n" + "\x00" * 4096)
    assert vertices_up_to(path, 4) == 4


def test_matrix_market_has_its_size_line(tmp_path):
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                    "% comment\n3 3 1\n1 2\n")
    assert vertices_up_to(path, 8) == 3


@pytest.mark.parametrize("name, data", [("bad.el", "0 1\n1 x\n"), ("neg.el", "-1 2\n"),
                                        ("bad.sg", "not a graph"), ("g.npz", "PK\x03\x04"),
                                        ("empty.mtx", "")])
def test_what_the_program_must_judge_is_the_bound(tmp_path, name, data):
    assert vertices_up_to(write(tmp_path, name, data), 5) == 5


def test_missing_files_and_fifos_are_not_read(tmp_path):
    assert vertices_up_to(str(tmp_path / "missing.el"), 3) == 3
    fifo = str(tmp_path / "pipe.el")
    os.mkfifo(fifo)
    assert vertices_up_to(fifo, 3) == 3       # opening it would block until a writer came
    assert vertices_up_to(str(tmp_path), 3) == 3


def test_an_empty_edge_list_has_no_vertices(tmp_path):
    assert vertices_up_to(write(tmp_path, "e.el", "# nothing\n"), 4) == 0
