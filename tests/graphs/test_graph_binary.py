"""The .sg binary graph (starc.graphs.binary) and the --cache built on it (starc.graphs.cache)."""

import os
import struct
import zlib

import numpy as np
import pytest

from starc.graphs import GraphFormatError, load_graph, rmat
from starc.graphs.binary import HEADER, save_sg
from starc.graphs.cache import cache_path, cached_graph
from starc.graphs.cli import main

TEXT = "# weights\n0 1 5\n1 2 -3\n2 0 7\n0 1 5\n3 3 2\n0 1 1\n1 0 4\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("text", [TEXT, "0 1\n1 2\n2 2\n0 1\n", "0 1 0.5\n1 0 2.25\n",
                                  "# no edges\n"], ids=["int", "none", "real", "empty"])
@pytest.mark.parametrize("undirected", [False, True], ids=["directed", "undirected"])
def test_text_to_sg_round_trip_keeps_every_array(tmp_path, text, undirected):
    source = write(tmp_path, "g.el", text)
    target = str(tmp_path / "g.sg")
    args = ["--undirected"] if undirected else []
    assert main(["graph", "convert", source, target, *args]) == 0
    expected = load_graph(source, undirected=undirected)
    got = load_graph(target)
    assert got == expected
    assert got.weights_integral == expected.weights_integral
    assert got.sources.dtype == np.int32 and got.name == target
    # written symmetrised, the file says so: --undirected adds nothing more
    assert load_graph(target, undirected=True) == load_graph(source, undirected=True)


def test_a_copy_of_a_symmetrised_sg_stays_marked(tmp_path):
    source = write(tmp_path, "g.el", TEXT)
    first, copy = str(tmp_path / "u.sg"), str(tmp_path / "copy.sg")
    assert main(["graph", "convert", source, first, "--undirected"]) == 0
    assert main(["graph", "convert", first, copy]) == 0
    assert load_graph(copy, undirected=True) == load_graph(source, undirected=True)


def test_rmat_round_trip_in_csr_order(tmp_path):
    graph = rmat(10, 8, seed=3, weights=True)
    path = str(tmp_path / "r.sg")
    save_sg(graph, path)
    assert load_graph(path) == graph
    assert load_graph(path, undirected=True) == graph.symmetrised()


def _sg_bytes(tmp_path) -> bytes:
    path = str(tmp_path / "good.sg")
    save_sg(load_graph(write(tmp_path, "g.el", TEXT)), path)
    with open(path, "rb") as handle:
        return handle.read()


def _with_checksum(raw: bytearray) -> bytes:
    """``raw`` with its header's checksum made right again: checks after the checksum run."""
    struct.pack_into("<I", raw, 32, zlib.adler32(bytes(raw[HEADER.size:])))
    return bytes(raw)


def _damaged(tmp_path, kind):
    raw = bytearray(_sg_bytes(tmp_path))
    n, m = 4, 7
    if kind == "magic":
        raw[:8] = b"NOTAGRPH"
    elif kind == "short-header":
        raw = raw[:20]
    elif kind == "version":
        struct.pack_into("<I", raw, 8, 9)
    elif kind == "flags":
        struct.pack_into("<I", raw, 12, 64)
    elif kind == "truncated":
        raw = raw[:-5]
    elif kind == "huge-header":         # the length is checked before the memory it needs
        struct.pack_into("<Q", raw, 16, 2**30)
    elif kind == "vertex-count-bytes":  # issue 34: damaged bytes read as 6e18 vertices
        raw[16 + 7] ^= 0x58
    elif kind == "edge-count":          # a plausible count, not the file's
        struct.pack_into("<Q", raw, 24, m + 1)
    elif kind == "reserved":
        raw[36] = 1
    elif kind == "trailing":
        raw += b"\0"
    elif kind == "checksum":
        raw[HEADER.size + 12] ^= 1
    elif kind == "target-range":
        struct.pack_into("<i", raw, HEADER.size + 4 * (n + 1), 99)
        raw = _with_checksum(raw)
    elif kind == "offsets":
        struct.pack_into("<i", raw, HEADER.size + 4, m + 1)
        raw = _with_checksum(raw)
    elif kind == "weight":
        struct.pack_into("<d", raw, len(raw) - 8, float("inf"))
        raw = _with_checksum(raw)
    return bytes(raw)


