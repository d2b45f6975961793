"""Writers: write -> read round trips for edge lists, Matrix Market and .npz."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from starc.graphs import Graph, load_graph, save_npz, write_edge_list, write_mtx

FORMATS = {"el": write_edge_list, "mtx": write_mtx, "npz": save_npz}


def sample_graphs():
    rng = np.random.default_rng(11)
    src, dst = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    return {
        "unweighted": Graph.from_edges(42, src, dst),  # 40, 41 isolated
        "integer": Graph.from_edges(40, src, dst, rng.integers(-50, 50, 300)),
        "real": Graph.from_edges(40, src, dst, rng.normal(size=300), weights_integral=False),
        "loops and duplicates": Graph.from_edges(3, [1, 1, 0, 0], [1, 1, 2, 2], [4, 3, 2, 1]),
    }


@pytest.mark.parametrize("extension", sorted(FORMATS))
@pytest.mark.parametrize("kind", sorted(sample_graphs()))
def test_round_trip(tmp_path, extension, kind):
    graph = sample_graphs()[kind]
    path = str(tmp_path / f"g.{extension}")
    FORMATS[extension](graph, path)
    loaded = load_graph(path, num_nodes=graph.num_nodes)
    assert loaded == graph


def test_edge_list_text_is_plain(tmp_path):
    graph = Graph.from_edges(3, [2, 0], [0, 1], [7, 2.5], weights_integral=False, name="x")
    path = tmp_path / "g.el"
    write_edge_list(graph, str(path))
    assert path.read_text().splitlines()[1:] == ["0 1 2.5", "2 0 7.0"]
    integral = Graph.from_edges(3, [2, 0], [0, 1], [7, 2], name="x")
    write_edge_list(integral, str(path))
    assert path.read_text().splitlines() == ["# x: 3 vertices, 2 edges", "0 1 2", "2 0 7"]


def test_mtx_text_is_standard(tmp_path):
    import scipy.io
    graph = Graph.from_edges(3, [2, 0], [0, 1], [7, 2], name="multi\nline name")
    path = tmp_path / "g.mtx"
    write_mtx(graph, str(path))
    lines = path.read_text().splitlines()
    assert lines == ["%%MatrixMarket matrix coordinate integer general",
                     "% multi line name", "3 3 2", "1 2 2", "3 1 7"]
    assert scipy.io.mmread(str(path)).toarray().tolist() == [[0, 2, 0], [0, 0, 0], [7, 0, 0]]


def test_unweighted_mtx_is_pattern(tmp_path):
    path = tmp_path / "g.mtx"
    write_mtx(Graph.from_edges(2, [0], [1]), str(path))
    assert path.read_text().startswith("%%MatrixMarket matrix coordinate pattern general\n")


def test_npz_keeps_the_name_out_of_the_path(tmp_path):
    path = tmp_path / "cache"  # no .npz suffix: save_npz must not add one
    save_npz(Graph.from_edges(2, [0], [1]), str(path))
    assert path.exists()


weights_kind = st.sampled_from(["none", "int", "real"])


@st.composite
def edge_lists(draw):
    num_nodes = draw(st.integers(1, 12))
    ids = st.integers(0, num_nodes - 1)
    pairs = draw(st.lists(st.tuples(ids, ids), max_size=40))
    kind = draw(weights_kind)
    weights = None
    if kind == "int":
        weights = draw(st.lists(st.integers(-10**9, 10**9), min_size=len(pairs),
                                max_size=len(pairs)))
    elif kind == "real":
        weights = draw(st.lists(st.floats(allow_nan=False, allow_infinity=False),
                                min_size=len(pairs), max_size=len(pairs)))
    src = np.array([a for a, _ in pairs], dtype=np.int64)
    dst = np.array([b for _, b in pairs], dtype=np.int64)
    return Graph.from_edges(num_nodes, src, dst, weights, weights_integral=kind != "real")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=edge_lists(), extension=st.sampled_from(sorted(FORMATS)))
def test_hypothesis_round_trip(tmp_path, graph, extension):
    path = str(tmp_path / f"h.{extension}")
    FORMATS[extension](graph, path)
    loaded = load_graph(path, num_nodes=graph.num_nodes)
    if extension == "el" and graph.num_edges == 0:
        # An edge list with no lines cannot say whether the graph was weighted.
        assert loaded.num_nodes == graph.num_nodes and loaded.num_edges == 0
        return
    assert loaded == graph
