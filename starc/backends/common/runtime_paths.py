"""Where the shared C++ runtime headers of generated programs live (package data)."""

from __future__ import annotations

import pathlib

__all__ = ["RUNTIME_DIR", "RUNTIME_HEADER"]

#: The folder holding ``starc_runtime.hpp`` and the headers it includes; pass it as ``-I``.
RUNTIME_DIR = pathlib.Path(__file__).resolve().parent / "runtime"

#: The one header generated programs include.
RUNTIME_HEADER = RUNTIME_DIR / "starc_runtime.hpp"
