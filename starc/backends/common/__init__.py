"""Shared lowering helpers, the C-family expression printer and the C++ runtime headers."""
