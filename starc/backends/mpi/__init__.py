"""The MPI backend: one process per rank, each holding its own part of the graph."""

from starc.backends.base import BackendOption

#: the command-line options of this backend (the registry lists them for ``starc``)
MPI_COMPILER = BackendOption(
    "--mpi-compiler", "MPI C++ compiler wrapper (default: mpicxx)", default="mpicxx",
    command=True)
OPTIONS = (MPI_COMPILER,)
