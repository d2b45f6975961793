"""The graph cache (``--cache``): a text graph read once, then served as .sg from the cache dir.

Where: ``<cache root>/graphs/`` (``$STARC_CACHE_DIR``, else ``$XDG_CACHE_HOME/starc``, as
built programs), one file per source file and direction: the SHA-256 of the source's real
path names it, ``-undirected`` marks the symmetrised one. Not next to the source: its
folder may be read-only or shared, and a cache there would be mistaken for data.

When it is fresh: the .sg header records the source's size, modification time (ns) and a
hash of its first and last 64 KiB (``SourceStamp``); any difference rebuilds the cache
(atomically: a reader never sees a half-written file). The stamp is a cheap check, like
make's: an edit that keeps the size, the mtime to the nanosecond and both ends of the file
is not seen. ``.sg`` sources are served as they are; ``.npz`` sources are not cached.
"""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Optional

from starc.errors import FileError, UsageError

from .binary import SourceStamp, read_sg_header, save_sg
from .errors import GraphFormatError

__all__ = ["cached_graph", "source_stamp", "cache_path"]

_SAMPLE_BYTES = 1 << 16


def source_stamp(path: str) -> SourceStamp:
    """Size, mtime and a hash of both ends of ``path``: what a cache entry must match."""
    try:
        info = os.stat(path)
        digest = hashlib.blake2b(digest_size=8)
        with open(path, "rb") as handle:
            digest.update(handle.read(_SAMPLE_BYTES))
            if info.st_size > 2 * _SAMPLE_BYTES:
                handle.seek(-_SAMPLE_BYTES, os.SEEK_END)
            digest.update(handle.read(_SAMPLE_BYTES))
    except OSError as error:
        raise GraphFormatError(path, None, f"cannot open: {error.strerror or error}") from None
    return SourceStamp(info.st_size, info.st_mtime_ns, int.from_bytes(digest.digest(), "little"))


def cache_path(path: str, undirected: bool) -> str:
    """The cache file of ``path`` read with or without ``--undirected``."""
    from starc.cachedir import cache_root
    name = hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:24]
    suffix = "-undirected" if undirected else ""
    return os.path.join(str(cache_root()), "graphs", f"{name}{suffix}.sg")


def cached_graph(path: str, undirected: bool = False,
                 max_vertices: Optional[int] = None) -> str:
    """A .sg file holding what ``load_graph(path, undirected)`` gives, up to date with
    ``path``: built on the first call and after any change of the source. Returns ``path``
    itself for a .sg or .npz source. A cache directory that cannot be made or written is a
    UsageError naming its setting (``starc.cachedir``); a cache file that still cannot be
    written in it (a full disk) is a warning, and the source is returned, to be read as
    text."""
    extension = os.path.splitext(path)[1].lower()
    if extension in (".sg", ".npz"):
        return path
    stamp = source_stamp(path)
    target = cache_path(path, undirected)
    try:
        if read_sg_header(target).source == stamp:
            return target
    except FileError:
        pass                               # missing, damaged or old: build it again
    from starc.cachedir import writable_cache_dir
    from starc.inputs import atomic_output
    from .readers import load_graph
    writable_cache_dir("graphs")              # before reading: a bad setting is known at once
    graph = load_graph(path, undirected=undirected, max_vertices=max_vertices)
    try:
        with atomic_output(target) as tmp:
            save_sg(graph, tmp, undirected, stamp)
    except (OSError, UsageError) as error:
        print(f"starc: warning: cannot write the graph cache {target}: {error}; reading "
              f"{path} as text", file=sys.stderr)
        return path
    return target
