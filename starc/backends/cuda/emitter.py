"""The CUDA backend: one ``__global__`` kernel per plan kernel, host code from ``cpp_host``."""

from __future__ import annotations

import pathlib
import re
from typing import List, Optional, Sequence, Set

from mako.lookup import TemplateLookup

import starc
from starc.analysis import plan as P
from starc.backends.base import (Availability, Backend, BackendError, BackendOptions,
                                 BuiltProgram, GeneratedProgram)
from starc.analysis.host_tree import launched_kernels
from starc.backends.common import atomic_helpers, cfamily
from starc.backends.common.cpp_host import CXX_KEYWORDS, CppHostPrinter, HostDialect
from starc.backends.common.device_prelude import render_prelude
from starc.backends.cuda import GPU_ARCH
from starc.backends.common.runtime_paths import runtime_files
from starc.ir.types import Scalar
from starc import toolchains

__all__ = ["CUDADialect", "CUDAHostDialect", "CUDABackend", "RUNTIME_HEADER", "runtime_header",
           "build_command"]

HERE = pathlib.Path(__file__).resolve().parent
#: The CUDA helper header generated programs include next to the shared runtime.
RUNTIME_HEADER = "starc_cuda.cuh"
_TEMPLATES = TemplateLookup(directories=[str(HERE / "templates")], strict_undefined=True)

_NUMERIC = (Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE, Scalar.NODE, Scalar.EDGE)

#: CUDA names a kernel must not shadow.
CUDA_RESERVED = CXX_KEYWORDS | frozenset("""
    threadIdx blockIdx blockDim gridDim warpSize dim3 atomicAdd atomicSub atomicMin atomicMax
    atomicAnd atomicOr atomicCAS atomicExch printf
""".split())


class CUDADialect(cfamily.Dialect):
    """Kernel bodies in CUDA C++: native atomics through the ``starc_cuda.cuh`` helpers
    (CAS loops where CUDA has no instruction), bool arrays as bytes."""

    name = "cuda"
    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(func, t): f"starc_{func.lower()}"
                        for func in ("Min", "Max") for t in _NUMERIC}
    reserved = CUDA_RESERVED


