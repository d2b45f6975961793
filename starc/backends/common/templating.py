"""The Mako template lookups of the backends: strict, and compiled templates cached on disk."""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import sys
import threading
from typing import Optional

__all__ = ["template_lookup"]

_IMPORT_LOCK = threading.Lock()
_MISSING = object()


def _import_mako():
    """``mako.lookup``, imported without Pygments.

    Mako's exceptions module imports Pygments (and, through it, dozens of lexer modules: about
    a fifth of `starc compile`'s start-up) only to highlight the HTML error pages of
    ``mako.exceptions.html_error_template``, which starc never renders. A ``None`` entry in
    ``sys.modules`` makes that optional import fail, so Mako installs its plain fallback."""
    # One thread at a time: programs are generated in parallel threads (the tests' build
    # fixtures), and a second thread must neither see nor remove the first one's entry.
    with _IMPORT_LOCK:
        if "mako.exceptions" in sys.modules:
            import mako.lookup
            return mako.lookup
        _defer_import("importlib.metadata")
        plugin = "mako.ext.pygmentplugin"
        previous = sys.modules.get(plugin, _MISSING)
        sys.modules[plugin] = None
        try:
            import mako.lookup
        finally:
            if previous is _MISSING:
                sys.modules.pop(plugin, None)
            else:
                sys.modules[plugin] = previous
        return mako.lookup


def _defer_import(name: str) -> None:
    """Make ``import name`` give a module that loads on its first attribute access
    (``importlib.util.LazyLoader``), unless it is loaded already.

    Mako's compatibility module imports ``importlib.metadata`` (and, through it, the email
    package, zipfile and socket: 15 ms, a tenth of `starc compile`) to look up template
    plugins, which starc never does. Deferred, it costs nothing, and any later user gets the
    real module on first use."""
    if name in sys.modules:
        return
    import importlib
    import importlib.util
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    # `import importlib.metadata` binds the package and then reads its attribute.
    setattr(sys.modules[parent], child, module)


def _module_directory(template_directory: str) -> Optional[str]:
    """Where Mako keeps the Python modules compiled from one template directory: under the
    user's cache (never inside the package, which may be read-only), one folder per template
    directory (two backends both have a ``program.cpp.mako``), or None when the cache cannot be
    written, and templates are then compiled in memory on every run."""
    from starc.cachedir import cache_root
    key = hashlib.sha256(os.path.abspath(template_directory).encode()).hexdigest()[:16]
    folder = cache_root() / "mako" / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return str(folder) if os.access(folder, os.W_OK | os.X_OK) else None


@functools.lru_cache(maxsize=None)
def template_lookup(directory: str):
    """The Mako ``TemplateLookup`` of a template directory, one per process: strict (an
    undefined name in a template is an error, never an empty string). Mako regenerates a
    cached module when its template is newer or Mako's code generator changed."""
    lookup = _import_mako()
    return lookup.TemplateLookup(directories=[str(pathlib.Path(directory))],
                                 strict_undefined=True,
                                 module_directory=_module_directory(directory))
