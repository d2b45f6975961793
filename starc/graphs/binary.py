"""The .sg binary graph format: the CSR arrays as written, read back with one read and no parsing.

Layout (little-endian; ``starc_graph_binary.hpp`` reads the same bytes in generated programs):

=======  =====  ==========================================================================
offset   type   field
=======  =====  ==========================================================================
0        8 B    magic ``STARC-SG``
8        u32    version (1)
12       u32    flags: 1 weighted, 2 integer weights, 4 undirected applied (symmetrised)
16       u64    num_nodes ``n``
24       u64    num_edges ``m``
32       u32    Adler-32 of the payload (every byte after the header)
36       u32    0 (reserved)
40       u64    source file size   } where the file is a cache of a text graph
48       i64    source mtime (ns)  } (``starc.graphs.cache``); 0 otherwise
56       u64    source sample hash }
64       ...    payload: offsets[n+1], targets[m], rev_offsets[n+1], rev_sources[m],
                rev_edge_ids[m] (int32), zero padding to a multiple of 8 bytes, then
                weights[m] (float64) when weighted
=======  =====  ==========================================================================

The arrays are exactly :class:`~starc.graphs.csr.Graph`'s (``sources`` is derived from
``offsets``), so a graph read back is equal, edge id for edge id, to the one written. Reading
checks the header first: its size and magic, the version, flags and reserved field, the
32-bit limits, and the file's length against the sizes it gives; a file that fails any of
them (or the checksum, next) is "damaged .sg file: what; write it again with `starc graph
convert SOURCE path`", so damaged header bytes are never taken for a huge graph. Then the
memory the graph needs, the checksum, the offsets (0 first, ``m`` last, never decreasing),
every id's range and the weights' finiteness, so no file, however damaged, gives a graph
that indexes out of bounds. Every problem is ``path: what`` as a GraphFormatError.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from typing import Optional

import numpy as np

from starc.errors import FileError
from starc.inputs import MAX_EDGES, MAX_VERTICES, open_input
from starc.records import Record, record

from .csr import Graph
from .errors import GraphFormatError, check_file_size

__all__ = ["MAGIC", "VERSION", "SourceStamp", "save_sg", "load_sg", "read_sg_header",
           "SgHeader", "damaged"]

MAGIC = b"STARC-SG"
VERSION = 1
HEADER = struct.Struct("<8sIIQQIIQqQ")
FLAG_WEIGHTED, FLAG_INTEGRAL, FLAG_UNDIRECTED = 1, 2, 4
_KNOWN_FLAGS = FLAG_WEIGHTED | FLAG_INTEGRAL | FLAG_UNDIRECTED


@record
class SourceStamp(Record):
    """What identifies the text file a cache was built from (zeros: not a cache)."""

    size: int = 0
    mtime_ns: int = 0
    sample: int = 0


@record
class SgHeader(Record):
    """The fields of a .sg header (see the module docstring)."""

    flags: int
    num_nodes: int
    num_edges: int
    checksum: int
    source: SourceStamp

    @property
    def weighted(self) -> bool:
        return bool(self.flags & FLAG_WEIGHTED)

    @property
    def undirected(self) -> bool:
        return bool(self.flags & FLAG_UNDIRECTED)

    def payload_bytes(self) -> int:
        ints = 4 * (2 * (self.num_nodes + 1) + 3 * self.num_edges)
        padded = (ints + 7) & ~7
        return padded + 8 * self.num_edges if self.weighted else ints


def _int_sections(n: int, m: int):
    """(name, length) of the int32 arrays, in file order."""
    return (("offsets", n + 1), ("targets", m), ("rev_offsets", n + 1),
            ("rev_sources", m), ("rev_edge_ids", m))


def save_sg(graph: Graph, path, undirected: bool = False,
            source: SourceStamp = SourceStamp()) -> None:
    """Write ``graph`` as .sg; ``undirected``: it is already symmetrised (``--undirected``
    on this file then adds nothing)."""
    n, m = graph.num_nodes, graph.num_edges
    flags = FLAG_UNDIRECTED if undirected else 0
    if graph.weights is not None:
        flags |= FLAG_WEIGHTED | (FLAG_INTEGRAL if graph.weights_integral else 0)
    parts = [np.ascontiguousarray(getattr(graph, name), dtype="<i4")
             for name, _ in _int_sections(n, m)]
    if graph.weights is not None:
        ints = sum(part.nbytes for part in parts)
        parts.append(np.zeros(((ints + 7) & ~7) - ints, dtype=np.uint8))
        parts.append(np.ascontiguousarray(graph.weights, dtype="<f8"))
    checksum = 1
    for part in parts:
        checksum = zlib.adler32(memoryview(part).cast("B"), checksum)
    header = HEADER.pack(MAGIC, VERSION, flags, n, m, checksum, 0, source.size,
                         source.mtime_ns, source.sample)
    with open(os.fspath(path), "wb") as handle:
        handle.write(header)
        for part in parts:
            handle.write(memoryview(part).cast("B"))


def damaged(path: str, what: str) -> GraphFormatError:
    """A .sg file that is not what starc writes: said so, with how to write it again."""
    return GraphFormatError(path, None, f"damaged .sg file: {what}; write it again with "
                                        f"`starc graph convert SOURCE {path}`")


def _unpack_header(path: str, raw: bytes, file_size: Optional[int] = None) -> SgHeader:
    """The checked header; ``file_size`` (a regular file's length) must be what it says."""
    if len(raw) < HEADER.size:
        raise damaged(path, f"{len(raw)} bytes, shorter than the {HEADER.size}-byte header")
    magic, version, flags, n, m, checksum, reserved, size, mtime, sample = \
        HEADER.unpack_from(raw)
    if magic != MAGIC:
        raise damaged(path, "no STARC-SG magic at its start (is it a .sg file?)")
    if version != VERSION:
        raise damaged(path, f"version {version} in its header (this reader reads version "
                            f"{VERSION})")
    if flags & ~_KNOWN_FLAGS:
        raise damaged(path, f"unknown flags {flags:#x} in its header")
    if reserved:
        raise damaged(path, f"reserved header field {reserved:#x}, not 0")
    if n > MAX_VERTICES or m > MAX_EDGES:
        raise damaged(path, f"its header says {n} vertices and {m} edges, more than 32-bit "
                            "ids allow")
    header = SgHeader(flags, n, m, checksum, SourceStamp(size, mtime, sample))
    if file_size is not None and file_size != HEADER.size + header.payload_bytes():
        raise damaged(path, f"{file_size} bytes, but its header says {n} vertices and {m} "
                            f"edges, which take {HEADER.size + header.payload_bytes()}")
    return header


def read_sg_header(path: str) -> SgHeader:
    """Only the header (the cache's staleness check): a GraphFormatError if it is bad."""
    try:
        with open_input(path) as handle:
            info = os.fstat(handle.fileno())
            raw = handle.read(HEADER.size)
    except FileError as error:
        raise GraphFormatError(error.path, None, error.message) from None
    return _unpack_header(path, raw, info.st_size if stat.S_ISREG(info.st_mode) else None)


def load_sg(path, undirected: bool = False, max_vertices: Optional[int] = None) -> Graph:
    """Read a .sg file (every check of the module docstring) into a Graph; ``undirected``
    symmetrises it unless the file says that was done when it was written."""
    path = os.fspath(path)
    try:
        with open_input(path) as handle:
            info = os.fstat(handle.fileno())
            # the length with the header, before anything: a short file allocates nothing
            size = info.st_size if stat.S_ISREG(info.st_mode) else None
            header = _unpack_header(path, handle.read(HEADER.size), size)
            n, m = header.num_nodes, header.num_edges
            want = header.payload_bytes()
            symmetrise = undirected and not header.undirected
            check_file_size(path, n, 2 * m if symmetrise else m, max_vertices)
            # One read into one buffer; the arrays below are views of it (no copies).
            payload = np.fromfile(handle, dtype=np.uint8, count=want + 1)
    except FileError as error:
        raise GraphFormatError(error.path, None, error.message) from None
    if payload.size != want:                    # a pipe: its length is known only now
        fewer = "fewer" if payload.size < want else "more"
        raise damaged(path, f"{fewer} bytes than the {HEADER.size + want} its header's sizes "
                            "take")
    if zlib.adler32(payload) != header.checksum:
        raise damaged(path, "checksum mismatch")
    arrays, start = {}, 0
    for name, length in _int_sections(n, m):
        arrays[name] = payload[start:start + 4 * length].view("<i4")
        start += 4 * length
    for name in ("offsets", "rev_offsets"):
        offsets = arrays[name]
        if offsets[0] != 0 or offsets[-1] != m or np.any(offsets[1:] < offsets[:-1]):
            raise GraphFormatError(path, None, f"{name} are not a valid CSR offset array")
    for name, top in (("targets", n), ("rev_sources", n), ("rev_edge_ids", m)):
        ids = arrays[name]
        if m and (ids.min() < 0 or ids.max() >= top):
            raise GraphFormatError(path, None, f"{name}: ids out of range 0..{top - 1}")
    weights = None
    if header.weighted:
        weights = payload[want - 8 * m:].view("<f8")
        if not np.all(np.isfinite(weights)):
            raise GraphFormatError(path, None, "weights: a weight is not finite")
    sources = np.repeat(np.arange(n, dtype=np.int32), np.diff(arrays["offsets"]))
    graph = Graph(num_nodes=n, num_edges=m, weights=weights,
                  weights_integral=bool(header.flags & FLAG_INTEGRAL) or weights is None,
                  sources=sources, name=path, **arrays)
    return graph.symmetrised() if symmetrise else graph
