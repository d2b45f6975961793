"""The OpenCL backend: OpenCL C 1.2 kernels plus a generated Python/pyopencl host module."""

from __future__ import annotations

import functools
import pathlib
import sys
from typing import List, Tuple

import starc
from starc.analysis import plan as P
from starc.backends.base import (Availability, Backend, BackendError, BackendOptions,
                                 BuiltProgram, GeneratedProgram)
from starc.backends.common.cfamily import DialectError
from starc.backends.opencl.host import PY_TYPES, STORAGE_DTYPES, print_host
from starc.backends.opencl.kernels import render_kernels
from starc.ir.types import PropType, Scalar, SetType

__all__ = ["OpenCLBackend"]

TEMPLATES = pathlib.Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=None)
def _template(name: str):
    from mako.template import Template
    return Template(filename=str(TEMPLATES / name), strict_undefined=True)


def _program_name(plan: P.Plan) -> str:
    stem = pathlib.Path(plan.program.filename).stem
    ok = stem and stem.replace("_", "a").isalnum() and not stem[0].isdigit()
    return stem if ok and plan.program.filename.endswith(".sp") else "prog"


def _type_repr(t) -> str:
    if isinstance(t, Scalar):
        return f"Scalar.{t.name}"
    if isinstance(t, PropType):
        return f"PropType({t.kind!r}, Scalar.{t.elem.name})"
    if isinstance(t, SetType):
        return f"SetType({t.kind!r}, {t.graph!r})"
    return "GRAPH"


def _input_params(plan: P.Plan) -> List:
    return [p for p in plan.function.params if isinstance(p.type, (Scalar, SetType))]


def _example(sym) -> str:
    if isinstance(sym.type, SetType):
        return "0,5,9"
    return {Scalar.BOOL: "1", Scalar.FLOAT: "0.001", Scalar.DOUBLE: "0.001"}.get(sym.type, "0")


