"""The shared C++ runtime (starc_runtime.hpp): graph reading, command line, results, exit codes.

A small driver (runtime_driver.cpp) is compiled once per session with g++ and run on files
written here; its CSR dump is compared with the Python reader (``starc.graphs.load_graph``)
or, where that is not importable, with a numpy reference computed in this file.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from starc.backends.common.runtime_paths import RUNTIME_DIR, RUNTIME_HEADER

HERE = Path(__file__).resolve().parent
DRIVER_SOURCE = HERE / "runtime_driver.cpp"
GXX = shutil.which("g++")
NVCC = shutil.which("nvcc") or (
    "/usr/local/bin/nvcc" if os.access("/usr/local/bin/nvcc", os.X_OK) else None)

try:  # the Python reader is the oracle whenever it is available
    from starc.graphs import load_graph as _load_graph
except ImportError:
    try:
        from starc.graphs.readers import load_graph as _load_graph
    except ImportError:
        _load_graph = None

try:
    from starc.graphs.errors import GraphFormatError
except ImportError:
    GraphFormatError = None

needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ not found")
CXXFLAGS = ["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME_DIR}"]


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    if GXX is None:
        pytest.skip("g++ not found")
    exe = tmp_path_factory.mktemp("runtime") / "runtime_driver"
    result = subprocess.run([GXX, *CXXFLAGS, str(DRIVER_SOURCE), "-o", str(exe)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return exe


def run(driver: Path, *args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([str(driver), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


# -- graph reading -------------------------------------------------------------------------

INDEX_FIELDS = ("offsets", "targets", "sources", "rev_offsets", "rev_sources", "rev_edge_ids")


def parse_dump(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        name, *values = line.split()
        if name == "weights":
            out[name] = np.array([float(v) for v in values], dtype=np.float64)
        elif name in INDEX_FIELDS:
            out[name] = np.array([int(v) for v in values], dtype=np.int64)
        else:
            out[name] = int(values[0])
    return out


def _reference_edges(path: Path):
    """A tiny independent reader for well-formed files: (n, src, dst, weights, integral)."""
    lines = path.read_text().split("\n")
    src, dst, weights, integral = [], [], [], True
    if path.suffix.lower() == ".mtx":
        banner = lines[0].lower().split()
        field, symmetric = banner[3], banner[4] == "symmetric"
        body = [line.split() for line in lines[1:]
                if line.strip() and line.strip()[0] not in "%#"]
        n = int(body[0][0])
        for row in body[1:]:
            src.append(int(row[0]) - 1)
            dst.append(int(row[1]) - 1)
            if field != "pattern":
                weights.append(float(row[2]))
                integral &= re.fullmatch(r"[+-]?\d+", row[2]) is not None
        if symmetric:
            for k in range(len(src)):
                if src[k] != dst[k]:
                    src.append(dst[k])
                    dst.append(src[k])
                    if weights:
                        weights.append(weights[k])
        return n, src, dst, (weights if field != "pattern" else None), integral
    for line in lines:
        tokens = line.split()
        if not tokens or tokens[0][0] in "#%":
            continue
        src.append(int(tokens[0]))
        dst.append(int(tokens[1]))
        if len(tokens) == 3:
            weights.append(float(tokens[2]))
            integral &= re.fullmatch(r"[+-]?\d+", tokens[2]) is not None
    n = max(src + dst) + 1 if src else 0
    return n, src, dst, (weights if weights else None), integral


def numpy_reference(path: Path, undirected: bool) -> dict:
    n, src, dst, weights, integral = _reference_edges(path)
    src, dst = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    w = None if weights is None else np.array(weights, dtype=np.float64)
    if undirected:
        keep = src != dst
        src, dst = np.concatenate([src, dst[keep]]), np.concatenate([dst, src[keep]])
        if w is not None:
            w = np.concatenate([w, w[keep]])
    order = np.lexsort((dst, src))  # stable: equal (src, dst) keep input order
    sources, targets = src[order], dst[order]
    rev = np.argsort(targets, kind="stable")
    return {
        "num_nodes": n, "num_edges": len(src),
        "has_weights": int(w is not None), "weights_integral": int(integral or w is None),
        "offsets": np.concatenate([[0], np.cumsum(np.bincount(sources, minlength=n))]),
        "targets": targets, "sources": sources,
        "rev_offsets": np.concatenate([[0], np.cumsum(np.bincount(targets, minlength=n))]),
        "rev_sources": sources[rev], "rev_edge_ids": rev,
        "weights": w[order] if w is not None else np.zeros(0),
    }


def python_reader(path: Path, undirected: bool) -> dict:
    g = _load_graph(str(path), undirected=undirected)
    out = {name: np.asarray(getattr(g, name), dtype=np.int64) for name in INDEX_FIELDS}
    out.update(num_nodes=g.num_nodes, num_edges=g.num_edges, has_weights=int(g.has_weights),
               weights_integral=int(g.weights_integral),
               weights=g.weights if g.weights is not None else np.zeros(0))
    return out


def assert_same_graph(got: dict, expected: dict) -> None:
    for key in ("num_nodes", "num_edges", "has_weights", "weights_integral"):
        assert got[key] == expected[key], key
    for key in (*INDEX_FIELDS, "weights"):
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def _random_edge_list() -> str:
    rng = np.random.default_rng(7)
    m = 3000
    src = rng.integers(0, 200, m)
    dst = rng.integers(0, 200, m)
    dst[:300] = src[:300]  # self-loops
    src[300:600], dst[300:600] = src[600:900], dst[600:900]  # duplicates with other weights
    weights = rng.integers(-50, 50, m) / 4
    return "".join(f"{a} {b} {w!r}\n" for a, b, w in zip(src.tolist(), dst.tolist(), weights.tolist()))


GRAPHS = {
    "comments_weights.el": (
        "# a header comment\n% another kind\n\n0 1 2\n   # indented comment\n"
        "1 0 3.5\n1\t0 1\n2 2 4\n0 1 7\r\n3 0 -1.25e1\n  \t \n"),
    "unweighted_dups_loops.txt": "0 3\n3 0\n0 3\n5 5\n0 3\n2 2\n",
    "integer_weights.el": "0 1 5\n1 2 -3\n2 0 +7\n0 1 5\n",
    "only_comments.el": "# nothing here\n\n% still nothing\n",
    "symmetric_real.mtx": (
        "%%MatrixMarket matrix coordinate real symmetric\n% comment\n4 4 4\n"
        "2 1 1.5\n3 3 2\n4 1 4\n4 2 -0.25\n"),
    "general_pattern.mtx": (
        "%%matrixmarket MATRIX Coordinate Pattern General\n%\n5 5 5\n1 2\n2 1\n1 2\n5 5\n3 4\n"),
    "integer_general.mtx": (
        "%%MatrixMarket matrix coordinate integer general\n# hash comment\n3 3 3\n"
        "1 2 10\n\n2 3 -4\n3 1 6\n"),
    "symmetric_pattern_duplicates.mtx": (
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n2 1\n1 2\n3 3\n2 1\n"),
    "random_weighted.el": _random_edge_list(),
}


@needs_gxx
@pytest.mark.parametrize("undirected", [False, True], ids=["directed", "undirected"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_csr_matches_reference(driver, tmp_path, name, undirected):
    path = tmp_path / name
    path.write_text(GRAPHS[name], newline="")
    result = run(driver, "dump", path, *(["--undirected"] if undirected else []))
    assert result.returncode == 0, result.stderr
    got = parse_dump(result.stdout)
    assert_same_graph(got, numpy_reference(path, undirected))
    if _load_graph is not None:
        assert_same_graph(got, python_reader(path, undirected))


@needs_gxx
def test_binned_order_matches_the_model(driver, tmp_path):
    """``Graph::binned_order`` (runs of 4 in the driver) is the order the SIMT model counts
    (starc.teaching.simt.binned_order), on a graph with whole runs of heavy vertices, and a
    permutation of the vertices."""
    from starc.graphs import load_graph, rmat, write_edge_list
    from starc.teaching.simt import binned_order
    path = tmp_path / "rmat.el"
    write_edge_list(rmat(7, edge_factor=4, seed=2), path)
    graph = load_graph(str(path))
    result = run(driver, "order", path)
    assert result.returncode == 0, result.stderr
    lines = dict((line.split()[0], [int(v) for v in line.split()[1:]])
                 for line in result.stdout.splitlines())
    for name, offsets in (("in_binned_order", graph.rev_offsets),
                          ("out_binned_order", graph.offsets)):
        degrees = np.diff(offsets)
        assert (degrees >= 4).sum() >= 8 and (degrees < 4).sum() >= 8
        assert lines[name] == binned_order(degrees, run=4).tolist()
        assert sorted(lines[name]) == list(range(graph.num_nodes))


@needs_gxx
def test_csr_of_a_small_file_by_hand(driver, tmp_path):
    path = tmp_path / "g.el"
    path.write_text("1 0 5\n0 2 1\n0 1 2\n0 1 3\n2 2 9\n")
    got = parse_dump(run(driver, "dump", path).stdout)
    assert (got["num_nodes"], got["num_edges"]) == (3, 5)
    assert got["offsets"].tolist() == [0, 3, 4, 5]
    assert got["targets"].tolist() == [1, 1, 2, 0, 2]
    assert got["sources"].tolist() == [0, 0, 0, 1, 2]
    assert got["weights"].tolist() == [2, 3, 1, 5, 9]  # duplicates 0->1 keep file order
    assert got["rev_offsets"].tolist() == [0, 1, 3, 5]
    assert got["rev_sources"].tolist() == [1, 0, 0, 0, 2]
    assert got["rev_edge_ids"].tolist() == [3, 0, 1, 2, 4]
    assert got["weights_integral"] == 1


BANNER = "%%MatrixMarket matrix coordinate real general\n"
# name: (file name, content, line of the error or None for whole-file problems, fragment)
MALFORMED = {
    "non_numeric_id": ("g.el", "0 1\n1 x\n", 2, "'x'"),
    "non_integer_id": ("g.el", "0 1\n1.5 2\n", 2, "'1.5'"),
    "one_column": ("g.el", "0 1\n\n7\n", 3, "found 1"),
    "four_columns": ("g.el", "# c\n0 1 2 3\n", 2, "found 4"),
    "negative_id": ("g.el", "0 1\n-1 2\n", 2, "negative"),
    "id_too_large": ("g.el", "0 4294967296\n", 1, "32-bit"),
    "weights_some_lines_only": ("g.el", "0 1 1\n1 2\n", 2, "weight"),
    "weight_missing_later": ("g.el", "0 1\n1 2 5\n", 2, "weight"),
    "non_numeric_weight": ("g.el", "0 1 abc\n", 1, "'abc'"),
    "hexadecimal_weight": ("g.el", "0 1 0x10\n", 1, "'0x10'"),
    "non_finite_weight": ("g.el", "0 1 2\n1 2 inf\n", 2, "finite"),
    "mtx_entry_out_of_range": ("g.mtx", BANNER + "3 3 2\n1 2 1\n4 1 1\n", 4, "out of range"),
    "mtx_entry_zero_index": ("g.mtx", BANNER + "3 3 1\n0 1 1\n", 3, "out of range"),
    "mtx_entry_negative_index": ("g.mtx", BANNER + "3 3 2\n1 2 1\n-2 1 1\n", 4,
                                 "source id -2 out of range 1..3"),
    "mtx_bad_banner": ("g.mtx", "%%MatrixMarket matrix array real general\n3 3 0\n", 1, "array"),
    "mtx_missing_banner": ("g.mtx", "3 3 0\n", 1, "banner"),
    "mtx_bad_field": ("g.mtx", "%%MatrixMarket matrix coordinate complex general\n", 1, "complex"),
    "mtx_bad_size_line": ("g.mtx", BANNER + "% c\n3 3\n", 3, "size line"),
    "mtx_not_square": ("g.mtx", BANNER + "3 4 0\n", 2, "3x4"),
    "mtx_missing_size_line": ("g.mtx", BANNER + "% only a comment\n", None, "size line"),
    "mtx_too_many_entries": ("g.mtx", BANNER + "3 3 1\n1 2 1\n2 3 1\n", 4, "more entries"),
    "mtx_too_few_entries": ("g.mtx", BANNER + "3 3 3\n1 2 1\n", 2, "declares 3 entries"),
    "mtx_wrong_column_count": ("g.mtx", BANNER + "3 3 1\n1 2\n", 3, "columns"),
    "mtx_integer_field_real_value": (
        "g.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", 3, "integer"),
}

# Limits of the C++ runtime only (none now: both readers refuse ids past 2^31-2).
CXX_ONLY: set = set()


@needs_gxx
@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_malformed_input_is_reported_with_path_and_line(driver, tmp_path, kind):
    name, content, line, fragment = MALFORMED[kind]
    path = tmp_path / name
    path.write_text(content)
    result = run(driver, "dump", path)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    message = result.stderr.strip()
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert message.startswith(f"runtime_driver: error: {where}"), message
    assert fragment in message
    assert "\n" not in message  # one line, no usage hint for input errors
    if _load_graph is not None and GraphFormatError is not None and kind not in CXX_ONLY:
        with pytest.raises(GraphFormatError) as python_error:  # both readers reject it
            _load_graph(str(path))
        assert python_error.value.line == line
        # one wording for both readers: a generated program and the reference say the same
        assert message == f"runtime_driver: error: {python_error.value}"


@needs_gxx
def test_a_directory_as_the_graph_is_worded_as_the_python_reader(driver, tmp_path):
    path = tmp_path / "g.el"
    path.mkdir()
    result = run(driver, "dump", path)
    assert result.returncode == 1
    assert result.stderr == f"runtime_driver: error: {path}: cannot open: it is a directory\n"
    if _load_graph is not None and GraphFormatError is not None:
        with pytest.raises(GraphFormatError) as python_error:
            _load_graph(str(path))
        assert str(python_error.value) == f"{path}: cannot open: it is a directory"


@needs_gxx
def test_missing_file_is_an_input_error(driver, tmp_path):
    path = tmp_path / "missing.el"
    result = run(driver, "dump", path)
    assert result.returncode == 1
    assert result.stderr.startswith(f"runtime_driver: error: {path}: cannot open")


@needs_gxx
def test_npz_is_rejected_with_a_hint(driver, tmp_path):
    path = tmp_path / "g.npz"
    np.savez(path, offsets=np.zeros(1))
    result = run(driver, "dump", path)
    assert result.returncode == 1
    assert f"{path}: " in result.stderr
    assert "starc graph convert g.npz g.sg" in result.stderr


# -- the command line ----------------------------------------------------------------------

@pytest.fixture
def small_graph(tmp_path) -> Path:
    path = tmp_path / "small.el"
    path.write_text("0 1\n1 2\n2 3\n3 4\n")
    return path


def read_params(stdout: str) -> dict:
    return dict(line.partition(" ")[::2] for line in stdout.splitlines())


@needs_gxx
def test_options_in_both_spellings_and_backend_extras(driver, small_graph):
    result = run(driver, "params", small_graph, "--src=2", "--sourceSet", "0,4,1",
                 "--beta", "1e-3", "--alpha=0.1", "--maxIter", "-5", "--big", "99999999999",
                 "--flag", "true", "--device", "gpu", "--block-size=256", "--time",
                 "--undirected", "--out", "r.txt")
    assert result.returncode == 0, result.stderr
    got = read_params(result.stdout)
    assert got["src"] == "2"
    assert got["sourceSet"] == "0 4 1"
    assert float(got["beta"]) == 1e-3
    assert got["alpha"] == "%.9g" % float(np.float32(0.1))
    assert got["maxIter"] == "-5"
    assert got["big"] == "99999999999"
    assert got["flag"] == "1"
    assert (got["undirected"], got["time"], got["out"]) == ("1", "1", "[r.txt]")
    assert (got["device"], got["block-size"]) == ("[gpu]", "[256]")
    assert got["extra"] == "[--device] [gpu] [--block-size] [256]"


@needs_gxx
def test_optional_parameters_absent_and_extra_fallback(driver, small_graph):
    result = run(driver, "params", small_graph, "--src", "0", "--flag", "0")
    assert result.returncode == 0, result.stderr
    got = read_params(result.stdout)
    assert "beta" not in got and "sourceSet" not in got
    assert got["flag"] == "0"
    assert (got["device"], got["block-size"], got["out"]) == ("[cpu]", "[none]", "[]")


@needs_gxx
def test_missing_graph_file_is_a_usage_error(driver):
    result = run(driver, "params", "--src", "0")
    assert result.returncode == 2
    assert "missing GRAPH_FILE" in result.stderr
    assert "usage:" in result.stderr


@needs_gxx
def test_missing_required_parameter_names_it(driver, small_graph):
    result = run(driver, "params", small_graph, "--beta", "0.5")
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first.startswith("runtime_driver: error: missing required option --src")
    assert "--src NODE" in result.stderr  # the usage hint


@pytest.mark.parametrize("args, fragment", [
    (["--src", "x"], "--src expects a node id (a non-negative integer), got 'x'"),
    (["--src", "-1"], "--src expects a node id"),
    (["--src", "1", "--maxIter", "1.5"], "--maxIter expects an integer"),
    (["--src", "1", "--maxIter", "4294967296"], "--maxIter expects an integer (32-bit)"),
    (["--src", "1", "--big", "1e3"], "--big expects an integer"),
    (["--src", "1", "--beta", "abc"], "--beta expects a number, got 'abc'"),
    (["--src", "1", "--alpha="], "--alpha expects a number, got ''"),
    (["--src", "1", "--flag", "yes"], "--flag expects a boolean"),
    (["--src", "1", "--sourceSet", "0,,2"], "--sourceSet expects a comma-separated list"),
    (["--src", "1", "--sourceSet", "0,-2"], "--sourceSet expects"),
    (["--src", "9"], "--src expects a node id (0..4), got '9' ("),
    (["--src", "0", "--sourceSet", "1,5"],
     "--sourceSet expects a comma-separated list of node ids, e.g. 0,5,9, got '1,5' "
     "(5 is out of range: "),
    (["--src", "0", "--sourceSet", "3,1,3,1"],      # as the reference words it
     "--sourceSet expects a comma-separated list of node ids, e.g. 0,5,9, got '3,1,3,1' "
     "(1 is given twice)"),
    (["--src"], "--src needs a value"),
    (["--src", "0", "--device"], "--device needs a value"),
    (["--src", "0", "--time=1"], "--time takes no value"),
    (["--src", "0", "other.el"], "unexpected argument 'other.el'"),
    (["--src", "1", "--src", "0"], "--src given twice"),
], ids=lambda value: value if isinstance(value, str) else " ".join(value))
@needs_gxx
def test_bad_option_values_are_usage_errors(driver, small_graph, args, fragment):
    result = run(driver, "params", small_graph, *args)
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("runtime_driver: error: "), result.stderr
    assert fragment in result.stderr.splitlines()[0]


@needs_gxx
def test_help_prints_usage_and_exits_zero(driver, small_graph):
    result = run(driver, "params", "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: ")
    assert "--sourceSet NODE,NODE,..." in result.stdout and "(required)" in result.stdout


# -- the results format --------------------------------------------------------------------

VALUES = [0.1, 1 / 3, -2.5, 1e20, 123456789.123, 1e-300, 5e-324, 0.0, -0.0, 2.0 ** 53 + 2,
          1.7976931348623157e308, 3.4028234663852886e38, float("inf"), float("-inf"),
          float("nan"), 7.0, -1e-7]


def expected_results(graph: str) -> list:
    lines = [f"# starc results: results backend=test graph={graph}"]
    with np.errstate(over="ignore"):
        floats = [float(np.float32(x)) for x in VALUES]
    lines += [f"d {i} {'%.17g' % x}" for i, x in enumerate(VALUES)]
    lines += [f"f {i} {'%.9g' % x}" for i, x in enumerate(floats)]
    lines += [f"i {i} {-i * 1000003}" for i in range(len(VALUES))]
    lines += [f"l {i} {i * 1000000000007 - 5}" for i in range(len(VALUES))]
    lines += [f"b {i} {int(i % 3 == 0)}" for i in range(len(VALUES))]
    lines += [f"u {i} {i % 2}" for i in range(len(VALUES))]
    lines += [f"return {'%.17g' % VALUES[0]}", f"return {'%.9g' % floats[0]}",
              "return -7", "return 123456789012345", "return 1"]
    return lines


@needs_gxx
def test_results_format_matches_python_formatting(driver, small_graph, tmp_path):
    values = tmp_path / "values.txt"
    values.write_text("\n".join(repr(x) for x in VALUES) + "\n")
    result = run(driver, "results", small_graph, "--values", values)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected_results(str(small_graph))
    assert all(not math.isnan(float(line.split()[-1])) or line.endswith(" nan")
               for line in result.stdout.splitlines()[1:])


@needs_gxx
def test_results_to_out_file_and_time_on_stderr(driver, small_graph, tmp_path):
    values = tmp_path / "values.txt"
    values.write_text("0.5\n")
    out = tmp_path / "results.txt"
    result = run(driver, "results", small_graph, "--values", values, "--out", out, "--time")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert re.fullmatch(r"starc-time \d+\.\d{6}\n", result.stderr)
    lines = out.read_text().splitlines()
    assert lines[0] == f"# starc results: results backend=test graph={small_graph}"
    assert lines[1] == "d 0 0.5" and lines[-1] == "return 1"


@needs_gxx
@pytest.mark.parametrize("where", ["missing_dir", "a_directory", "under_a_file"])
def test_unwritable_out_file_is_a_usage_error_before_the_run(driver, small_graph, tmp_path,
                                                             where):
    values = tmp_path / "values.txt"
    values.write_text("0.5\n")
    out = {"missing_dir": tmp_path / "no" / "such" / "dir.txt", "a_directory": tmp_path,
           "under_a_file": values / "r.txt"}[where]
    before = sorted(tmp_path.rglob("*"))
    result = run(driver, "results", small_graph, "--values", values, "--out", out)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"runtime_driver: error: cannot write '{out}': ")
    assert result.stdout == ""
    assert sorted(tmp_path.rglob("*")) == before      # nothing half-written


@needs_gxx
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full device here")
@pytest.mark.parametrize("to", ["stdout", "--out"])
def test_results_that_cannot_be_written_are_status_2_with_the_reason(driver, small_graph,
                                                                      tmp_path, to):
    """A full disk at the end of a run: the reason, status 2 as for an --out path that
    cannot be opened (it was status 3, which asks the user to report a bug in starc)."""
    values = tmp_path / "values.txt"
    values.write_text("0.5\n")
    args = [str(driver), "results", small_graph, "--values", values]
    if to == "--out":
        result = run(driver, *args[1:], "--out", "/dev/full")
    else:
        with open("/dev/full", "w") as full:
            result = subprocess.run(list(map(str, args)), stdout=full, stderr=subprocess.PIPE,
                                    text=True, timeout=120)
    target = "stdout" if to == "stdout" else "/dev/full"
    assert (result.returncode, result.stderr) == (
        2, f"runtime_driver: error: cannot write results to {target}: No space left on device\n")


@needs_gxx
def test_out_onto_a_fifo_writes_in_place(driver, small_graph, tmp_path):
    # A rename onto an existing device (/dev/null as root) would replace it: a FIFO stands in.
    import stat
    import threading
    values = tmp_path / "values.txt"
    values.write_text("0.5\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run(driver, "results", small_graph, "--values", values, "--out", fifo)
    reader.join(30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got[0].splitlines()[1] == "d 0 0.5"


# -- bad input (issue 13): exact option names, bounded reading, size limits -----------------

@needs_gxx
@pytest.mark.parametrize("option", ["--foo", "--d", "--sr", "--dev"])
def test_unknown_options_are_usage_errors(driver, small_graph, option):
    result = run(driver, "params", small_graph, "--src", "0", option, "3")
    assert result.returncode == 2, result.stdout
    assert f"unknown option '{option}' (params takes: --src, --sourceSet" in result.stderr
    assert result.stdout == ""


@needs_gxx
def test_dev_zero_is_refused_after_one_long_line(driver):
    result = run(driver, "dump", "/dev/zero")
    assert result.returncode == 1
    assert result.stderr == ("runtime_driver: error: /dev/zero:1: line is longer than 1 MiB; "
                             "is this a text graph file?\n")


@needs_gxx
def test_huge_but_32_bit_id_is_refused_before_allocating(driver, tmp_path):
    path = tmp_path / "big.el"
    path.write_text("0 1\n1 2000000000\n")
    env = dict(os.environ, STARC_MAX_MEMORY="1G")
    result = subprocess.run([str(driver), "dump", str(path)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith(f"runtime_driver: error: {path}: 2000000001 vertices and "
                                    "2 edges need about 89.4 GiB of memory but 1.0 GiB")
    with pytest.raises(GraphFormatError, match="2000000001 vertices and 2 edges need about "
                                               "89.4 GiB of memory but 1.0 GiB"):
        os.environ["STARC_MAX_MEMORY"] = "1G"
        try:
            _load_graph(str(path))
        finally:
            del os.environ["STARC_MAX_MEMORY"]


@needs_gxx
def test_a_small_memory_limit_is_worded_in_small_units_as_the_reader_words_it(driver,
                                                                               tmp_path):
    """Not '0.0 GiB ... 0.0 GiB', and no 'are the ids dense?' where they are."""
    path = tmp_path / "dense.el"
    path.write_text("".join(f"{i} {(i + 1) % 64}\n" for i in range(64)) * 4)
    env = dict(os.environ, STARC_MAX_MEMORY="1K")
    result = subprocess.run([str(driver), "dump", str(path)], capture_output=True, text=True,
                            env=env, timeout=60)
    message = (f"{path}: 64 vertices and 256 edges need about 19.0 KiB of memory but 1.0 KiB "
               "is available")
    assert (result.returncode, result.stderr) == (1, f"runtime_driver: error: {message}\n")
    with pytest.raises(GraphFormatError) as error:
        os.environ["STARC_MAX_MEMORY"] = "1K"
        try:
            _load_graph(str(path))
        finally:
            del os.environ["STARC_MAX_MEMORY"]
    assert str(error.value) == message


@needs_gxx
def test_max_vertices_limits_ids_at_their_line(driver, tmp_path, small_graph):
    result = run(driver, "dump", small_graph, "--max-vertices", "4")
    assert result.returncode == 1
    assert result.stderr == (f"runtime_driver: error: {small_graph}:4: target id 4 is larger "
                             "than the largest vertex id allowed, 3 (--max-vertices; 32-bit ids)\n")
    assert run(driver, "dump", small_graph, "--max-vertices", "5").returncode == 0
    bad = run(driver, "dump", small_graph, "--max-vertices", "0")
    assert bad.returncode == 2 and "--max-vertices expects an integer" in bad.stderr


@needs_gxx
def test_matrix_market_size_line_is_checked_before_reading_entries(driver, tmp_path):
    path = tmp_path / "g.mtx"
    path.write_text("%%MatrixMarket matrix coordinate pattern general\n"
                    "2000000000 2000000000 1\n1 2\n")
    env = dict(os.environ, STARC_MAX_MEMORY="1G")
    result = subprocess.run([str(driver), "dump", str(path)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith(f"runtime_driver: error: {path}:2: 2000000000 vertices")


# -- portability ---------------------------------------------------------------------------

def test_runtime_headers_are_package_data():
    assert RUNTIME_HEADER.is_file()
    names = {path.name for path in RUNTIME_DIR.glob("*.hpp")}
    assert {"starc_runtime.hpp", "starc_graph.hpp", "starc_graph_binary.hpp",
            "starc_graph_text.hpp", "starc_cli.hpp", "starc_results.hpp", "starc_support.hpp",
            "starc_degree_order.hpp", "starc_update_stream.hpp", "starc_updates.hpp",
            "starc_slack_rows.hpp", "starc_slot_change.hpp"} <= names


@needs_gxx
def test_header_compiles_with_strict_warnings(tmp_path):
    result = subprocess.run(
        [GXX, "-std=c++17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow",
         "-Werror", "-fsyntax-only", "-x", "c++", str(RUNTIME_HEADER)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@needs_gxx
@pytest.mark.parametrize("header", sorted(path.name for path in RUNTIME_DIR.glob("*.hpp")))
def test_each_header_compiles_on_its_own(tmp_path, header):
    """A header split off another (starc_graph_text.hpp, starc_update_stream.hpp ...) includes
    what it uses: a driver or test may include it first."""
    (tmp_path / "alone.cpp").write_text(f'#include "{header}"\n')
    result = subprocess.run(
        [GXX, "-std=c++17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow",
         "-Werror", "-fsyntax-only", f"-I{RUNTIME_DIR}", str(tmp_path / "alone.cpp")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.cuda
@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_runtime_compiles_as_cuda_host_code(tmp_path):
    result = subprocess.run(
        [NVCC, "-std=c++17", "-arch=sm_75", "-Werror", "all-warnings", f"-I{RUNTIME_DIR}",
         "-x", "cu", "-c", str(DRIVER_SOURCE), "-o", str(tmp_path / "driver.o")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@needs_gxx
def test_empty_graph_message_has_no_negative_range(driver, tmp_path):
    path = tmp_path / "empty.el"
    path.write_text("")
    result = run(driver, "params", path, "--src", "0")
    assert result.returncode == 2
    assert result.stderr.startswith(f"runtime_driver: error: --src 0: {path} has no vertices, "
                                    "so no node id is valid\n")