#: what each damage is reported as, after "path: "; every damage of the header or the
#: checksum ends with how to write the file again
DAMAGED = "damaged .sg file: "
DAMAGE = {
    "magic": DAMAGED + "no STARC-SG magic at its start (is it a .sg file?)",
    "short-header": DAMAGED + "20 bytes, shorter than the 64-byte header",
    "version": DAMAGED + "version 9 in its header (this reader reads version 1)",
    "flags": DAMAGED + "unknown flags 0x40 in its header",
    "reserved": DAMAGED + "reserved header field 0x1, not 0",
    "truncated": DAMAGED + "243 bytes, but its header says 4 vertices and 7 edges, which take "
                           "248",
    "huge-header": DAMAGED + "248 bytes, but its header says 1073741824 vertices and 7 edges, "
                             "which take 8589934808",
    "vertex-count-bytes": DAMAGED + "its header says 6341068275337658372 vertices and 7 edges, "
                                    "more than 32-bit ids allow",
    "edge-count": DAMAGED + "248 bytes, but its header says 4 vertices and 8 edges, which take "
                            "264",
    "trailing": DAMAGED + "249 bytes, but its header says 4 vertices and 7 edges, which take "
                          "248",
    "checksum": DAMAGED + "checksum mismatch",
    "target-range": "targets: ids out of range 0..3",
    "offsets": "offsets are not a valid CSR offset array",
    "weight": "weights: a weight is not finite",
}
HOW_TO_REWRITE = "; write it again with `starc graph convert SOURCE {path}`"


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_damaged_files_are_located_errors(tmp_path, kind):
    path = tmp_path / "bad.sg"
    path.write_bytes(_damaged(tmp_path, kind))
    with pytest.raises(GraphFormatError) as caught:
        load_graph(str(path))
    assert caught.value.line is None
    message = f"{path}: {DAMAGE[kind]}"
    if DAMAGE[kind].startswith(DAMAGED):
        message += HOW_TO_REWRITE.format(path=path)
    assert str(caught.value) == message


def test_damaged_file_exits_non_zero_from_the_cli(tmp_path, capsys):
    path = tmp_path / "bad.sg"
    path.write_bytes(_damaged(tmp_path, "checksum"))
    assert main(["graph", "info", str(path)]) == 1
    assert f"{path}: damaged .sg file: checksum mismatch; write it again with " \
        f"`starc graph convert SOURCE {path}`" in capsys.readouterr().err


def test_cache_is_built_once_and_rebuilt_when_the_source_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    source = write(tmp_path, "g.el", TEXT)
    first = cached_graph(source)
    assert first == cache_path(source, False) and first.endswith(".sg")
    assert load_graph(first) == load_graph(source)
    built = os.stat(first).st_mtime_ns
    assert cached_graph(source) == first and os.stat(first).st_mtime_ns == built  # fresh
    undirected = cached_graph(source, undirected=True)
    assert undirected != first
    assert load_graph(undirected, undirected=True) == load_graph(source, undirected=True)
    # Same size and a restored mtime: the sampled content tells the change.
    stat = os.stat(source)
    with open(source, "w") as handle:
        handle.write(TEXT.replace("0 1 5", "0 2 5", 1))
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cached_graph(source) == first
    assert load_graph(first) == load_graph(source)
    assert 2 in load_graph(first).neighbours(0)


def test_damaged_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    source = write(tmp_path, "g.el", TEXT)
    target = cached_graph(source)
    with open(target, "r+b") as handle:
        handle.write(b"garbage!")
    assert cached_graph(source) == target
    assert load_graph(target) == load_graph(source)


def test_info_with_cache_names_the_source(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    source = write(tmp_path, "g.el", TEXT)
    for _ in range(2):
        assert main(["graph", "info", source, "--cache"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == f"graph: {source}" and "edges: 7" in out
    assert os.path.exists(cache_path(source, False))


def test_cache_of_a_bad_text_file_is_its_located_error(tmp_path, monkeypatch):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path / "cache"))
    source = write(tmp_path, "g.el", "0 1\n1 x\n")
    with pytest.raises(GraphFormatError, match=r"g\.el:2: target id 'x' is not an integer"):
        cached_graph(source)
    assert not os.path.exists(cache_path(source, False))
