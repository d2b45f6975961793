"""The reference executor as an entry in the backend registry (runs the IR; generates nothing)."""

from __future__ import annotations

import numpy

from starc.backends.base import Availability, Backend, BackendError

__all__ = ["ReferenceBackend"]


class ReferenceBackend(Backend):
    name = "reference"
    description = "sequential executor of the typed IR: the oracle every backend is tested against"

    def availability(self) -> Availability:
        return Availability(True, True, f"built in (Python, numpy {numpy.__version__})")

    def generate(self, plan, options):
        raise BackendError("the reference executor runs the program directly; use "
                           "'starc run FILE -b reference --graph G'")
