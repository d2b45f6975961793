"""load_graph: read text edge lists, Matrix Market files and .npz caches into a Graph.

Formats (chosen by extension: ``.mtx`` Matrix Market, ``.sg`` starc binary graph, ``.npz``
numpy archive, anything else a text edge list):

* Text edge list: one edge ``src dst [weight]`` per line, whitespace separated, 0-based ids.
  Blank lines and lines whose first non-blank character is ``#`` or ``%`` are skipped. Either
  every edge line has a weight or none has. The vertex count is the largest id + 1, unless
  ``num_nodes`` is given (then an id >= num_nodes is an error). A file with no edge lines is
  a valid graph with no edges (and ``num_nodes`` vertices, 0 by default).
* Matrix Market: ``coordinate`` with ``pattern``/``integer``/``real`` values and ``general``
  or ``symmetric`` symmetry; ids are 1-based; rows must equal columns; a symmetric file has
  each off-diagonal entry mirrored; the entry count must match the size line.
* ``.sg``: the binary CSR of :mod:`starc.graphs.binary` (also read by generated programs).
* ``.npz``: the archive written by :func:`starc.graphs.writers.save_npz`.

For ``.mtx`` and ``.npz`` the file fixes the vertex count, so ``num_nodes``, when given, must
agree with it. ``undirected=True`` returns :meth:`Graph.symmetrised`. Every problem raises
:class:`GraphFormatError` naming the file and, where there is one, the line.

Files are read through ``starc.inputs.line_chunks``: in pieces of whole lines, so reading
stops at the first bad piece, and a line over 1 MiB (binary data, ``/dev/zero``) is refused.
Each piece is parsed vectorised: comment lines are blanked with one regex, token counts per
line are computed with numpy over the raw bytes, and the tokens are converted column-wise.
Only when that fast path finds a problem does a line-by-line scan of the piece run, to report
the first bad line. Vertex ids are at most ``max_vertices - 1`` (default: the 32-bit limit
``starc.inputs.MAX_VERTICES``), and ``starc.inputs.check_graph_size`` refuses a graph too
large for the available memory before its CSR arrays are allocated.
"""

from __future__ import annotations

import os
import re
import zipfile
from typing import List, Optional, Sequence, Tuple

import numpy as np

from starc.errors import FileError, InputError
from starc.inputs import MAX_VERTICES, line_chunks

from .csr import Graph
from .errors import GraphFormatError, check_file_size
from .tokens import parse_integers, scan_piece

__all__ = ["load_graph", "read_edge_list", "read_mtx", "load_npz", "first_weight_line"]

_COMMENT_LINE = re.compile(rb"(?m)^[ \t\r\x0b\x0c]*[#%][^\n]*")


def load_graph(path, undirected: bool = False, num_nodes: Optional[int] = None,
               max_vertices: Optional[int] = None) -> Graph:
    """Read ``path`` (format by extension) and return its Graph; ``max_vertices`` lowers
    the vertex limit (the --max-vertices option)."""
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower()
    if extension == ".sg":
        from .binary import load_sg
        graph = load_sg(path, undirected, max_vertices)
        return graph if num_nodes is None else _same_count(path, graph, num_nodes)
    if extension == ".npz":
        graph = load_npz(path)
        check_file_size(path, graph.num_nodes, graph.num_edges, max_vertices)
        if num_nodes is not None:
            _same_count(path, graph, num_nodes)
    elif extension == ".mtx":
        graph = read_mtx(path, num_nodes, max_vertices)
    else:
        graph = read_edge_list(path, num_nodes, max_vertices)
    if undirected:
        check_file_size(path, graph.num_nodes, 2 * graph.num_edges, max_vertices)
        graph = graph.symmetrised()
    return graph


def _same_count(path: str, graph: Graph, num_nodes: int) -> Graph:
    if num_nodes != graph.num_nodes:
        raise GraphFormatError(path, None, f"the file has {graph.num_nodes} vertices "
                                           f"but num_nodes={num_nodes} was given")
    return graph


def _chunks(path: str):
    try:
        yield from line_chunks(path)
    except GraphFormatError:
        raise
    except FileError as error:
        raise GraphFormatError(error.path, error.line, error.message) from None


# -- text edge lists ----------------------------------------------------------------------