class OpenCLBackend(Backend):
    name = "opencl"
    description = "OpenCL C 1.2 kernels with a Python/pyopencl host (PoCL runs it on any CPU)"

    # --- availability ---------------------------------------------------------------------------
    def availability(self) -> Availability:
        return _probe()

    # --- generation ----------------------------------------------------------------------------
    def generate(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        try:
            kernels = render_kernels(plan.kernels)
            host = print_host(plan, kernels.kernels)
        except DialectError as exc:
            raise BackendError(str(exc), exc.loc) from None
        prog = _program_name(plan)
        kernel_file, host_file = f"{prog}.cl", f"{prog}.py"
        inputs = _input_params(plan)
        run_command = " ".join(
            [f"python {host_file} GRAPH"] + [f"--{p.name} {_example(p)}" for p in inputs]
            + ["[--undirected] [--out FILE] [--time] [--device cpu|gpu|default]"])
        common = dict(version=starc.__version__, source=pathlib.Path(plan.program.filename).name,
                      function=plan.function.name, kernel_file=kernel_file,
                      host_file=host_file, run_command=run_command)
        cl_text = _template("kernels.cl.mako").render(
            prelude=kernels.prelude, kernels=kernels.text, **common)
        allocations, downloads = self._data(plan, host)
        py_text = _template("host.py.mako").render(
            import_example=", ".join(f"{p.name}={_example(p)!r}" if isinstance(p.type, SetType)
                                     else f"{p.name}={_example(p)}" for p in inputs),
            extensions=kernels.extensions,
            interface=[f"ir.Symbol({s.name!r}, {_type_repr(s.type)}, ir.SymbolKind.PARAM, "
                       f"{s.uid})" for s in plan.function.params],
            results=[(s.name, s.type.elem) for s in plan.function.params
                     if isinstance(s.type, PropType) and s.type.kind == "node"],
            return_type=plan.function.return_type,
            signatures=[(k.name, ["None" if a.is_array else STORAGE_DTYPES[a.elem]
                                  for a in k.args]) for k in kernels.kernels],
            param_names=[name for _, name in host.params],
            param_values=[_param_value(sym) for sym, _ in host.params],
            check_sites=[_site_repr(c) for c in (plan.error.sites if plan.error else ())],
            error_check=host.error_check,
            body=host.body, allocations=allocations, downloads=downloads,
            work_group_size=options.block_size or 256, starc_root=_starc_root(), **common)
        return GeneratedProgram("opencl", plan.function.name,
                                {kernel_file: cl_text, host_file: py_text}, host_file,
                                build_hint=f"none needed: {run_command}")

    def _data(self, plan: P.Plan, host) -> Tuple[List[str], List[str]]:
        sizes = {"nodes": "n", "nodes+1": "n + 1", "edges": "m", "one": "1"}
        allocations = [f"{name}=device.upload(graph.{name}, np.int32)"
                       for name in host.graph_arrays]
        for array in plan.arrays:
            if array.role == "graph":
                continue
            attr = host.arrays[array.name][len("dev."):]
            dtype = STORAGE_DTYPES[array.elem]
            if array.role == "weight" and array.sym is not None:
                allocations.append(f"{attr}=device.upload(args[{array.sym.name!r}], {dtype})")
            elif array.copy_in:
                raise BackendError(f"the opencl backend does not know what to copy into the "
                                   f"{array.role} array '{array.name}'")
            else:
                allocations.append(f"{attr}=device.alloc({dtype}, {sizes[array.extent]})")
        downloads = []
        for sym in plan.function.params:
            if not (isinstance(sym.type, PropType) and sym.type.kind == "node"):
                continue
            array = next((a for a in plan.arrays if a.sym == sym), None)
            if array is None:     # a result the function never touches: zeros, as allocated
                downloads.append(f"{sym.name!r}: np.zeros(n, "
                                 f"{STORAGE_DTYPES[sym.type.elem]})")
            else:
                downloads.append(f"{sym.name!r}: device.download({host.arrays[array.name]})")
        return allocations, downloads

    # --- build -----------------------------------------------------------------------------------
    def build(self, generated: GeneratedProgram, outdir: pathlib.Path,
              options: BackendOptions) -> BuiltProgram:
        outdir = pathlib.Path(outdir)
        kernel_name = next(name for name in generated.files if name.endswith(".cl"))
        _check_builds(generated.files[kernel_name], kernel_name)
        generated.write(outdir)
        return BuiltProgram("opencl", generated.function, outdir,
                            [sys.executable, str(outdir / generated.main)])


_PROBE_KERNEL = "__kernel void starc_probe(__global int *a) { a[get_global_id(0)] = 1; }"


@functools.lru_cache(maxsize=None)
def _probe() -> Availability:
    """pyopencl importable, a device found, and a trivial kernel builds on one of them."""
    try:
        import pyopencl as cl
    except ImportError as exc:
        return Availability(False, False, f"pyopencl is not installed ({exc}); "
                                          "pip install pyopencl[pocl]")
    try:
        devices = [(p, d) for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error as exc:
        return Availability(False, False, f"pyopencl {cl.VERSION_TEXT}: no OpenCL platform "
                                          f"({exc}); pip install pyopencl[pocl]")
    if not devices:
        return Availability(False, False, f"pyopencl {cl.VERSION_TEXT}: no OpenCL device")
    failures = []
    for platform, device in devices:
        label = f"{_platform_label(platform)}: {device.name.strip()}"
        try:
            cl.Program(cl.Context([device]), _PROBE_KERNEL).build()
        except cl.Error as exc:
            failures.append(f"{label} cannot compile kernels ({_build_error(exc)})")
            continue
        return Availability(True, True, f"pyopencl {cl.VERSION_TEXT}, {label}")
    return Availability(False, False, f"pyopencl {cl.VERSION_TEXT}: " + "; ".join(failures))


def _build_error(exc) -> str:
    """The first line of a build log that says what went wrong."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() and "clBuildProgram" not in line]
    return (errors or lines or ["unknown error"])[0]


def _site_repr(site) -> str:
    loc = site.loc
    return (f"CheckSite({site.kind!r}, SourceLoc({loc.file!r}, {loc.line}, {loc.col}), "
            f"{site.name!r}, {site.extent!r})")


def _param_value(sym) -> str:
    key = repr(sym.name)
    if isinstance(sym.type, SetType):
        return f"[i32(x) for x in args[{key}]]"
    if isinstance(sym.type, PropType):
        return f"args[{key}]"
    return f"{PY_TYPES[sym.type]}(args[{key}])"


def _platform_label(platform) -> str:
    name = platform.name.strip()
    return "PoCL" if "Portable Computing Language" in name else name


def _starc_root() -> str:
    return str(pathlib.Path(starc.__file__).resolve().parent.parent)


def _check_builds(source: str, name: str) -> None:
    """Compile the kernels on the first device so errors surface at build time."""
    try:
        import pyopencl as cl
    except ImportError as exc:
        raise BackendError(f"cannot build OpenCL kernels: pyopencl is missing ({exc})",
                           code="E0502") from None
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    if not devices:
        raise BackendError("cannot build OpenCL kernels: no OpenCL device", code="E0502")
    # Any device that builds it will do (the host picks its own at run time and checks the
    # extensions again); report the first device's log when none does.
    first_error = None
    for device in devices:
        try:
            cl.Program(cl.Context([device]), source).build()
            return
        except cl.Error as exc:
            first_error = first_error or (device, exc)
    device, exc = first_error
    raise BackendError(f"the OpenCL compiler rejected {name} on '{device.name.strip()}':\n"
                       f"{exc}") from None
