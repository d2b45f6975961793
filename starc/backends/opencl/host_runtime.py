"""Runtime support imported by generated OpenCL host modules: device, buffers, C arithmetic.

Generated ``prog.py`` files keep the algorithm (the plan's host tree) readable and leave the
pyopencl mechanics here: choosing the device, checking extensions, building the program once,
buffers that are never empty, launches rounded up to the work-group size, single-element
transfers, and the C semantics of host arithmetic on numpy scalars (``cdiv``/``cmod``).
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Dict, Iterable, Optional, Sequence

import numpy as np

from starc.diagnostics import SourceLoc
from starc.errors import StarcError
from starc.reference.values import ExecutionError

__all__ = ["DeviceError", "check_errors", "host_index", "Buffer", "Device", "cdiv", "cmod",
           "inf", "neg_inf", "find_edge", "out_degree", "in_degree", "weight_bound",
           "round_up", "check_graph", "open_device", "run_in_process", "main", "bind",
           "make_results", "i32", "i64", "f32", "f64"]

#: the C types of host scalars in generated code
i32, i64, f32, f64 = np.int32, np.int64, np.float32, np.float64


class DeviceError(StarcError, RuntimeError):
    """No usable OpenCL device, a missing extension, or a failed build."""


def _wrap(value: int, like):
    """``value`` in the numpy integer type of ``like``, wrapped as two's complement."""
    kind = type(like) if isinstance(like, np.integer) else np.int64
    half = 2 ** (np.dtype(kind).itemsize * 8 - 1)
    return kind((int(value) + half) % (2 * half) - half)


def _fault(message: str, where):
    loc = SourceLoc(*where) if where is not None else None
    return ExecutionError(message, loc) if loc is not None else ZeroDivisionError(message)


def cdiv(a, b, where=None):
    """C's integer division (truncates toward zero), in the type of ``a``; by zero, the
    reference's run-time error at ``where`` (file, line, col); ``INT_MIN / -1`` wraps."""
    if b == 0:
        raise _fault("integer division by zero", where)
    quotient = abs(int(a)) // abs(int(b))
    return _wrap(quotient if (a < 0) == (b < 0) else -quotient, a)


def cmod(a, b, where=None):
    """C's remainder (the sign of the dividend), in the type of ``a``."""
    if b == 0:
        raise _fault("integer modulo by zero", where)
    r = abs(int(a)) % abs(int(b))
    return type(a)(-r if a < 0 else r)


def inf(dtype):
    """INF of a type: its largest value (FLT_MAX/DBL_MAX for floats, as the kernels use)."""
    dtype = np.dtype(dtype)
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return dtype.type(info.max)


def neg_inf(dtype):
    """-INF of a type: its lowest value (never the smallest positive float)."""
    dtype = np.dtype(dtype)
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return dtype.type(info.min)


def find_edge(graph, u, w) -> np.int32:
    """The first edge u -> w (lowest id) or -1, by binary search as the kernels do it."""
    lo, hi = int(graph.offsets[u]), int(graph.offsets[int(u) + 1])
    pos = lo + int(np.searchsorted(graph.targets[lo:hi], w, side="left"))
    return np.int32(pos if pos < hi and graph.targets[pos] == w else -1)


def out_degree(graph, v) -> np.int32:
    return np.int32(graph.offsets[int(v) + 1] - graph.offsets[v])


def in_degree(graph, v) -> np.int32:
    return np.int32(graph.rev_offsets[int(v) + 1] - graph.rev_offsets[v])


def weight_bound(weights: np.ndarray, func: str, dtype):
    """minWt/maxWt: the smallest/largest weight (INF/-INF of the type when there are none)."""
    if weights.size == 0:
        return inf(dtype) if func == "minWt" else neg_inf(dtype)
    return np.dtype(dtype).type(weights.min() if func == "minWt" else weights.max())


def round_up(count: int, group: int) -> int:
    return (count + group - 1) // group * group


@dataclasses.dataclass
class Buffer:
    """A device allocation of ``count`` elements of ``dtype`` (never zero bytes)."""

    buffer: object
    dtype: np.dtype
    count: int