def read_edge_list(path, num_nodes: Optional[int] = None,
                   max_vertices: Optional[int] = None) -> Graph:
    """Read a whitespace-separated ``src dst [weight]`` edge list (0-based ids)."""
    path = os.fspath(path)
    if num_nodes is not None and num_nodes < 0:
        raise GraphFormatError(path, None, f"num_nodes must be >= 0, got {num_nodes}")
    limit = num_nodes
    if limit is None:
        limit = MAX_VERTICES if max_vertices is None else max_vertices
    rows = _parse_rows(path, _chunks(path), allowed_columns=(2, 3), base=0, limit=limit,
                       weight_kind="any", limit_is_option=num_nodes is None)
    if num_nodes is None:
        num_nodes = int(max(rows.src.max(), rows.dst.max())) + 1 if rows.count else 0
    check_file_size(path, num_nodes, rows.count, max_vertices)
    return Graph._from_columns(num_nodes, rows.give_up(), rows.integral, name=path)


def _blank_comments(data: bytes) -> bytes:
    """``data`` with each comment line emptied (its newline kept: line numbers stay). Files
    have comments at the top: those lines are cut off by hand, the regex runs only when
    the rest has a comment character too."""
    start = 0
    while True:
        line_end = data.find(b"\n", start)
        line = data[start:len(data) if line_end < 0 else line_end].lstrip(b" \t\r\x0b\x0c")
        if line[:1] not in (b"#", b"%") or line_end < 0:
            break
        start = line_end + 1
    rest = data[start:]
    if b"#" in rest or b"%" in rest:
        rest = _COMMENT_LINE.sub(b"", rest)
    return b"\n" * data.count(b"\n", 0, start) + rest if start else rest


class _Rows:
    """Parsed data lines: ids (already rebased to 0) and weights."""

    def __init__(self, src, dst, weights, integral):
        self.src, self.dst, self.weights, self.integral = src, dst, weights, integral
        self.count = int(src.size)

    def give_up(self) -> dict:
        """The columns, for ``Graph._from_columns``, which frees each once it is used."""
        columns = {"src": self.src, "dst": self.dst, "weights": self.weights}
        self.src = self.dst = self.weights = None
        return columns


def _parse_rows(path: str, chunks, *, allowed_columns: Sequence[int], base: int, limit: int,
                weight_kind: str, limit_is_option: bool = False,
                declared: Optional[int] = None) -> _Rows:
    """Parse data lines; ``weight_kind`` is ``any``, ``int`` or ``real`` (mtx fields).

    ``chunks`` yields ``(piece, lines before it)`` for pieces of whole lines; ``limit`` is
    the vertex count ids must stay under (``limit_is_option``: it is the vertex limit, not
    a count the file declared); ``declared``: the row count a size line declared, past which
    a row is an error at its line. Piece by piece, so the temporaries stay small for files
    of 10**7+ edges and a bad line stops the reading; ids are kept as int32 (every limit is
    below 2**31), each column in its own array so that joining the pieces copies one column
    at a time.
    """
    columns = None
    rows = 0
    parts: List[Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], bool]] = []
    for data, lines_before in chunks:
        chunk = _blank_comments(data)
        counts, integers = scan_piece(chunk)
        data_lines = np.flatnonzero(counts)
        if data_lines.size:
            first = columns is None
            if first:
                columns = int(counts[data_lines[0]])
            part = None
            if columns in allowed_columns and np.all(counts[data_lines] == columns):
                part = _convert_chunk(chunk, columns, base, limit, weight_kind,
                                      columns * data_lines.size if integers else 0)
            if part is None:
                raise _scan_for_error(path, data, lines_before, allowed_columns, base, limit,
                                      weight_kind, None if first else columns,
                                      limit_is_option)
            if declared is not None and rows + data_lines.size > declared:
                line = int(data_lines[declared - rows]) + lines_before + 1
                raise GraphFormatError(path, line, f"more entries than the {declared} the "
                                                   f"size line declares")
            rows += data_lines.size
            parts.append(part)
    if not parts:
        empty = np.zeros(0, dtype=np.int32)
        return _Rows(empty, empty, None, True)
    integral = all(part[3] for part in parts)
    columns_joined = []
    for column in range(3 if columns == 3 else 2):
        columns_joined.append(np.concatenate([part[column] for part in parts]))
        for index, part in enumerate(parts):      # each piece's column is freed once joined
            parts[index] = part[:column] + (None,) + part[column + 1:]
    weights = columns_joined[2] if columns == 3 else None
    return _Rows(columns_joined[0], columns_joined[1], weights, integral)


