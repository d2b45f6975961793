"""PLACEHOLDER in branch h/tc only, so the registry, ``starc backends`` and the toolchain
tests have a class to load: the lead's emitter.py (the real MPIBackend) replaces this file."""

from __future__ import annotations

from starc.backends.base import BackendError
from starc.backends.common.program import CppBackend
from starc.backends.mpi import toolchain

__all__ = ["MPIBackend"]


class MPIBackend(CppBackend):
    name = "mpi"
    description = "MPI C++ (mpicxx + mpirun): one process per rank, the graph distributed"
    toolchain = toolchain

    def generate(self, plan, options):
        raise BackendError("the MPI code generator is not in this branch yet")