class Device:
    """One OpenCL context, queue and built program; every transfer and launch goes here."""

    def __init__(self, source: str, signatures: Dict[str, Sequence[Optional[type]]],
                 device: str = "default", required_extensions: Iterable[str] = (),
                 work_group_size: int = 256, build_options: Sequence[str] = ()) -> None:
        import pyopencl as cl
        self.cl = cl
        self.device = _choose_device(cl, device)
        missing = [ext for ext in required_extensions
                   if ext not in self.device.extensions.split()]
        if missing:
            raise DeviceError(f"the OpenCL device '{self.device.name.strip()}' lacks "
                              f"{', '.join(missing)}, which this program's kernels need "
                              "(choose another with --device or PYOPENCL_CTX)")
        self.context = cl.Context([self.device])
        self.queue = cl.CommandQueue(self.context)
        try:
            self.program = cl.Program(self.context, source).build(options=list(build_options))
        except cl.Error as exc:
            raise DeviceError(f"building the kernels failed on '{self.device.name.strip()}':"
                              f"\n{exc}") from None
        self.kernels = {}
        self.group = {}
        for name, dtypes in signatures.items():
            kernel = getattr(self.program, name)
            kernel.set_scalar_arg_dtypes(list(dtypes))
            self.kernels[name] = kernel
            limit = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE,
                                               self.device)
            self.group[name] = max(1, min(work_group_size, limit))

    # --- memory ----------------------------------------------------------------------------
    def alloc(self, dtype, count: int) -> Buffer:
        dtype = np.dtype(dtype)
        size = max(1, int(count)) * dtype.itemsize
        return Buffer(self.cl.Buffer(self.context, self.cl.mem_flags.READ_WRITE, size),
                      dtype, int(count))

    def upload(self, values: np.ndarray, dtype) -> Buffer:
        values = np.ascontiguousarray(values, dtype=dtype)
        buf = self.alloc(values.dtype, values.size)
        if values.size:
            self.cl.enqueue_copy(self.queue, buf.buffer, values)
        return buf

    def download(self, buf: Buffer) -> np.ndarray:
        out = np.empty(buf.count, dtype=buf.dtype)
        if buf.count:
            self.cl.enqueue_copy(self.queue, out, buf.buffer)
        return out

    def fill(self, buf: Buffer, value) -> None:
        if buf.count:
            pattern = np.array([value]).astype(buf.dtype)
            self.cl.enqueue_fill_buffer(self.queue, buf.buffer, pattern, 0,
                                        buf.count * buf.dtype.itemsize)

    def copy(self, dst: Buffer, src: Buffer) -> None:
        if src.count:
            self.cl.enqueue_copy(self.queue, dst.buffer, src.buffer,
                                 byte_count=src.count * src.dtype.itemsize)

    def write_element(self, buf: Buffer, index, value) -> None:
        index = int(index)
        if not 0 <= index < buf.count:
            raise IndexError(f"index {index} out of range 0..{buf.count - 1}")
        one = np.array([value]).astype(buf.dtype)
        self.cl.enqueue_copy(self.queue, buf.buffer, one,
                             dst_offset=index * buf.dtype.itemsize)

    def read_element(self, buf: Buffer, index=0):
        index = int(index)
        if not 0 <= index < buf.count:
            raise IndexError(f"index {index} out of range 0..{buf.count - 1}")
        one = np.empty(1, dtype=buf.dtype)
        self.cl.enqueue_copy(self.queue, one, buf.buffer, src_offset=index * buf.dtype.itemsize)
        return one[0]

    # --- kernels -----------------------------------------------------------------------------
    def launch(self, name: str, count: int, *args) -> None:
        """One work item per element of ``count``; the kernel returns for ids >= count."""
        if count <= 0:
            return
        group = self.group[name]
        self.kernels[name](self.queue, (round_up(count, group),), (group,), *_kernel_args(args))

    def launch_single(self, name: str, *args) -> None:
        """A single-item kernel: exactly one work item."""
        self.kernels[name](self.queue, (1,), (1,), *_kernel_args(args))

    def finish(self) -> None:
        self.queue.finish()

    def describe(self) -> str:
        return f"{self.device.platform.name.strip()}: {self.device.name.strip()}"


