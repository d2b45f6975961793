"""The vectorised integer path of the text reader (starc.graphs.tokens) agrees with the
splitting path on every piece it accepts, and hands every other piece to it."""

import numpy as np
import pytest

import starc.graphs.readers as readers
from starc.graphs import GraphFormatError, load_graph
from starc.graphs.tokens import parse_integers, scan_piece


@pytest.mark.parametrize("text,counts,integers", [
    (b"0 1\n2 3\n", [2, 2, 0], True),
    (b"  +0\t-1 \r\n\n7", [2, 0, 1], True),
    (b"0 1.5\n", [2, 0], False),
    (b"5-3 1\n", [2, 0], False),                  # a sign inside a token
    (b"1 +\n", [2, 0], False),                    # lone signs: numpy reads 0 or joins
    (b"- 1\n", [2, 0], False),
    (b"1 -", [2], False),
    (b"0 x\n", [2, 0], False),
    (b"", [0], True),
])
def test_scan_piece_counts_tokens_per_line(text, counts, integers):
    got_counts, got_integers = scan_piece(text)
    assert got_counts.tolist() == counts and got_integers == integers
    assert got_counts.tolist() == [len(line.split()) for line in text.split(b"\n")]


@pytest.mark.parametrize("text", [b"1 99999999999999999999\n", b"1 -99999999999999999999"])
def test_parse_integers_refuses_what_numpy_cannot_read_exactly(text):
    counts, integers = scan_piece(text)
    assert integers
    assert parse_integers(text, int(counts.sum())) is None


TEXTS = [
    "# header\n% other\n0 1 5\n1 2 -3\n  2 0 +7\n\n0 1 5\n",
    "0 1\n1 2\n# a comment in the middle\n2 2\n0 1\n",
    "0 1 99999999999999999999\n1 0 2\n",          # too large for int64: a real weight
    "0 1 1\n1 2 2.5\n",
    "007 1\n1 0\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_fast_and_splitting_paths_give_the_same_graph(tmp_path, monkeypatch, text):
    path = tmp_path / "g.el"
    path.write_text(text)
    fast = load_graph(str(path))
    monkeypatch.setattr(readers, "parse_integers", lambda data, tokens: None)
    slow = load_graph(str(path))
    assert fast == slow and fast.weights_integral == slow.weights_integral


@pytest.mark.parametrize("text,line,message", [
    ("0 1\n5-3 1\n", 2, "source id '5-3' is not an integer"),
    ("0 1\n- 1\n", 2, "source id '-' is not an integer"),
    ("0 1\n1 +\n", 2, "target id '+' is not an integer"),
    ("0 1\n1 -2\n", 2, "negative target id -2"),
    ("0 1\n1 2 3\n", 2, "weights on some lines only"),
])
def test_errors_found_by_the_fast_path_are_located(tmp_path, text, line, message):
    path = tmp_path / "g.el"
    path.write_text(text)
    with pytest.raises(GraphFormatError) as caught:
        load_graph(str(path))
    assert caught.value.line == line and message in str(caught.value)


def test_pieces_of_a_large_file_agree_with_one_piece(tmp_path, monkeypatch):
    import starc.inputs as inputs
    rng = np.random.default_rng(5)
    edges = rng.integers(0, 1000, size=(20000, 3))
    path = tmp_path / "g.el"
    path.write_text("# big\n" + "".join(f"{a} {b} {w}\n" for a, b, w in edges.tolist()))
    whole = load_graph(str(path))
    monkeypatch.setattr(inputs, "_CHUNK_BYTES", 4096)
    assert load_graph(str(path)) == whole
    np.testing.assert_array_equal(np.sort(whole.weights), np.sort(edges[:, 2]))
