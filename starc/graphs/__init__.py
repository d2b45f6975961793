"""Graphs in, CSR out: readers, writers, generators and the Graph class."""

import importlib

__all__ = ["Graph", "load_graph", "GraphFormatError", "write_edge_list", "write_mtx",
           "save_npz", "save_sg", "rmat", "uniform", "grid"]

# Where each name lives. Imported on first use (PEP 562): `starc graph`'s argument parser is
# part of every starc command line, and compiling must not pay for numpy.
_HOMES = {"Graph": ".csr", "GraphFormatError": ".errors", "grid": ".generators",
          "rmat": ".generators", "uniform": ".generators", "load_graph": ".readers",
          "save_npz": ".writers", "save_sg": ".binary",
          "write_edge_list": ".writers", "write_mtx": ".writers"}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
