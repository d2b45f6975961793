"""GraphFormatError: a bad graph file, reported as ``path:line: message``."""

from __future__ import annotations

from typing import Optional

from starc.errors import InputError

__all__ = ["GraphFormatError"]


class GraphFormatError(InputError, ValueError):
    """A graph file that cannot be read; ``line`` is None for whole-file problems."""

    def __init__(self, path: str, line: Optional[int], message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.message))
