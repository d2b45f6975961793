"""The backend registry behind ``-b`` and ``starc backends``: lazy, by import path."""

from __future__ import annotations

import importlib
from typing import Dict, List

from starc.backends.base import Backend

__all__ = ["REGISTRY", "get_backend", "backend_names"]

# name -> "module:Class"; imported only when used so a broken or slow backend never slows
# the others (xDSL-style lazy registry). Order is the order `starc backends` lists them in.
REGISTRY: Dict[str, str] = {
    "reference": "starc.reference.backend:ReferenceBackend",
    "opencl": "starc.backends.opencl.emitter:OpenCLBackend",
    "cuda": "starc.backends.cuda.emitter:CUDABackend",
    "sycl": "starc.backends.sycl.emitter:SYCLBackend",
}


def backend_names() -> List[str]:
    return list(REGISTRY)


def get_backend(name: str) -> Backend:
    """Instantiate the backend registered as ``name`` (KeyError if there is none)."""
    module_name, class_name = REGISTRY[name].split(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()