def _kernel_args(args):
    """Buffers as their OpenCL buffers; a numpy bool (a host bool computed by a comparison)
    as an int: pyopencl cannot convert np.bool_ to the kernel's uchar (std::bad_cast)."""
    return [a.buffer if isinstance(a, Buffer) else int(a) if isinstance(a, np.bool_) else a
            for a in args]


def check_graph(graph) -> None:
    """The kernels index with 32-bit ints: refuse graphs beyond that."""
    limit = np.iinfo(np.int32).max
    if graph.num_nodes >= limit or graph.num_edges >= limit:
        raise DeviceError(f"the graph has {graph.num_nodes} vertices and {graph.num_edges} "
                          "edges; the opencl backend supports fewer than 2^31-1 of each")


_DEVICES: Dict[tuple, Device] = {}


def open_device(kernel_file, signatures, kind: str = "default",
                required_extensions: Sequence[str] = (), work_group_size: int = 256) -> Device:
    """A ``Device`` with ``kernel_file`` built, cached per (file, kind, group size)."""
    key = (str(kernel_file), kind, work_group_size)
    if key not in _DEVICES:
        source = pathlib.Path(kernel_file).read_text()
        _DEVICES[key] = Device(source, signatures, kind, required_extensions, work_group_size)
    return _DEVICES[key]


def host_index(index, count: int, name: str, file: str, line: int, col: int) -> int:
    """A property element the host reads or writes: ``index`` when it is in 0..count-1, else
    the reference executor's located "index i of 'name' out of range" error."""
    index = int(index)
    if not 0 <= index < count:
        raise ExecutionError(f"index {index} of {name!r} out of range 0..{count - 1}",
                             SourceLoc(file, line, col))
    return index


def check_errors(device, graph, site_buf, value_buf, sites) -> None:
    """Raise the reference executor's ``ExecutionError`` when a kernel's run-time check failed
    (the device error word, ``starc.analysis.checks``); one element read when none did."""
    site = int(device.read_element(site_buf))
    if site:
        check = sites[site - 1]
        value = int(device.read_element(value_buf))
        raise ExecutionError(check.message(value, graph.num_nodes, graph.num_edges), check.loc)


def bind(module, graph, options):
    from starc.runcontract import bind_arguments
    bound = bind_arguments(module.FUNCTION, graph, options)
    return {sym.name: value for sym, value in bound.items()}


def make_results(module, graph_label: str, props, value):
    from starc.results import Results
    out = {}
    for name, scalar in module.RESULT_TYPES.items():
        values = props[name]
        out[name] = values.astype(bool) if scalar.name == "BOOL" else values
    return Results(module.FUNCTION.name, "opencl", graph_label, out,
                   dict(module.RESULT_TYPES), None if value is None else value,
                   module.RETURN_TYPE)


def run_in_process(module, graph, device: str = "default", undirected: bool = False,
                   params: Optional[dict] = None):
    """``prog.run(graph, src=0)``: bind, run on the device, return ``Results``."""
    from starc.graphs import Graph, load_graph
    label = str(graph)
    if not isinstance(graph, Graph):
        graph = load_graph(str(graph), undirected=undirected)
    else:
        label = graph.name
    options = {key: ",".join(map(str, value)) if isinstance(value, (list, tuple)) else
               str(value) for key, value in (params or {}).items()}
    args = bind(module, graph, options)
    dev = module.open_device(device)
    with np.errstate(all="ignore"):
        props, value = module.compute(dev, graph, args)
    return make_results(module, label, props, value)


