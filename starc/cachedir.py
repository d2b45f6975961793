"""The cache directory: where it is, and one starc can write into or a usage error naming the setting."""

from __future__ import annotations

import os
import pathlib
import tempfile

from starc.errors import UsageError

__all__ = ["cache_root", "writable_cache_dir", "cache_workdir"]

_VARIABLE = "STARC_CACHE_DIR"


def cache_root() -> pathlib.Path:
    """Where built programs are cached: $STARC_CACHE_DIR, else $XDG_CACHE_HOME/starc, else
    ~/.cache/starc."""
    if os.environ.get(_VARIABLE):
        return pathlib.Path(os.environ[_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "starc"


def _unusable(root: pathlib.Path, error: OSError) -> UsageError:
    """The cache directory is the user's setting (or their home's): exit 2, naming it."""
    if os.environ.get(_VARIABLE):
        setting = f"set by {_VARIABLE}"
    elif os.environ.get("XDG_CACHE_HOME"):
        setting = f"from XDG_CACHE_HOME; {_VARIABLE} chooses another"
    else:
        setting = f"the default; {_VARIABLE} chooses another"
    why = error.strerror or str(error)
    if isinstance(error, (FileExistsError, NotADirectoryError)):
        why = "a file is in the way of the directory"
    return UsageError(f"cannot use the cache directory '{root}' ({setting}): {why}; point "
                      f"{_VARIABLE} at a directory you can write")


def writable_cache_dir(folder: str = "") -> pathlib.Path:
    """``folder`` of the cache directory, created if needed; a UsageError naming the setting
    when it cannot be created or written (a path under /proc, a file in the way, a
    read-only disk)."""
    root = cache_root()
    target = root / folder if folder else root
    try:
        target.mkdir(parents=True, exist_ok=True)
        if not os.access(target, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as error:
        raise _unusable(root, error) from None
    return target


def cache_workdir(prefix: str) -> pathlib.Path:
    """A new directory in the cache, where something is built before it is renamed into its
    place (so the cache never holds half of it)."""
    root = writable_cache_dir()
    try:
        return pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir=root))
    except OSError as error:
        raise _unusable(root, error) from None
