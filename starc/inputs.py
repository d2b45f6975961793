"""Every file starc opens or writes for a user, and every size check, in one place.

Reading: ``read_source_bytes`` (bounded) and ``line_chunks`` (streams a text file in pieces
of whole lines, so a reader stops at the first bad line and ``/dev/zero`` is refused after
one over-long line instead of being read without end). Writing: ``write_file`` and
``write_directory`` write to a temporary name beside the target and rename it into place, so
a failure leaves nothing half-written; a path that cannot be written (missing directory, a
directory where a file should go, a file where a directory should go) is a UsageError. An
existing device or FIFO (``/dev/null``, ``/dev/stdout``) is written in place, never renamed
over.
Sizes: ``check_graph_size`` refuses, before anything is allocated, a graph whose vertex count
(largest id + 1) passes ``max_vertices`` (default MAX_VERTICES, the 32-bit ids every backend
uses) or whose arrays would not fit in the available memory (``STARC_MAX_MEMORY`` bytes
when set, else the system's available memory).
"""

from __future__ import annotations

import errno
import os
import pathlib
import shutil
import stat
import contextlib
import tempfile
from typing import Dict, Iterator, Optional, Tuple, Union

from starc.errors import FileError, InputError, UsageError

__all__ = ["MAX_VERTICES", "MAX_EDGES", "MAX_LINE_BYTES", "MAX_SOURCE_BYTES", "open_input",
           "read_source_bytes", "line_chunks", "write_file", "write_directory",
           "check_output_file", "check_output_directory", "atomic_output", "available_memory",
           "graph_bytes", "check_graph_size", "parse_max_vertices"]

#: Vertex ids are 32-bit ints in every generated program: ids 0 .. 2**31-2.
MAX_VERTICES = 2**31 - 1
MAX_EDGES = 2**31 - 2
#: A text graph line longer than this is not a graph line (binary data, /dev/zero).
MAX_LINE_BYTES = 1 << 20
#: A .sp program larger than this is not a program.
MAX_SOURCE_BYTES = 64 << 20
# Pieces of 4 MiB: the vectorised parser keeps a few byte-sized masks and 8-byte token
# positions of a piece alive (about six times its size), so smaller pieces keep the peak
# memory near the CSR arrays; at R-MAT 18, 4 MiB reads as fast as 8 and peaks ~20 MB lower.
_CHUNK_BYTES = 1 << 22
_TOO_LONG = f"line is longer than {MAX_LINE_BYTES >> 20} MiB; is this a text graph file?"
# Peak bytes per vertex and per edge while a graph is built and a program runs on it: forward
# and reverse offsets, the counting-sort temporaries, a few per-vertex result arrays; per
# edge the id pairs as read, the sorted CSR arrays, the reverse CSR and the weights.
_BYTES_PER_VERTEX = 48
_BYTES_PER_EDGE = 64


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def open_input(path: str):
    """``path`` opened for binary reading; InputError ``path: cannot open: why`` if not."""
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            raise FileError(path, None, "cannot open: it is a directory")
        return open(path, "rb")
    except OSError as error:
        raise FileError(path, None, f"cannot open: {_reason(error)}") from None