def _convert_chunk(chunk: bytes, columns: int, base: int, limit: Optional[int],
                   weight_kind: str, integer_tokens: int):
    """(src, dst, weights, integral) for uniform-width lines, or None if any value is bad;
    ``integer_tokens``: the piece's token count when every token is an integer literal,
    which numpy's C parser reads (10x faster than splitting), else 0."""
    values = parse_integers(chunk, integer_tokens) if integer_tokens else None
    if values is not None:
        table = values.reshape(-1, columns)
        weights = table[:, 2].astype(np.float64) if columns == 3 else None
        integral = True
    else:
        table = np.array(chunk.split()).reshape(-1, columns)
        weights, integral = None, True
        if columns == 3:
            weights, integral = _text_weights(table[:, 2], weight_kind)
            if weights is None:
                return None
        try:
            table = table[:, :2].astype(np.int64)
        except (ValueError, OverflowError):
            return None
    ids = []
    for column in (0, 1):
        column_ids = table[:, column] - base
        if column_ids.size and (column_ids.min() < 0 or column_ids.max() >= limit):
            return None
        ids.append(column_ids.astype(np.int32))
    return ids[0], ids[1], weights, integral


def _text_weights(texts: np.ndarray, weight_kind: str):
    """(weights, integral) of a column of weight tokens, or (None, False) if one is bad:
    integer literals where every token is one, else finite reals (unless ``int``)."""
    try:
        return texts.astype(np.int64).astype(np.float64), True
    except (ValueError, OverflowError):
        if weight_kind == "int":
            return None, False
    try:
        weights = texts.astype(np.float64)
    except ValueError:
        return None, False
    return (weights, False) if np.all(np.isfinite(weights)) else (None, False)


def _scan_for_error(path, data, line_offset, allowed_columns, base, limit, weight_kind,
                    expected=None, limit_is_option=False):
    """Find the first bad line, line by line (runs only after the fast path failed);
    ``expected`` is the column count of earlier pieces' lines."""
    for number, raw in enumerate(data.split(b"\n"), start=line_offset + 1):
        tokens = raw.split()
        if not tokens or tokens[0][:1] in (b"#", b"%"):
            continue
        text = [token.decode("utf-8", "replace") for token in tokens]
        if len(tokens) not in allowed_columns:
            wanted = " or ".join(str(n) for n in allowed_columns)
            raise GraphFormatError(path, number, f"expected {wanted} columns, found "
                                                 f"{len(tokens)}")
        if expected is None:
            expected = len(tokens)
        elif len(tokens) != expected:
            raise GraphFormatError(path, number, "weights on some lines only: this line has "
                                                 f"{len(tokens)} columns, earlier lines "
                                                 f"have {expected}")
        for position, token in enumerate(text[:2]):
            role = "source" if position == 0 else "target"
            try:
                value = int(tokens[position])
            except ValueError:
                raise GraphFormatError(path, number,
                                       f"{role} id {token!r} is not an integer") from None
            if base == 0 and value < 0:
                raise GraphFormatError(path, number, f"negative {role} id {value}")
            if limit_is_option and value - base >= limit:
                raise GraphFormatError(path, number, f"{role} id {value} is larger than the "
                                                     f"largest vertex id allowed, {limit - 1} "
                                                     "(--max-vertices; 32-bit ids)")
            if value < base or value - base >= limit:
                top = f"..{limit - 1 + base}" if limit > 0 else " (the graph has no vertices)"
                raise GraphFormatError(path, number,
                                       f"{role} id {value} out of range {base}{top}")
        if len(tokens) == 3:
            _check_weight(path, number, tokens[2], weight_kind)
    return GraphFormatError(path, None, "malformed file")


