"""The StarcError hierarchy: every error a user can cause, with its documented exit status.

Exit statuses (README, "Command line"): 0 success; 1 an error in the program, a graph or
other input data; 2 a bad command line (unknown option, bad value, unwritable output path);
3 an internal error (a bug in starc: please report it). ``starc.cli.main`` maps a StarcError
to its ``exit_code`` and prints ``str(error)`` -- never a Python traceback.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["EXIT_OK", "EXIT_ERROR", "EXIT_USAGE", "EXIT_INTERNAL", "StarcError",
           "UsageError", "InputError", "FileError", "InternalError", "BackendError"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class StarcError(Exception):
    """Base of every error starc reports to a user; ``exit_code`` is the process status."""

    exit_code = EXIT_ERROR
    code = "E0602"     # the diagnostics catalogue's code (starc.diagnostics.ERROR_CODES)

    def report(self) -> str:
        """The one-line message a command prints on stderr."""
        return f"error[{self.code}]: {self}"


class UsageError(StarcError):
    """A bad command line: an unknown option, a bad option value, an unusable output path."""

    exit_code = EXIT_USAGE
    code = "E0601"


class InputError(StarcError):
    """Bad input data: a graph file, a program's data (weights the program cannot use)."""

    exit_code = EXIT_ERROR


class FileError(InputError):
    """A problem with one input file, reported as ``path:line: message`` (``line`` None:
    the whole file)."""

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


class InternalError(StarcError):
    """A bug in starc itself."""

    exit_code = EXIT_INTERNAL
    code = "E0901"


class BackendError(StarcError):
    """A construct a backend (or the shared lowering every device backend uses) cannot
    express, or a toolchain failure: reported as a diagnostic with ``code`` (E0501 by
    default) at ``loc`` when known, with ``hint`` as its help line. Defined here, not in
    ``starc.backends``, so the analysis never imports a backend."""

    code = "E0501"

    def __init__(self, message: str, loc=None, code: str = "E0501",
                 hint: Optional[str] = None) -> None:
        super().__init__(message)
        self.loc = loc
        self.code = code
        self.hint = hint