def main(module, argv: Sequence[str]) -> int:
    """The generated-program command line (DESIGN.md, "The generated-program contract")."""
    import sys
    import time
    from starc.graphs import load_graph
    from starc.inputs import check_output_file, parse_max_vertices, write_file
    from starc.results import format_results
    from starc.runner import parse_param_tokens

    from starc.argparsing import ExactArgumentParser
    parser = ExactArgumentParser(
        prog=os.path.basename(module.__file__),
        description=f"Run {module.FUNCTION.name} (starc, backend opencl) on a graph; program "
                    "parameters are given as --name value.")
    parser.add_argument("graph", help="edge list (src dst [weight]) or Matrix Market file")
    parser.add_argument("--undirected", action="store_true", help="add every reverse edge")
    parser.add_argument("--out", help="write the results here instead of stdout")
    parser.add_argument("--time", action="store_true",
                        help="print 'starc-time <seconds>' on stderr")
    parser.add_argument("--device", default="default", choices=("default", "cpu", "gpu"),
                        help="the OpenCL device kind (default: PYOPENCL_CTX, a GPU, any)")
    parser.add_argument("--max-vertices", metavar="N",
                        help="refuse graphs with more than N vertices (default 2^31-1)")
    ns, rest = parser.parse_known_args(argv)
    name = parser.prog
    try:
        # The exit status is the error's: 1 bad input data, 2 bad command line.
        options = parse_param_tokens(rest)
        max_vertices = None if ns.max_vertices is None else parse_max_vertices(ns.max_vertices)
        if ns.out:
            check_output_file(ns.out)
        graph = load_graph(ns.graph, undirected=ns.undirected, max_vertices=max_vertices)
        args = bind(module, graph, options)
        device = module.open_device(ns.device)
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                props, value = module.compute(device, graph, args)
        except (ArithmeticError, IndexError) as exc:
            raise DeviceError(str(exc)) from None
        elapsed = time.perf_counter() - start
        text = format_results(make_results(module, ns.graph, props, value))
        if ns.out:
            write_file(ns.out, text)
    except ExecutionError as exc:     # a failed run-time check: the reference's message
        print(exc, file=sys.stderr)
        return 1
    except StarcError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    if not ns.out:
        sys.stdout.write(text)
    if ns.time:
        print(f"starc-time {elapsed:.6f}", file=sys.stderr)
    return 0


def _choose_device(cl, kind: str):
    """``default``: PYOPENCL_CTX if set, else the first GPU, else the first device;
    ``cpu``/``gpu``: the first device of that type. A device whose compiler cannot build a
    trivial kernel is passed over (e.g. a PoCL whose LLVM does not know the host CPU), so a
    machine with two OpenCL installations uses the one that works."""
    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        raise DeviceError(f"no OpenCL platform found ({exc})") from None
    devices = [d for p in platforms for d in _devices(cl, p)]
    if not devices:
        raise DeviceError("no OpenCL device found (install PoCL: pip install pyopencl[pocl])")
    if kind == "default" and os.environ.get("PYOPENCL_CTX"):
        return cl.create_some_context(interactive=False).devices[0]
    wanted = {"cpu": cl.device_type.CPU, "gpu": cl.device_type.GPU}
    if kind == "default":
        gpus = [d for d in devices if d.type & cl.device_type.GPU]
        candidates = gpus + [d for d in devices if not d.type & cl.device_type.GPU]
    elif kind not in wanted:
        raise DeviceError(f"unknown device kind {kind!r} (use cpu, gpu or default)")
    else:
        candidates = [d for d in devices if d.type & wanted[kind]]
    if not candidates:
        found = ", ".join(d.name.strip() for d in devices)
        raise DeviceError(f"no OpenCL {kind.upper()} device found (found: {found})")
    failures = []
    for device in candidates:
        try:
            cl.Program(cl.Context([device]), _PROBE_KERNEL).build()
        except cl.Error as exc:
            failures.append(f"{device.name.strip()}: {str(exc).strip().splitlines()[-1]}")
            continue
        return device
    raise DeviceError("no OpenCL device can compile kernels: " + "; ".join(failures))


_PROBE_KERNEL = "__kernel void starc_probe(__global int* a) { a[get_global_id(0)] = 1; }"


def _devices(cl, platform):
    try:
        return platform.get_devices()
    except cl.Error:
        return []
