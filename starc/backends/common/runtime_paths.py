"""Where the shared C++ runtime headers of generated programs live (package data)."""

from __future__ import annotations

import pathlib
from typing import Dict

__all__ = ["RUNTIME_DIR", "RUNTIME_HEADER", "runtime_files"]

#: The folder holding ``starc_runtime.hpp`` and the headers it includes; pass it as ``-I``.
RUNTIME_DIR = pathlib.Path(__file__).resolve().parent / "runtime"

#: The one header generated programs include.
RUNTIME_HEADER = RUNTIME_DIR / "starc_runtime.hpp"


def runtime_files(*backend_headers: pathlib.Path) -> Dict[str, str]:
    """The headers written next to a generated C++ program, by file name: every header of the
    shared runtime, then the backend's own fixed ones (``starc_opencl_host.hpp``); a backend
    adds its rendered prelude (``starc_cuda.cuh``) itself. The folder then builds alone."""
    files = {header.name: header.read_text() for header in sorted(RUNTIME_DIR.glob("*.hpp"))}
    files.update((header.name, header.read_text()) for header in backend_headers)
    return files
