"""The backend registry behind ``-b`` and ``starc backends``: lazy, by import path."""

from __future__ import annotations

import importlib
from typing import Dict, List, Optional, Tuple

from starc.backends.base import Backend, BackendOption

__all__ = ["REGISTRY", "get_backend", "backend_names", "backend_options"]

# name -> ("module:Class", the package whose ``OPTIONS`` are the backend's own command-line
# options, or None). Backends are imported only when used, so a broken or slow backend never
# slows the others (xDSL-style lazy registry); the option packages are small. Order is the
# order `starc backends` lists them in. Adding a backend = its package + one line here.
REGISTRY: Dict[str, Tuple[str, Optional[str]]] = {
    "reference": ("starc.reference.backend:ReferenceBackend", None),
    "opencl": ("starc.backends.opencl.emitter:OpenCLBackend", None),
    "cuda": ("starc.backends.cuda.emitter:CUDABackend", "starc.backends.cuda"),
    "sycl": ("starc.backends.sycl.emitter:SYCLBackend", "starc.backends.sycl"),
    "openacc": ("starc.backends.openacc.emitter:OpenACCBackend", "starc.backends.openacc"),
    "mpi": ("starc.backends.mpi.emitter:MPIBackend", "starc.backends.mpi"),
}


def backend_names() -> List[str]:
    return list(REGISTRY)


def device_backend_names() -> List[str]:
    """Every registered backend that generates a program (all but the reference executor)."""
    return [name for name in REGISTRY if name != "reference"]


def get_backend(name: str) -> Backend:
    """Instantiate the backend registered as ``name`` (KeyError if there is none)."""
    module_name, class_name = REGISTRY[name][0].split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()


def backend_options() -> List[Tuple[str, BackendOption]]:
    """(backend name, option) for every option a registered backend declares."""
    found = []
    for name, (_, package) in REGISTRY.items():
        if package is not None:
            found += [(name, option) for option in importlib.import_module(package).OPTIONS]
    return found