def _check_weight(path, number, raw: bytes, weight_kind):
    token = raw.decode("utf-8", "replace")
    try:
        int(raw)
        return
    except ValueError:
        if weight_kind == "int":
            raise GraphFormatError(path, number,
                                   f"weight {token!r} is not an integer") from None
    try:
        value = float(raw)
    except ValueError:
        raise GraphFormatError(path, number, f"weight {token!r} is not a number") from None
    if not np.isfinite(value):
        raise GraphFormatError(path, number, f"weight {token!r} is not finite")


def first_weight_line(path: str, bad) -> Optional[Tuple[int, str]]:
    """(line number, token) of the first edge weight for which ``bad(token)`` holds; None
    when there is none or the file cannot be read again. For messages about weights the
    program cannot use: the Graph keeps no line numbers."""
    is_mtx = path.lower().endswith(".mtx")
    size_line_seen = not is_mtx
    try:
        for data, lines_before in line_chunks(path):
            for number, raw in enumerate(data.split(b"\n"), start=lines_before + 1):
                tokens = raw.split()
                if not tokens or tokens[0][:1] in (b"#", b"%"):
                    continue
                if not size_line_seen:
                    size_line_seen = True
                    continue
                if len(tokens) == 3:
                    token = tokens[2].decode("utf-8", "replace")
                    if bad(token):
                        return number, token
    except InputError:
        return None
    return None


# -- Matrix Market ------------------------------------------------------------------------

_FIELDS = {"pattern": "none", "integer": "int", "real": "real"}
_SYMMETRIES = ("general", "symmetric")


def read_mtx(path, num_nodes: Optional[int] = None,
             max_vertices: Optional[int] = None) -> Graph:
    """Read a Matrix Market coordinate file (1-based; symmetric entries mirrored)."""
    path = os.fspath(path)
    chunks = _chunks(path)
    data, _ = next(chunks, (b"", 0))
    field, symmetric, header_lines = _read_mtx_banner(path, data)
    while True:     # the header, up to the size line, may span pieces (long comments)
        try:
            n, declared, size_line, body_start = _read_mtx_size(path, data, header_lines)
            break
        except GraphFormatError as error:
            piece = next(chunks, None) if error.line is None else None
            if piece is None:
                raise
            data += piece[0]
    if num_nodes is not None and num_nodes != n:
        raise GraphFormatError(path, size_line, f"the file has {n} vertices but "
                                                f"num_nodes={num_nodes} was given")
    # The size line fixes the size: refuse an impossible one before reading the entries.
    check_file_size(path, n, declared * (2 if symmetric else 1), max_vertices, size_line)
    columns = (2,) if field == "none" else (3,)

    def body():
        yield data[body_start:], size_line
        yield from chunks
    rows = _parse_rows(path, body(), allowed_columns=columns, base=1, limit=n,
                       weight_kind=field, declared=declared)
    if rows.count < declared:
        raise GraphFormatError(path, size_line, f"the size line declares {declared} entries "
                                                f"but the file has {rows.count}")
    integral, edges = rows.integral, rows.give_up()
    if field != "none" and edges["weights"] is None:  # no entries: still a weighted field
        edges["weights"], integral = np.zeros(0, dtype=np.float64), field == "int"
    if symmetric:
        src, dst = edges["src"], edges["dst"]
        off_diagonal = src != dst
        edges["src"] = np.concatenate([src, dst[off_diagonal]])
        edges["dst"] = np.concatenate([dst, src[off_diagonal]])
        if edges["weights"] is not None:
            edges["weights"] = np.concatenate([edges["weights"], edges["weights"][off_diagonal]])
        del src, dst, off_diagonal
    return Graph._from_columns(n, edges, integral, name=path)


def _read_mtx_banner(path: str, data: bytes) -> Tuple[str, bool, int]:
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not first or first[0].lower() != "%%matrixmarket":
        raise GraphFormatError(path, 1, "missing '%%MatrixMarket' banner")
    words = [word.lower() for word in first[1:]]
    if len(words) != 4 or words[0] != "matrix":
        raise GraphFormatError(path, 1, "bad banner: expected '%%MatrixMarket matrix "
                                        "coordinate <field> <symmetry>'")
    layout, field, symmetry = words[1:]
    if layout == "array":
        raise GraphFormatError(path, 1, "array (dense) Matrix Market files are not "
                                        "supported; use coordinate")
    if layout != "coordinate":
        raise GraphFormatError(path, 1, f"unknown Matrix Market format {layout!r}")
    if field not in _FIELDS:
        raise GraphFormatError(path, 1, f"unsupported field {field!r} "
                                        "(expected pattern, integer or real)")
    if symmetry not in _SYMMETRIES:
        raise GraphFormatError(path, 1, f"unsupported symmetry {symmetry!r} "
                                        "(expected general or symmetric)")
    return _FIELDS[field], symmetry == "symmetric", 1


