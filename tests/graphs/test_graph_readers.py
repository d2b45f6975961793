"""load_graph: edge lists, Matrix Market, .npz; one test per kind of malformed input."""

import numpy as np
import pytest

from starc.graphs import Graph, GraphFormatError, load_graph, save_npz


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def edges_of(graph):
    src, dst, weights = graph.edge_list()
    if weights is None:
        return list(zip(src.tolist(), dst.tolist()))
    return list(zip(src.tolist(), dst.tolist(), weights.tolist()))


# -- text edge lists ----------------------------------------------------------------------

def test_edge_list_with_comments_and_blank_lines(tmp_path):
    path = write(tmp_path, "g.el", "# header\n\n0 1\n   % indented comment\n2 0\n\t\n1 2\n")
    graph = load_graph(path)
    assert graph.num_nodes == 3 and graph.num_edges == 3
    assert edges_of(graph) == [(0, 1), (1, 2), (2, 0)]
    assert not graph.has_weights and graph.name == path


def test_edge_list_integer_weights(tmp_path):
    graph = load_graph(write(tmp_path, "g.txt", "0 1 5\n1 0 -3\n"))
    assert graph.weights_integral
    assert edges_of(graph) == [(0, 1, 5.0), (1, 0, -3.0)]


def test_edge_list_float_weights(tmp_path):
    graph = load_graph(write(tmp_path, "g.txt", "0 1 5\n1 0 2.5\n0 0 1e3\n"))
    assert not graph.weights_integral
    assert edges_of(graph) == [(0, 0, 1000.0), (0, 1, 5.0), (1, 0, 2.5)]


def test_edge_list_crlf_and_tabs(tmp_path):
    path = tmp_path / "g.el"
    path.write_bytes(b"0\t1\r\n1  2\r\n# c\r\n")
    assert edges_of(load_graph(str(path))) == [(0, 1), (1, 2)]


def test_explicit_num_nodes_adds_isolated_vertices(tmp_path):
    graph = load_graph(write(tmp_path, "g.el", "0 1\n"), num_nodes=5)
    assert graph.num_nodes == 5 and graph.isolated_vertex_count() == 3


def test_empty_file_is_an_empty_graph(tmp_path):
    graph = load_graph(write(tmp_path, "g.el", "# only a comment\n\n"))
    assert graph.num_nodes == 0 and graph.num_edges == 0
    assert load_graph(write(tmp_path, "e.el", ""), num_nodes=4).num_nodes == 4


def test_undirected_symmetrises(tmp_path):
    graph = load_graph(write(tmp_path, "g.el", "0 1 4\n2 2 1\n"), undirected=True)
    assert edges_of(graph) == [(0, 1, 4.0), (1, 0, 4.0), (2, 2, 1.0)]


def test_duplicates_and_self_loops_kept_in_file_order(tmp_path):
    graph = load_graph(write(tmp_path, "g.el", "1 1 7\n0 1 3\n0 1 1\n0 1 2\n"))
    assert edges_of(graph) == [(0, 1, 3.0), (0, 1, 1.0), (0, 1, 2.0), (1, 1, 7.0)]
    assert graph.self_loop_count() == 1 and graph.duplicate_edge_count() == 2


def test_edge_list_matches_networkx(tmp_path):
    import networkx as nx
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 30, size=(200, 2))
    path = write(tmp_path, "g.el", "".join(f"{a} {b}\n" for a, b in pairs))
    graph = load_graph(path)
    reference = nx.MultiDiGraph(pairs.tolist())
    assert graph.num_edges == reference.number_of_edges()
    assert sorted(edges_of(graph)) == sorted((a, b) for a, b, _ in reference.edges(keys=True))


# -- Matrix Market ------------------------------------------------------------------------

def test_mtx_general_integer(tmp_path):
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                    "% comment\n\n3 3 2\n1 2 7\n3 1 -2\n")
    graph = load_graph(path)
    assert graph.num_nodes == 3 and graph.weights_integral
    assert edges_of(graph) == [(0, 1, 7.0), (2, 0, -2.0)]


def test_mtx_symmetric_real_mirrors_off_diagonal(tmp_path):
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                    "4 4 3\n2 1 0.5\n3 3 1\n4 2 2\n")
    graph = load_graph(path)
    assert not graph.weights_integral
    assert edges_of(graph) == [(0, 1, 0.5), (1, 0, 0.5), (1, 3, 2.0), (2, 2, 1.0),
                               (3, 1, 2.0)]


def test_mtx_pattern_and_scipy_agree(tmp_path):
    import scipy.io
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                    "5 5 4\n1 2\n2 3\n5 1\n4 4\n")
    graph = load_graph(path)
    assert not graph.has_weights and graph.num_nodes == 5
    expected = scipy.io.mmread(path).tocsr()
    assert (graph.to_scipy() != expected).nnz == 0


