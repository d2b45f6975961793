"""Shared helpers of the OpenCL backend tests: compile DSL text, write and import the program."""

from __future__ import annotations

import functools
import pathlib

import numpy as np

from opencl_shim import ShimDevice, load_module
from starc.backends.opencl import host_runtime as rt
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = ROOT / "dsl"


def compile_text(text: str, filename: str = "prog.sp"):
    """The Compilation of ``text`` for the opencl backend (asserting it compiled)."""
    sink = DiagnosticSink()
    comp = compile_source(text, filename, sink, backend="opencl")
    assert comp.ok and comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


@functools.lru_cache(maxsize=None)
def compile_dsl(name: str):
    path = DSL / f"{name}.sp"
    return compile_text(path.read_text(), str(path))


def write_program(comp, outdir: pathlib.Path):
    """Write the generated files and import the host module."""
    comp.generated.write(outdir)
    return load_module(outdir / comp.generated.main)


def run_on_shim(comp, graph, params, outdir: pathlib.Path, label: str = "graph"):
    """Run the generated host with the gcc-compiled kernels; ``Results`` as the CLI makes."""
    module = write_program(comp, outdir)
    kernel_file = outdir / next(f for f in comp.generated.files if f.endswith(".cl"))
    device = ShimDevice(kernel_file, module.SIGNATURES, outdir)
    args = rt.bind(module, graph, params)
    with np.errstate(all="ignore"):
        props, value = module.compute(device, graph, args)
    return rt.make_results(module, label, props, value), device