def read_source_bytes(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of a program file, refusing one larger than ``limit``."""
    with open_input(path) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise FileError(path, None, f"cannot read: {_reason(error)}") from None
    if len(data) > limit:
        raise FileError(path, None, f"the file is larger than {limit >> 20} MiB; "
                                    "is it a starc program?")
    return data


def line_chunks(path: str, first: bytes = b"", handle=None,
                chunk_bytes: Optional[int] = None) -> Iterator[Tuple[bytes, int]]:
    """Yield ``(piece, lines_before)``: pieces of about ``chunk_bytes`` that end just after a
    newline (or at the end of the file) and the number of lines before each. A line longer
    than MAX_LINE_BYTES is an InputError naming it. ``first`` is data already read from
    ``handle`` (a reader that looked at the header)."""
    chunk_bytes = chunk_bytes or _CHUNK_BYTES   # looked up now: tests shrink it
    own = handle is None
    if own:
        handle = open_input(path)
    try:
        pending, lines_before = first, 0
        while True:
            try:
                block = handle.read(chunk_bytes)
            except OSError as error:
                raise FileError(path, None, f"cannot read: {_reason(error)}") from None
            pending += block
            cut = pending.rfind(b"\n") + 1 if block else len(pending)
            if cut == 0 and len(pending) > MAX_LINE_BYTES:
                raise FileError(path, lines_before + 1, _TOO_LONG)
            if cut:
                piece, pending = pending[:cut], pending[cut:]
                tail = piece.rfind(b"\n") + 1
                if len(piece) - tail > MAX_LINE_BYTES:
                    raise FileError(path, lines_before + piece.count(b"\n") + 1, _TOO_LONG)
                yield piece, lines_before
                lines_before += piece.count(b"\n")
            if not block:
                return
    finally:
        if own:
            handle.close()


# -- writing -------------------------------------------------------------------------------

def check_output_file(path: str) -> pathlib.Path:
    """``path`` as a file to be written: its directory exists and it is not a directory."""
    target = pathlib.Path(path)
    if str(path) == "" or target.is_dir():
        raise UsageError(f"cannot write '{path}': it is a directory")
    # 'name/' names a directory, whose file this cannot be (pathlib would drop the slash and
    # write 'name'): worded as the generated programs' check_output_file words it
    parent = pathlib.Path(str(path).rstrip("/")) if str(path).endswith("/") else target.parent
    if not parent.exists():
        raise UsageError(f"cannot write '{path}': directory '{parent}' does not exist")
    if not parent.is_dir():
        raise UsageError(f"cannot write '{path}': '{parent}' is not a directory")
    return target


def check_output_directory(path: str) -> pathlib.Path:
    """``path`` as an output directory: an existing directory, or a new one whose parent
    exists (it is not created here: ``write_directory`` creates it with the files)."""
    target = pathlib.Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"cannot write into '{path}': it is a file, not a directory")
    parent = target.parent
    if not target.exists():
        if not parent.exists():
            raise UsageError(f"cannot create '{path}': directory '{parent}' does not exist")
        if not parent.is_dir():
            raise UsageError(f"cannot create '{path}': '{parent}' is not a directory")
    return target


def _is_special(target: pathlib.Path) -> bool:
    """An existing file that is not a regular file (/dev/null, a FIFO, /dev/stdout): written
    in place, never replaced by a rename (which would replace the device itself)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def staging_directory(parent: pathlib.Path, name: str) -> pathlib.Path:
    """A new empty directory in ``parent`` to fill and then rename into place (or move out
    of), with the mode mkdir would give under the umask: mkdtemp's own is private (0700),
    which other users and a cluster's other hosts could not read."""
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{name}.", dir=parent))
    staging.chmod(0o777 & ~_umask())
    return staging


def _write_temp(directory: pathlib.Path, name: str, data: Union[str, bytes]) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        # mkstemp's file is private (0600); the renamed output gets what open() would give
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def write_file(path: str, data: Union[str, bytes]) -> pathlib.Path:
    """Write ``data`` to ``path`` atomically (a temporary file renamed into place)."""
    target = check_output_file(path)
    try:
        if _is_special(target):
            with open(target, "wb") as handle:
                handle.write(data.encode() if isinstance(data, str) else data)
            return target
        tmp = _write_temp(target.parent, target.name, data)
        os.replace(tmp, target)
    except OSError as error:
        raise UsageError(f"cannot write '{path}': {_reason(error)}") from None
    return target


@contextlib.contextmanager
def atomic_output(path: str):
    """``with atomic_output(p) as tmp:`` write ``tmp`` (same directory and extension as
    ``p``); it becomes ``p`` only when the block succeeds, and is removed otherwise."""
    target = check_output_file(path)
    if _is_special(target):
        try:
            yield str(target)
        except OSError as error:
            raise UsageError(f"cannot write '{path}': {_reason(error)}") from None
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix,
                                   dir=target.parent)
        os.fchmod(fd, 0o666 & ~_umask())    # as _write_temp: what open() would give
        os.close(fd)
    except OSError as error:
        raise UsageError(f"cannot write '{path}': {_reason(error)}") from None
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as error:
        raise UsageError(f"cannot write '{path}': {_reason(error)}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_directory(path: str, files: Dict[str, Union[str, bytes]]) -> list:
    """Write ``files`` (name -> text) into directory ``path``: a new directory appears with
    every file or not at all; in an existing one each file is replaced atomically."""
    target = check_output_directory(path)
    written = [target / name for name in files]
    try:
        if target.is_dir():
            for name, text in files.items():
                os.replace(_write_temp(target, name, text), target / name)
            return written
        staging = staging_directory(target.parent, target.name)
        try:
            for name, text in files.items():
                (pathlib.Path(staging) / name).write_bytes(
                    text.encode() if isinstance(text, str) else text)
            os.rename(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except OSError as error:
        if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
            raise UsageError(f"cannot create '{path}': it appeared while writing") from None
        raise UsageError(f"cannot write into '{path}': {_reason(error)}") from None
    return written


# -- sizes ---------------------------------------------------------------------------------

def available_memory() -> Optional[int]:
    """Bytes a graph may use: $STARC_MAX_MEMORY when set, else the system's available
    memory (MemAvailable), else None (unknown: no memory check)."""
    setting = os.environ.get("STARC_MAX_MEMORY", "").strip()
    if setting:
        try:
            return _parse_bytes(setting)
        except ValueError:
            raise UsageError(f"STARC_MAX_MEMORY={setting!r} is not a size in bytes "
                             "(e.g. 4000000000 or 4G)") from None
    try:
        with open("/proc/meminfo", "rb") as handle:
            for line in handle:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _parse_bytes(text: str) -> int:
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:].upper())
    value = int(text[:-1] if scale else text) * (scale or 1)
    if value <= 0:
        raise ValueError(text)
    return value