def test_mtx_num_nodes_must_agree(tmp_path):
    path = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                    "3 3 1\n1 2\n")
    assert load_graph(path, num_nodes=3).num_nodes == 3
    with pytest.raises(GraphFormatError, match=r"g\.mtx:2: .*num_nodes=4"):
        load_graph(path, num_nodes=4)


# -- .npz ---------------------------------------------------------------------------------

def test_npz_round_trip_keeps_every_array(tmp_path):
    graph = Graph.from_edges(4, [3, 0, 0], [0, 2, 2], [1.5, 2, 3], weights_integral=False)
    path = str(tmp_path / "g.npz")
    save_npz(graph, path)
    loaded = load_graph(path)
    assert loaded == graph and loaded.name == path
    assert loaded.offsets.dtype == graph.offsets.dtype
    assert load_graph(path, undirected=True) == graph.symmetrised()


# -- malformed input: one test per kind, each naming file and line -------------------------

MALFORMED_EDGE_LISTS = [
    ("non-numeric token", "0 1\n1 x\n", 2, "target id 'x' is not an integer"),
    ("float id", "# c\n0.5 1\n", 2, "source id '0.5' is not an integer"),
    ("one column", "0 1\n\n2\n", 3, "expected 2 or 3 columns, found 1"),
    ("four columns", "0 1 2 3\n", 1, "expected 2 or 3 columns, found 4"),
    ("negative id", "0 1\n-1 2\n", 2, "negative source id -1"),
    ("weights on some lines only", "0 1 3\n1 2\n", 2, "weights on some lines only"),
    ("weights missing at first", "0 1\n1 2 5\n", 2, "weights on some lines only"),
    ("bad weight", "0 1 3\n1 2 heavy\n", 2, "weight 'heavy' is not a number"),
    ("non-finite weight", "0 1 nan\n", 1, "weight 'nan' is not finite"),
    ("mid-line comment", "0 1 # note\n", 1, "expected 2 or 3 columns, found 4"),
]


@pytest.mark.parametrize("kind, text, line, message", MALFORMED_EDGE_LISTS,
                         ids=[case[0] for case in MALFORMED_EDGE_LISTS])
def test_malformed_edge_list(tmp_path, kind, text, line, message):
    path = write(tmp_path, "bad.el", text)
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: {message}")


def test_id_beyond_explicit_num_nodes(tmp_path):
    path = write(tmp_path, "bad.el", "0 1\n1 4\n")
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path, num_nodes=4)
    assert str(caught.value) == f"{path}:2: target id 4 out of range 0..3"


def test_error_found_deep_in_a_large_file(tmp_path):
    lines = [f"{i} {i + 1}" for i in range(20000)]
    lines[15000] = "7 ?"
    path = write(tmp_path, "big.el", "\n".join(lines))
    with pytest.raises(GraphFormatError, match=r"big\.el:15001: target id '\?'"):
        load_graph(path)


def test_missing_file(tmp_path):
    path = str(tmp_path / "absent.el")
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path)
    assert caught.value.line is None
    assert str(caught.value).startswith(f"{path}: cannot open: ")


HEADER = "%%MatrixMarket matrix coordinate integer general\n"

MALFORMED_MTX = [
    ("missing banner", "3 3 1\n1 2 1\n", 1, "missing '%%MatrixMarket' banner"),
    ("bad banner", "%%MatrixMarket matrix coordinate\n3 3 0\n", 1, "bad banner"),
    ("array format", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
     "array (dense) Matrix Market files are not supported"),
    ("complex field", "%%MatrixMarket matrix coordinate complex general\n", 1,
     "unsupported field 'complex'"),
    ("skew symmetry", "%%MatrixMarket matrix coordinate real skew-symmetric\n", 1,
     "unsupported symmetry 'skew-symmetric'"),
    ("bad size line", HEADER + "% c\n3 x 1\n1 2 1\n", 3, "bad size line"),
    ("short size line", HEADER + "3 3\n", 2, "bad size line"),
    ("not square", HEADER + "3 4 1\n1 2 1\n", 2, "matrix is 3x4"),
    ("index zero", HEADER + "3 3 2\n1 2 1\n0 1 1\n", 4, "source id 0 out of range 1..3"),
    ("index too large", HEADER + "3 3 1\n1 4 1\n", 3, "target id 4 out of range 1..3"),
    ("negative index", HEADER + "3 3 1\n-1 2 1\n", 3, "source id -1 out of range 1..3"),
    ("real value in integer file", HEADER + "3 3 1\n1 2 1.5\n", 3,
     "weight '1.5' is not an integer"),
    ("non-numeric entry", HEADER + "3 3 1\n1 b 1\n", 3, "target id 'b' is not an integer"),
    ("pattern with values", "%%MatrixMarket matrix coordinate pattern general\n"
                            "3 3 1\n1 2 1\n", 3, "expected 2 columns, found 3"),
    ("too many entries", HEADER + "3 3 1\n1 2 1\n% c\n2 3 1\n", 5,
     "more entries than the 1 the size line declares"),
    ("too few entries", HEADER + "% c\n3 3 3\n1 2 1\n", 3,
     "the size line declares 3 entries but the file has 1"),
]