def _read_mtx_size(path: str, data: bytes, skip: int) -> Tuple[int, int, int, int]:
    """Return (n, entries, size line number, byte offset of the first entry line)."""
    position = 0
    number = 0
    while position <= len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end
        number += 1
        line = data[position:end].strip()
        position = end + 1
        if number <= skip or not line or line.startswith((b"%", b"#")):
            if end == len(data):
                break
            continue
        fields = line.split()
        try:
            if len(fields) != 3:
                raise ValueError
            rows, cols, entries = (int(token) for token in fields)
        except ValueError:
            raise GraphFormatError(path, number, "bad size line: expected "
                                                 "'rows columns entries'") from None
        if min(rows, cols, entries) < 0:
            raise GraphFormatError(path, number, "bad size line: negative size")
        if rows != cols:
            raise GraphFormatError(path, number, f"matrix is {rows}x{cols}; an adjacency "
                                                 "matrix must be square")
        return rows, entries, number, min(position, len(data))
    raise GraphFormatError(path, None, "missing size line")


# -- .npz cache ---------------------------------------------------------------------------

_NPZ_FORMAT = "starc-graph"
_NPZ_VERSION = 1
_INDEX_ARRAYS = ("offsets", "targets", "rev_offsets", "rev_sources", "rev_edge_ids",
                 "sources")


def load_npz(path) -> Graph:
    """Load a Graph saved by ``save_npz``; anything else is a GraphFormatError."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise GraphFormatError(path, None, "cannot open: No such file or directory")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as error:
        raise GraphFormatError(path, None, f"not a starc graph cache ({error})") from None
    try:
        return _graph_from_arrays(arrays, path)
    except (KeyError, ValueError, TypeError, IndexError) as error:
        raise GraphFormatError(path, None, f"not a starc graph cache ({error})") from None


def _graph_from_arrays(arrays, path: str) -> Graph:
    if str(arrays["format"]) != _NPZ_FORMAT:
        raise ValueError(f"format marker is {str(arrays['format'])!r}")
    if int(arrays["version"]) != _NPZ_VERSION:
        raise ValueError(f"unsupported version {int(arrays['version'])}")
    n, m = int(arrays["num_nodes"]), int(arrays["num_edges"])
    parts = {name: arrays[name] for name in _INDEX_ARRAYS}
    for name, array in parts.items():
        wanted = n + 1 if "offsets" in name else m
        if array.ndim != 1 or array.size != wanted or not np.issubdtype(array.dtype,
                                                                      np.integer):
            raise ValueError(f"array {name!r} has the wrong shape or type")
    for name in ("offsets", "rev_offsets"):
        offsets = parts[name]
        if offsets[0] != 0 or offsets[-1] != m or np.any(np.diff(offsets) < 0):
            raise ValueError(f"array {name!r} is not a valid offset array")
    for name in ("targets", "rev_sources", "sources"):
        if m and (parts[name].min() < 0 or parts[name].max() >= n):
            raise ValueError(f"array {name!r} has ids out of range")
    if m and (parts["rev_edge_ids"].min() < 0 or parts["rev_edge_ids"].max() >= m):
        raise ValueError("array 'rev_edge_ids' has ids out of range")
    expected_sources = np.repeat(np.arange(n), np.diff(parts["offsets"]))
    if not np.array_equal(expected_sources, parts["sources"]):
        raise ValueError("'sources' disagrees with 'offsets'")
    weights = None
    if bool(arrays["has_weights"]):
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        if weights.ndim != 1 or weights.size != m:
            raise ValueError("array 'weights' has the wrong shape")
    return Graph(num_nodes=n, num_edges=m, weights=weights,
                 weights_integral=bool(arrays["weights_integral"]),
                 name=path, **parts)