def graph_bytes(num_nodes: int, num_edges: int) -> int:
    """About the most memory a graph of this size needs while it is built and used."""
    return _BYTES_PER_VERTEX * num_nodes + _BYTES_PER_EDGE * num_edges


def _bytes(count: float) -> str:
    """``count`` bytes in the largest unit that keeps a whole number in front (as
    starc_graph.hpp's memory check prints them)."""
    for shift, unit in ((30, "GiB"), (20, "MiB")):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count / 1024:.1f} KiB"


def parse_max_vertices(text: str) -> int:
    """The value of a --max-vertices option (1 .. MAX_VERTICES)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_VERTICES:
        raise UsageError(f"--max-vertices expects an integer 1..{MAX_VERTICES}, got {text!r}")
    return value


def check_graph_size(what: str, num_nodes: int, num_edges: int,
                     max_vertices: Optional[int] = None) -> None:
    """Refuse a graph of ``num_nodes`` vertices and ``num_edges`` edges before it is
    allocated: over ``max_vertices`` (default MAX_VERTICES), over MAX_EDGES, or larger than
    the available memory. ``what`` names the file or generator in the message."""
    limit = MAX_VERTICES if max_vertices is None else max_vertices
    if num_nodes > limit:
        source = "--max-vertices" if max_vertices is not None else "32-bit vertex ids"
        raise InputError(f"{what}: {num_nodes} vertices (ids 0..{num_nodes - 1}) are more "
                         f"than the limit of {limit} ({source})")
    if num_edges > MAX_EDGES:
        raise InputError(f"{what}: {num_edges} edges are more than the limit of {MAX_EDGES} "
                         "(32-bit edge ids)")
    memory = available_memory()
    need = graph_bytes(num_nodes, num_edges)
    if memory is not None and need > memory:
        # more vertices than edges: most likely a few large ids, not a graph that big
        sparse = (" (the vertex count is the largest id + 1: are the ids dense?)"
                  if num_nodes > num_edges else "")
        raise InputError(f"{what}: {num_nodes} vertices and {num_edges} edges need about "
                         f"{_bytes(need)} of memory but {_bytes(memory)} is available{sparse}")