@pytest.mark.parametrize("kind, text, line, message", MALFORMED_MTX,
                         ids=[case[0] for case in MALFORMED_MTX])
def test_malformed_mtx(tmp_path, kind, text, line, message):
    path = write(tmp_path, "bad.mtx", text)
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: {message}")


def test_mtx_missing_size_line(tmp_path):
    path = write(tmp_path, "bad.mtx", HEADER + "% only comments\n")
    with pytest.raises(GraphFormatError) as caught:
        load_graph(path)
    assert str(caught.value) == f"{path}: missing size line"


@pytest.mark.parametrize("content", [b"", b"not a zip at all", None])
def test_corrupt_or_foreign_npz(tmp_path, content):
    path = tmp_path / "bad.npz"
    if content is None:
        np.savez(path, data=np.arange(3))  # a valid npz that is not a starc graph
    else:
        path.write_bytes(content)
    with pytest.raises(GraphFormatError) as caught:
        load_graph(str(path))
    assert caught.value.line is None
    assert str(caught.value).startswith(f"{path}: not a starc graph cache")


def test_npz_with_inconsistent_arrays(tmp_path):
    graph = Graph.from_edges(3, [0, 1], [1, 2])
    graph.targets = np.array([1, 7], dtype=np.int32)  # out of range
    path = str(tmp_path / "bad.npz")
    save_npz(graph, path)
    with pytest.raises(GraphFormatError, match="ids out of range"):
        load_graph(path)


def test_chunked_parsing_agrees_and_locates_errors(tmp_path, monkeypatch):
    import starc.inputs as inputs
    lines = ["# weights are integers until the last line"]
    lines += [f"{i % 97} {(i * 7) % 97} {i % 5}" for i in range(3000)] + ["3 4 0.25"]
    path = write(tmp_path, "g.el", "\n".join(lines) + "\n")
    whole = load_graph(path)
    monkeypatch.setattr(inputs, "_CHUNK_BYTES", 64)
    chunked = load_graph(path)
    assert chunked == whole and not chunked.weights_integral
    lines[2500] = "1 2"
    write(tmp_path, "g.el", "\n".join(lines) + "\n")
    with pytest.raises(GraphFormatError, match=r"g\.el:2501: weights on some lines only"):
        load_graph(path)


def test_non_ascii_bytes_are_reported(tmp_path):
    path = tmp_path / "bad.el"
    path.write_bytes("0 1\n1\u00a0 2\n".encode())  # a no-break space is not a separator
    message = r"bad\.el:2: source id '1\\xa0' is not an integer"
    with pytest.raises(GraphFormatError, match=message):
        load_graph(str(path))


# -- bad input (issue 13): limits before allocation, bounded and streaming reading ----------

def test_reading_stops_at_the_first_bad_line(tmp_path, monkeypatch):
    import starc.inputs as inputs
    monkeypatch.setattr(inputs, "_CHUNK_BYTES", 64)
    path = tmp_path / "g.el"
    # Line 2 is bad; what follows would be refused as an over-long line if it were read.
    path.write_bytes(b"0 1\nx 2\n" + b"\0" * (inputs.MAX_LINE_BYTES + 10))
    with pytest.raises(GraphFormatError) as error:
        load_graph(str(path))
    assert (error.value.line, error.value.message) == (2, "source id 'x' is not an integer")


@pytest.mark.parametrize("name", ["g.el", "g.mtx"])
def test_over_long_line_is_refused(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"%%MatrixMarket matrix coordinate pattern general\n" * (name == "g.mtx")
                     + b"1" * (2 << 20))
    with pytest.raises(GraphFormatError) as error:
        load_graph(str(path))
    assert error.value.line == (2 if name == "g.mtx" else 1)
    assert "line is longer than 1 MiB" in error.value.message


def test_dev_zero(tmp_path):
    with pytest.raises(GraphFormatError, match=r"^/dev/zero:1: line is longer than 1 MiB"):
        load_graph("/dev/zero")


def test_vertex_ids_past_the_32_bit_limit_are_refused_at_their_line(tmp_path):
    path = write(tmp_path, "g.el", "0 1\n2147483646 0\n2147483647 0\n")
    with pytest.raises(GraphFormatError) as error:
        load_graph(path, max_vertices=None)
    assert error.value.line == 3
    assert "source id 2147483647 is larger than the largest vertex id allowed, 2147483646" \
        in error.value.message
    with pytest.raises(GraphFormatError, match=r"g\.el:2: source id 2147483646 is larger than "
                                                r"the largest vertex id allowed, 9"):
        load_graph(path, max_vertices=10)


