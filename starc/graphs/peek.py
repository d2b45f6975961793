"""How many vertices a graph file has, up to a bound, reading no further than it takes to know."""

from __future__ import annotations

import os
import stat

from starc.errors import FileError

__all__ = ["vertices_up_to"]


def vertices_up_to(path: str, bound: int) -> int:
    """The vertex count of graph file ``path`` when it is below ``bound``, else ``bound``.

    A check before launching ``bound`` processes, not a reader: a text edge list is read
    only until an id reaches ``bound - 1``, which for a real graph is its first lines. Where
    the count cannot be told this way (no such file, not a regular file, a line that is not
    two plain ids, a damaged header, a .npz) the answer is ``bound``: the program reads the
    file itself and reports what is wrong with it, in its own words.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return bound            # a FIFO or device: reading here would take its data
        extension = os.path.splitext(path)[1].lower()
        if extension == ".sg":
            from .binary import read_sg_header
            return min(read_sg_header(path).num_nodes, bound)
        if extension == ".npz":
            return bound
        return min(_text_vertices(path, bound, extension == ".mtx"), bound)
    except (OSError, FileError):
        return bound


def _text_vertices(path: str, bound: int, matrix_market: bool) -> int:
    """The vertex count of an edge list (largest id + 1, read until it reaches ``bound``) or
    of a Matrix Market file (its size line)."""
    from starc.inputs import line_chunks
    largest = -1
    for piece, _ in line_chunks(path):
        for line in piece.split(b"\n"):
            words = line.split()
            if not words or words[0][:1] in (b"#", b"%"):
                continue
            if len(words) < 2 or not (words[0].isdigit() and words[1].isdigit()):
                return bound        # not plain ids: the program names the line
            if matrix_market:       # the size line: rows, columns, entries
                return int(words[0])
            largest = max(largest, int(words[0]), int(words[1]))
            if largest + 1 >= bound:
                return bound
    return bound if matrix_market else largest + 1     # no size line: the program says so
