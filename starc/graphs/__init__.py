"""Graphs in, CSR out: readers, writers, generators and the Graph class."""

from .csr import Graph
from .errors import GraphFormatError
from .generators import grid, rmat, uniform
from .readers import load_graph
from .writers import save_npz, write_edge_list, write_mtx

__all__ = ["Graph", "load_graph", "GraphFormatError", "write_edge_list", "write_mtx",
           "save_npz", "rmat", "uniform", "grid"]
