"""GraphFormatError: a bad graph file, reported as ``path:line: message``; and the size check
every reader makes before it allocates."""

from __future__ import annotations

from typing import Optional

from starc.errors import FileError, InputError

__all__ = ["GraphFormatError", "check_file_size"]


class GraphFormatError(FileError, ValueError):
    """A graph file that cannot be read; ``line`` is None for whole-file problems."""


def check_file_size(path: str, num_nodes: int, num_edges: int, max_vertices,
                    line: Optional[int] = None) -> None:
    """starc.inputs.check_graph_size, its message as a GraphFormatError of the file."""
    from starc.inputs import check_graph_size
    try:
        check_graph_size(path, num_nodes, num_edges, max_vertices)
    except InputError as error:
        raise GraphFormatError(path, line, str(error)[len(path) + 2:]) from None
