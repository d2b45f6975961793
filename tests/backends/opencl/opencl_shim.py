"""Test-only: run generated OpenCL C kernels as plain C when no OpenCL device can compile them.

Where pyopencl finds no device, or its PoCL cannot compile (LLVM that does not know the host
CPU), the generated ``.cl`` file is compiled with gcc against ``SHIM_HEADER``: exactly the
OpenCL C subset starc emits (address-space qualifiers, ``get_global_id``, the 32/64-bit atomic
built-ins as GCC ``__sync`` built-ins, ``as_int``/``as_float`` ...). ``ShimDevice`` replaces
``starc.backends.opencl.host_runtime.Device``: buffers are numpy arrays and a launch calls the
kernel once per work item, sequentially (global size rounded up as on a device, so the bounds
guards run). It checks what the generated code *means*, not its concurrency. It is never used
outside the tests and never leaks into generated code.
"""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import shutil
import subprocess
from typing import Dict, Optional, Sequence

import numpy as np

from starc.backends.opencl.host_runtime import Buffer, round_up

__all__ = ["SHIM_HEADER", "ShimDevice", "have_gcc", "load_module"]

SHIM_HEADER = r"""
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#define __kernel
#define __global
#define inline static inline
typedef unsigned char uchar;
typedef unsigned int uint;
typedef unsigned long ulong;
long starc_shim_gid;
void starc_shim_set_gid(long gid) { starc_shim_gid = gid; }
#define get_global_id(dim) (starc_shim_gid)
#define CLK_GLOBAL_MEM_FENCE 0
#define mem_fence(flags) __sync_synchronize()
#define atomic_add(p, v) __sync_fetch_and_add((p), (v))
#define atomic_sub(p, v) __sync_fetch_and_sub((p), (v))
#define atomic_and(p, v) __sync_fetch_and_and((p), (v))
#define atomic_or(p, v) __sync_fetch_and_or((p), (v))
#define atomic_xchg(p, v) __sync_lock_test_and_set((p), (v))
#define atomic_cmpxchg(p, c, v) __sync_val_compare_and_swap((p), (c), (v))
#define atom_add atomic_add
#define atom_sub atomic_sub
#define atom_and atomic_and
#define atom_or atomic_or
#define atom_cmpxchg atomic_cmpxchg
static int atomic_min(volatile int *p, int v) { int o = *p; if (v < o) *p = v; return o; }
static int atomic_max(volatile int *p, int v) { int o = *p; if (v > o) *p = v; return o; }
static long atom_min(volatile long *p, long v) { long o = *p; if (v < o) *p = v; return o; }
static long atom_max(volatile long *p, long v) { long o = *p; if (v > o) *p = v; return o; }
static int as_int(float x) { int r; memcpy(&r, &x, sizeof r); return r; }
static float as_float(int x) { float r; memcpy(&r, &x, sizeof r); return r; }
static long as_long(double x) { long r; memcpy(&r, &x, sizeof r); return r; }
static double as_double(long x) { double r; memcpy(&r, &x, sizeof r); return r; }
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
"""

_CTYPES = {np.dtype(np.int32): ctypes.c_int, np.dtype(np.int64): ctypes.c_long,
           np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double,
           np.dtype(np.uint8): ctypes.c_ubyte}


def have_gcc() -> bool:
    return shutil.which("gcc") is not None


def load_module(path: pathlib.Path):
    """Import a generated host module from its file."""
    spec = importlib.util.spec_from_file_location(f"starc_generated_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ShimDevice:
    """The ``host_runtime.Device`` interface over gcc-compiled kernels and numpy buffers."""

    def __init__(self, kernel_file: pathlib.Path, signatures: Dict[str, Sequence[Optional[type]]],
                 workdir: pathlib.Path, group: int = 8) -> None:
        header = workdir / "starc_opencl_shim.h"
        header.write_text(SHIM_HEADER)
        library = workdir / (kernel_file.stem + "_shim.so")
        proc = subprocess.run(
            ["gcc", "-std=gnu11", "-O1", "-fPIC", "-shared", "-fwrapv", "-ffp-contract=off",
             "-Wall", "-Wno-unknown-pragmas", "-Wno-unused-function", "-Werror",
             "-include", str(header), "-x", "c", str(kernel_file), "-o", str(library)],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"gcc rejected {kernel_file.name}:\n{proc.stderr}")
        self.lib = ctypes.CDLL(str(library))
        self.lib.starc_shim_set_gid.argtypes = [ctypes.c_long]
        self.signatures = {name: list(dtypes) for name, dtypes in signatures.items()}
        self.group = group
        self.launches = 0

    def alloc(self, dtype, count: int) -> Buffer:
        dtype = np.dtype(dtype)
        # Garbage, not zeros: a program must initialise what it reads, as on a device.
        data = np.frombuffer(np.random.bytes(max(1, int(count)) * dtype.itemsize), dtype=dtype)
        return Buffer(data.copy(), dtype, int(count))

    def upload(self, values, dtype) -> Buffer:
        values = np.ascontiguousarray(values, dtype=dtype)
        buf = self.alloc(values.dtype, values.size)
        buf.buffer[:values.size] = values
        return buf

    def download(self, buf: Buffer) -> np.ndarray:
        return buf.buffer[:buf.count].copy()

    def fill(self, buf: Buffer, value) -> None:
        buf.buffer[:buf.count] = np.array([value]).astype(buf.dtype)[0]

    def copy(self, dst: Buffer, src: Buffer) -> None:
        dst.buffer[:src.count] = src.buffer[:src.count]

    def write_element(self, buf: Buffer, index, value) -> None:
        assert 0 <= int(index) < buf.count, (index, buf.count)
        buf.buffer[int(index)] = np.array([value]).astype(buf.dtype)[0]

    def read_element(self, buf: Buffer, index=0):
        assert 0 <= int(index) < buf.count, (index, buf.count)
        return buf.buffer[int(index)]

    def _call(self, name: str, items: int, args) -> None:
        dtypes = self.signatures[name]
        assert len(dtypes) == len(args), (name, dtypes, args)
        kernel = getattr(self.lib, name)
        kernel.argtypes = [ctypes.c_void_p if d is None else _CTYPES[np.dtype(d)]
                           for d in dtypes]
        values = [a.buffer.ctypes.data if isinstance(a, Buffer) else a for a in args]
        for gid in range(items):
            self.lib.starc_shim_set_gid(gid)
            kernel(*values)
        self.launches += 1

    def launch(self, name: str, count: int, *args) -> None:
        if count > 0:
            self._call(name, round_up(int(count), self.group), args)

    def launch_single(self, name: str, *args) -> None:
        self._call(name, 1, args)

    def finish(self) -> None:
        pass
