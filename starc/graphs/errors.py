"""GraphFormatError: a bad graph file, reported as ``path:line: message``."""

from __future__ import annotations

from starc.errors import FileError

__all__ = ["GraphFormatError"]


class GraphFormatError(FileError, ValueError):
    """A graph file that cannot be read; ``line`` is None for whole-file problems."""