class CUDAHostDialect(HostDialect):
    """The host's device operations with the CUDA runtime API, every call checked."""

    name = "cuda"

    def __init__(self, block_size: int) -> None:
        self.default_block_size = block_size

    def attach(self, printer: CppHostPrinter) -> None:
        super().attach(printer)
        self.block = printer.names.fresh("block_size")
        self.start = printer.names.fresh("start_event")
        self.stop = printer.names.fresh("stop_event")
        self.seconds = printer.names.fresh("seconds")

    def _bytes(self, elem: Scalar, count: str) -> str:
        return f"sizeof({self.storage_type(elem)}) * {_parenthesised(count)}"

    def options(self, cl: str) -> List[str]:
        return [f"const int {self.block} = starc_block_size({cl}, {self.default_block_size});"]

    def setup(self, where: str) -> List[str]:
        return [
            "// Create the CUDA context now, outside the timed region.",
            f"STARC_CUDA_CHECK(cudaFree(nullptr), {where});",
            f"cudaEvent_t {self.start}, {self.stop};",
            f"STARC_CUDA_CHECK(cudaEventCreate(&{self.start}), {where});",
            f"STARC_CUDA_CHECK(cudaEventCreate(&{self.stop}), {where});",
        ]

    def timer_start(self, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaEventRecord({self.start}), {where});"]

    def timer_stop(self, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaEventRecord({self.stop}), {where});",
                f"const double {self.seconds} = starc_elapsed_seconds({self.start}, "
                f"{self.stop}, {where});"]

    def timer_seconds(self) -> str:
        return self.seconds

    def teardown(self, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaEventDestroy({self.start}), {where});",
                f"STARC_CUDA_CHECK(cudaEventDestroy({self.stop}), {where});"]

    def allocate(self, var: str, elem: Scalar, count: str, where: str) -> List[str]:
        if count.endswith("num_nodes") or count.endswith("num_edges"):
            count = f"std::max({count}, 1)"  # never a 0-byte allocation
        return [f"STARC_CUDA_CHECK(cudaMalloc(&{var}, {self._bytes(elem, count)}), {where});"]

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaFree({var}), {where});"]

    def copy_to_device(self, var, elem, host, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({var}, {host}, {self._bytes(elem, count)}, "
                f"cudaMemcpyHostToDevice), {where});"]

    def copy_to_host(self, host, var, elem, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({host}, {var}, {self._bytes(elem, count)}, "
                f"cudaMemcpyDeviceToHost), {where});"]

    def copy_device(self, dst, src, elem, count, where):
        return [f"STARC_CUDA_CHECK(cudaMemcpy({dst}, {src}, {self._bytes(elem, count)}, "
                f"cudaMemcpyDeviceToDevice), {where});"]

    def fill(self, var, elem, value, count, where):
        if _is_zero(value):  # all-zero bytes are 0, false and 0.0 in every element type
            return [f"STARC_CUDA_CHECK(cudaMemset({var}, 0, {self._bytes(elem, count)}), "
                    f"{where});"]
        return [f"starc_fill({var}, {value}, {count}, {self.block}, {where});"]

    def write_element(self, var, elem, index, value, where):
        if index == "0" and _is_zero(value):  # resetting a flag: no blocking host copy
            return [f"STARC_CUDA_CHECK(cudaMemset({var}, 0, {self._bytes(elem, '1')}), "
                    f"{where});"]
        return [f"starc_write_element({var}, {index}, {value}, {where});"]

    def read_element(self, var, elem, index, where):
        return f"starc_read_element({var}, {index}, {where})"

    def launch(self, kernel: cfamily.KernelCode, args: Sequence[str], where: str) -> List[str]:
        if kernel.extent == "single":
            config = "1, 1"
        else:
            count = "num_nodes" if kernel.extent == "nodes" else "num_edges"
            config = f"starc_grid({self.host.graph}.{count}, {self.block}), {self.block}"
        return [f"{kernel.name}<<<{config}>>>({', '.join(args)});",
                f'starc_launch_check("{kernel.name}", {where});']

    def synchronize(self, where: str) -> List[str]:
        return [f"STARC_CUDA_CHECK(cudaDeviceSynchronize(), {where});"]


def _parenthesised(text: str) -> str:
    return f"({text})" if re.search(r"[^\w.()]", text) and not text.startswith("std::max(") \
        else text


def _is_zero(value: str) -> bool:
    return value in ("0", "false", "0.0", "0.0f", "0LL") or re.fullmatch(r"0\.0*f?", value) \
        is not None


class _KernelShell:
    """What the template needs of one kernel."""

    def __init__(self, code: cfamily.KernelCode, dialect: CUDADialect) -> None:
        self.name = code.name
        self.comment = code.comment
        self.index = code.index
        self.body = "\n".join(code.body)
        params = []
        for arg in code.args:
            elem = dialect.storage_type(arg.elem)
            if arg.is_array:
                qualifier = "" if arg.written else "const "
                params.append(f"{qualifier}{elem}* __restrict__ {arg.name}")
            else:
                params.append(f"{elem} {arg.name}")
        self.signature = ", ".join(params)
        head = f"__global__ void {self.name}("
        if len(head) + len(self.signature) + 3 > 100:  # one parameter per line
            self.signature = (",\n" + " " * len(head)).join(params)
        self.bound = None
        self.index_decl = None
        if code.extent == "single":
            if code.index is not None:
                self.index_decl = f"const int {code.index} = 0;"
        else:
            self.index_decl = (f"const int {code.index} = "
                               "static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);")
            self.bound = "n" if code.extent == "nodes" else "m"


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_cuda.cuh`` for kernels with these features: the atomic helpers they use (every
    one when None) and the rest of the CUDA runtime."""
    return render_prelude("cuda", "prelude.cuh.mako", features)


def build_command(program: str, arch: str, strict: bool = True) -> List[str]:
    """The nvcc command line that builds ``program``.cu into ``program`` (in its folder)."""
    # -fwrapv: host code wraps on signed overflow, as the reference (docs/language-notes.md)
    argv = ["nvcc", "-O3", "-std=c++17", f"-arch={arch}", "-Xcompiler", "-fwrapv"]
    if strict:
        argv += ["-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra"]
    return argv + ["-o", program, f"{program}.cu"]


def _synopsis(plan: P.Plan) -> str:
    parts = []
    for p in plan.function.params:
        kind = type(p.type).__name__
        if kind == "Scalar":
            meta = "NODE" if p.type is Scalar.NODE else str(p.type).upper()
            parts.append(f" --{p.name} {meta}")
        elif kind == "SetType":
            parts.append(f" --{p.name} NODE,NODE,...")
    return "".join(parts)


class CUDABackend(Backend):
    name = "cuda"
    description = "CUDA C++ for NVIDIA GPUs (nvcc)"

    def availability(self) -> Availability:
        nvcc = toolchains.find_nvcc()
        if nvcc is None:
            return Availability(False, False, "nvcc not found (set STARC_NVCC or CUDA_HOME)")
        version = toolchains.tool_version(nvcc)
        match = re.search(r"release ([\d.]+)", version)
        found = f"nvcc {match.group(1)}" if match else (version or nvcc)
        gpus = toolchains.nvidia_gpus()
        if not gpus:
            return Availability(True, False, f"{found} found; no GPU: build only")
        return Availability(True, True, f"{found}; {gpus[0]}")

    def generate(self, plan: P.Plan, options: BackendOptions) -> GeneratedProgram:
        dialect = CUDADialect()
        try:
            codes = {k.name: cfamily.lower_kernel(k, dialect) for k in launched_kernels(plan)}
            host = CppHostPrinter(plan, CUDAHostDialect(options.block_size or 256), codes)
            main = host.main()
        except cfamily.DialectError as error:
            raise BackendError(str(error), error.loc) from error
        program = pathlib.Path(plan.program.filename).stem or "prog"
        program = re.sub(r"\W", "_", program)
        build = " ".join(build_command(program, options.value(GPU_ARCH), strict=False))
        includes = sorted(set(host.includes()) | {"algorithm", "utility"})
        text = _TEMPLATES.get_template("program.mako").render(
            program=program, function=plan.function.name, source=host.source,
            version=getattr(starc, "__version__", "0"), build=build,
            synopsis=_synopsis(plan), includes=includes,
            kernels=[_KernelShell(codes[name], dialect) for name in codes],
            main=main)
        features = set().union(*(code.features for code in codes.values()))
        files = {f"{program}.cu": text, **runtime_files(),
                 RUNTIME_HEADER: runtime_header(features)}
        return GeneratedProgram("cuda", plan.function.name, files, f"{program}.cu", build)

    def build(self, generated: GeneratedProgram, outdir: pathlib.Path,
              options: BackendOptions) -> BuiltProgram:
        nvcc = toolchains.find_nvcc()
        if nvcc is None:
            raise BackendError("cannot build CUDA: nvcc not found (set STARC_NVCC or CUDA_HOME)",
                               code="E0502")
        outdir = pathlib.Path(outdir)
        generated.write(outdir)
        program = pathlib.Path(generated.main).stem
        partial = f"{program}.partial"  # renamed when complete: no half-built executable
        argv = build_command(program, options.value(GPU_ARCH))
        argv[0] = nvcc
        argv[argv.index("-o") + 1] = partial
        ok, log = toolchains.run_compiler(argv, cwd=outdir)
        if not ok:
            (outdir / partial).unlink(missing_ok=True)
            raise BackendError(f"nvcc failed to build {generated.main}:\n{log}")
        (outdir / partial).replace(outdir / program)
        return BuiltProgram("cuda", generated.function, outdir, [str(outdir / program)])