@pytest.mark.parametrize("text, line", [
    ("0 1\n1 2000000000\n", None),
    ("%%MatrixMarket matrix coordinate pattern general\n% c\n2000000000 2000000000 1\n1 2\n", 3),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 100000000\n1 2\n", 2),
])
def test_graphs_larger_than_memory_are_refused_before_allocating(tmp_path, monkeypatch, text,
                                                                  line):
    monkeypatch.setenv("STARC_MAX_MEMORY", "1G")
    name = "g.el" if line is None else "g.mtx"
    with pytest.raises(GraphFormatError) as error:
        load_graph(write(tmp_path, name, text))
    assert error.value.line == line
    assert "of memory but 1.0 GiB is available" in error.value.message


def test_undirected_doubles_the_edges_before_the_memory_check(tmp_path, monkeypatch):
    path = write(tmp_path, "g.el", "".join(f"{i} {i + 1}\n" for i in range(1000)))
    monkeypatch.setenv("STARC_MAX_MEMORY", str(48 * 1001 + 64 * 1000))
    assert load_graph(path).num_edges == 1000
    with pytest.raises(GraphFormatError, match="1001 vertices and 2000 edges need about"):
        load_graph(path, undirected=True)


def test_bad_memory_setting_is_a_usage_error(tmp_path, monkeypatch):
    from starc.errors import UsageError
    monkeypatch.setenv("STARC_MAX_MEMORY", "lots")
    with pytest.raises(UsageError, match="STARC_MAX_MEMORY='lots' is not a size"):
        load_graph(write(tmp_path, "g.el", "0 1\n"))


def test_weight_line_lookup(tmp_path):
    from starc.graphs.readers import first_weight_line
    path = write(tmp_path, "g.el", "# c\n0 1 3\n1 2 2.5\n")
    assert first_weight_line(path, lambda token: "." in token) == (3, "2.5")
    mtx = write(tmp_path, "g.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                   "3 3 2\n1 2 3\n2 3 1e3\n")
    assert first_weight_line(mtx, lambda token: "e" in token) == (4, "1e3")
    assert first_weight_line(str(tmp_path / "none.el"), bool) is None


def test_too_many_mtx_entries_stop_the_reading_at_the_first_extra_one(tmp_path, monkeypatch):
    """The extra entry is found in the piece that holds it, at its own line; the rest of the
    file (here an over-long line) is never read."""
    import starc.inputs as inputs
    monkeypatch.setattr(inputs, "_CHUNK_BYTES", 64)
    entries = "".join(f"{1 + i % 9} {1 + (i * 4) % 9}\n" for i in range(40))
    path = tmp_path / "g.mtx"
    path.write_bytes(("%%MatrixMarket matrix coordinate pattern general\n9 9 30\n"
                      + entries).encode() + b"7" * (inputs.MAX_LINE_BYTES + 10))
    with pytest.raises(GraphFormatError) as error:
        load_graph(str(path))
    assert (error.value.line, error.value.message) == (
        33, "more entries than the 30 the size line declares")


@pytest.mark.parametrize("name", ["g.el", "g.mtx"])
def test_reading_peaks_below_twice_the_csr(tmp_path, monkeypatch, name):
    """Issue 15, item 6: a text graph loads in at most twice the memory of its CSR arrays
    (numpy's allocations, traced), with pieces and key slices small against the graph as
    they are at R-MAT 18. The parsed columns are joined one at a time, sort keys and degree
    counts are built in slices, and the reader's arrays are freed once in CSR order."""
    import tracemalloc
    import starc.graphs.csr as csr
    import starc.inputs as inputs
    monkeypatch.setattr(inputs, "_CHUNK_BYTES", 1 << 16)
    monkeypatch.setattr(csr, "_KEY_SLICE", 1 << 14)
    rng = np.random.default_rng(7)
    nodes, edges = 20000, 200000
    pairs = np.column_stack([rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)])
    path = tmp_path / name
    with open(path, "w") as handle:
        if name == "g.mtx":
            handle.write(f"%%MatrixMarket matrix coordinate pattern general\n"
                         f"{nodes} {nodes} {edges}\n")
            pairs += 1
        np.savetxt(handle, pairs, fmt="%d")
    tracemalloc.start()
    try:
        graph = load_graph(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    csr = sum(array.nbytes for array in (graph.offsets, graph.targets, graph.sources,
                                         graph.rev_offsets, graph.rev_sources,
                                         graph.rev_edge_ids))
    assert graph.num_edges == edges
    assert peak <= 2 * csr, f"peak {peak / csr:.2f}x the CSR"
