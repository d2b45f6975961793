"""OpenCL C 1.2 kernels from a plan: the dialect table, kernel shells and the ``.cl`` file."""

from __future__ import annotations

import dataclasses
from typing import Iterable, List, Optional, Sequence, Set

from starc.analysis.capabilities import Capabilities
from starc.backends.common import atomic_helpers, group_end
from starc.backends.common.atomic_helpers import AtomicTable, CompareExchange, same_call
from starc.backends.common.binned_shell import GroupSyntax, binned_body
from starc.backends.common.frontier_shell import frontier_body
from starc.backends.common.cfamily import (INDENT, Dialect, KernelArg, KernelCode,
                                           lower_kernel)
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.kernel_arguments import BOUNDS
from starc.ir.types import Scalar

__all__ = ["ATOMICS", "CAPABILITIES", "OpenCLDialect", "KernelFile", "render_kernels", "prelude",
           "required_extensions"]

_INT, _LONG, _FLOAT, _DOUBLE = Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE

_OPENCL_BASE = ("cl_khr_int64_base_atomics",)
_OPENCL_EXTENDED = ("cl_khr_int64_extended_atomics",)

#: OpenCL C 1.2's atomics: 32-bit integer atomics are core; 64-bit ones need
#: cl_khr_int64_base_atomics (add, sub, cmpxchg) or cl_khr_int64_extended_atomics (min, max,
#: and, or); floats only by compare-and-swap on the bit pattern.
ATOMICS = AtomicTable(
    c_types={_INT: "int", _LONG: "long", _FLOAT: "float", _DOUBLE: "double"},
    native={**same_call(("add", "sub", "min", "max", "and", "or"), [_INT], "atomic_{op}(p, v)"),
            **same_call(("add", "sub"), [_LONG], "atom_{op}(p, v)", requires=_OPENCL_BASE),
            **same_call(("min", "max", "and", "or"), [_LONG], "atom_{op}(p, v)",
                        requires=_OPENCL_EXTENDED)},
    compare_exchange={
        _INT: CompareExchange(exchange="atomic_cmpxchg", bits="int"),
        _LONG: CompareExchange(exchange="atom_cmpxchg", bits="long", requires=_OPENCL_BASE),
        _FLOAT: CompareExchange(exchange="atomic_cmpxchg", bits="int",
                                value_to_bits="as_int({})", bits_to_value="as_float({})",
                                bits_pointer="(volatile __global int *){}"),
        _DOUBLE: CompareExchange(exchange="atom_cmpxchg", bits="long",
                                 value_to_bits="as_long({})", bits_to_value="as_double({})",
                                 bits_pointer="(volatile __global long *){}",
                                 requires=_OPENCL_BASE)},
    about="OpenCL C 1.2 atomic_* functions (atom_* for 64-bit integers)")

#: OpenCL C 1.2's capabilities: its atomic_* functions, compare-and-swap loops otherwise; a
#: binned kernel's work-group combines in local memory (no sub-groups in 1.2, so a heavy
#: vertex gets the whole group). Every shell has its work items meet at the kernel's end
#: (none returns early), so a private reduction is folded per work-group by a tree in local
#: memory before one atomic, and worklist appends are staged in local memory, one global
#: atomic per work-group.
CAPABILITIES = Capabilities("opencl", "OpenCL", dynamic_graphs=True, slack_rows=True,
                            span_moves=True,
                            schedules=frozenset({"vertex", "edges", "binned"}),
                            cooperative_bodies=True, frontier_edges=True, union_find=True,
                            lockstep_at_run_time=True,
                            converged_group_functions=True, staged_appends=True, group_rounds=True,
                            group_reductions=group_end.GROUP_REDUCTIONS,
                            **atomic_helpers.atomic_capabilities(ATOMICS))

#: a binned kernel's work-group in OpenCL C 1.2 (no sub-groups: heavy vertices go to the group)
_GROUP = GroupSyntax(local="__local", barrier="barrier(CLK_LOCAL_MEM_FENCE);",
                     lane="(int)get_local_id(0)", lanes="(int)get_local_size(0)",
                     vertex="(int)get_global_id(0)", append="atomic_inc(&starc_heavy_count)",
                     local_min="atomic_min(&{0}, {1});")


class OpenCLDialect(Dialect):
    """OpenCL C 1.2: ``long`` is 64-bit, bool arrays are ``uchar``, float atomics are
    compare-and-swap loops in the prelude, 64-bit atomics need the ``cl_khr_int64_*``
    extensions (checked by the host at start-up)."""

    name = "opencl"
    scalar_types = {Scalar.BOOL: "bool", _INT: "int", _LONG: "long", _FLOAT: "float",
                    _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    storage_types = {Scalar.BOOL: "uchar", _INT: "int", _LONG: "long", _FLOAT: "float",
                     _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    inf_values = {_INT: ("INT_MAX", "INT_MIN"), Scalar.NODE: ("INT_MAX", "INT_MIN"),
                  Scalar.EDGE: ("INT_MAX", "INT_MIN"), _LONG: ("LONG_MAX", "LONG_MIN"),
                  _FLOAT: ("FLT_MAX", "-FLT_MAX"), _DOUBLE: ("DBL_MAX", "-DBL_MAX")}
    long_suffix = "L"
    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(f, t): f.lower() for f in ("Min", "Max")
                        for t in (_INT, _LONG, _FLOAT, _DOUBLE, Scalar.NODE, Scalar.EDGE)}
    reserved = Dialect.reserved | frozenset("""
        kernel __kernel global __global local __local constant __constant private __private
        read_only write_only image2d_t image3d_t sampler_t event_t half uchar ushort uint ulong
        size_t ptrdiff_t get_global_id get_local_id barrier mem_fence atomic_add atomic_min
        atomic_max atomic_cmpxchg as_int as_float as_long as_double fmin fmax
    """.split())

    group_barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
    group_lanes = "(int)get_local_size(0)"

    # a work-group's end, where every work item meets (``group_end``)
    def group_fold(self, elem: Scalar, local: str, combine: str):
        return group_end.reduction_tree(_GROUP, self.type_name(elem), local, combine)

    def staged_append(self, queue: group_end.StagedQueue, value: str) -> str:
        return (f"starc_stage_append({queue.stem}, &{queue.count}, {queue.queue}, "
                f"{queue.length}, {value})")

    def staged_count(self, queue: group_end.StagedQueue) -> str:
        return f"atomic_inc(&{queue.count})"

    def stage_lines(self, queues, end: bool):
        return (group_end.stage_close if end else group_end.stage_open)(_GROUP, queues)


#: The device extensions a kernel file may need, in the order the prelude enables them.
_EXTENSIONS = ("cl_khr_fp64", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics")


def required_extensions(features: Optional[Set[str]] = None) -> List[str]:
    """The device extensions kernels with these features need (doubles, and the 64-bit atomics
    of the helpers they use: ``ATOMICS``); every one when ``features`` is None."""
    if features is None:
        return list(_EXTENSIONS)
    needed = atomic_helpers.extensions(ATOMICS, atomic_helpers.used_families(features))
    if "double" in features:
        needed.add("cl_khr_fp64")
    return [extension for extension in _EXTENSIONS if extension in needed]


@dataclasses.dataclass
class KernelFile:
    """The printed kernels and what the host needs to know about them."""

    kernels: List[KernelCode]
    text: str                      # every kernel, ready to follow the prelude
    prelude: str                   # the helpers and extensions the kernels use
    extensions: List[str]          # device extensions the kernels need


def _signature(arg: KernelArg, dialect: OpenCLDialect) -> str:
    if arg.is_array:
        const = "" if arg.written else "const "
        return f"__global {const}{dialect.storage_type(arg.elem)} *{arg.name}"
    return f"{dialect.storage_type(arg.elem)} {arg.name}"


def _shell(code: KernelCode, dialect: OpenCLDialect) -> List[str]:
    params = [_signature(a, dialect) for a in code.args]
    head = f"__kernel void {code.name}("
    # Wrap long parameter lists one per line, aligned under the first.
    if len(head) + sum(len(p) + 2 for p in params) > 96:
        pad = " " * len(head)
        sig = head + (",\n" + pad).join(params) + ")"
    else:
        sig = head + ", ".join(params) + ")"
    lines = ([code.comment] if code.comment else []) + [sig + " {"]
    if code.extent == "single":
        if code.index is not None:
            lines.append(f"{INDENT}int {code.index} = 0;")
        return lines + code.body + ["}"]
    if code.extent == "group":      # one work-group: its body strides and meets itself
        return lines + [f"{INDENT}const int {code.index} = (int)get_local_id(0);"] + \
            code.body + ["}"]
    if code.cooperative is not None:
        return lines + binned_body(code, _GROUP) + ["}"]
    if code.frontier is not None:
        return lines + frontier_body(code, _GROUP) + ["}"]
    return lines + _run_of_items(code) + ["}"]


def _run_of_items(code: KernelCode) -> List[str]:
    """The body of a kernel over items (nodes, edges, a worklist) as a loop over this work
    item's run of them: the global size divided into equal contiguous runs. The host
    (``starc_launch``) launches one work item per item on a GPU, so a run is one item; on a
    CPU device it launches fewer work items, each running many items, because PoCL packs
    the work items of a group into vector lanes and a neighbour loop whose length differs
    from lane to lane then runs masked to the longest (pr's pull: 30% slower per round).
    No item returns early (past the bound its run is empty): the group meets at the end,
    where it folds its reductions and takes its appends' slots (``group_end``)."""
    bound, index = BOUNDS[code.extent], code.index
    lines = [f"{INDENT}const size_t starc_run = ((size_t){bound} + get_global_size(0) - 1) / "
             "get_global_size(0);",
             f"{INDENT}const size_t starc_first = get_global_id(0) * starc_run;",
             f"{INDENT}const size_t starc_last = min((size_t){bound}, starc_first + starc_run);"]
    lines += code.setup
    # The run's loop and the guard come from the forall, like its body.
    lines.append(f"{code.marker}{INDENT}for (int {index} = (int)starc_first; "
                 f"{index} < (int)starc_last; {index}++) {{")
    lines += code.skip(2, "continue")
    lines += [INDENT + line if line.strip() else line for line in code.item]
    lines.append(f"{INDENT}}}")
    return lines + code.finish


def render_kernels(kernels: Sequence, dialect: Optional[OpenCLDialect] = None,
                   scattered: Sequence[Scalar] = (), gathered: Sequence[Scalar] = (),
                   moved: Sequence[Scalar] = ()) -> KernelFile:
    """Print every plan kernel as an OpenCL ``__kernel``; then a scatter kernel per element
    type in ``scattered``, a gather kernel per type in ``gathered`` and a pair of span-move
    kernels per type in ``moved`` (the slot arrays of rows with slack, those read back, and
    those a batch's moves are applied to on the device: ``starc_scatter``, ``starc_gather``,
    ``starc_move`` on the host)."""
    dialect = dialect or OpenCLDialect()
    codes = [lower_kernel(k, dialect) for k in kernels]
    features: Set[str] = set()
    for code in codes:
        features |= code.features
        if any(a.elem is Scalar.DOUBLE for a in code.args):
            features.add("double")
    types = sorted({dialect.storage_type(elem) for elem in scattered})
    read = sorted({dialect.storage_type(elem) for elem in gathered})
    spans = sorted({dialect.storage_type(elem) for elem in moved})
    if "double" in types + read + spans:
        features.add("double")
    text = "\n\n".join(["\n".join(_shell(code, dialect)) for code in codes]
                       + [_SCATTER.format(type=t) for t in types]
                       + [_GATHER.format(type=t) for t in read]
                       + ([_MOVE_OF] if spans else [])
                       + [_MOVE.format(type=t) for t in spans])
    return KernelFile(codes, text, prelude(features), required_extensions(features))


#: a batch's changed slots of a slot array written from their packed values (rows with slack:
#: one transfer for the changed slots instead of one per range); work items take every
#: get_global_size(0)-th slot, as a CPU device runs fewer items than slots
_SCATTER = """\
__kernel void starc_scatter_{type}(__global {type} *data, __global const int *slots,
                                 __global const {type} *values, const int count) {{
    for (int i = get_global_id(0); i < count; i += get_global_size(0)) {{
        data[slots[i]] = values[i];
    }}
}}"""

#: the values of a slot array at the slots a batch's moves read, gathered for one transfer
#: back to the host (a slot array the device may have written)
_GATHER = """\
__kernel void starc_gather_{type}(__global const {type} *data, __global const int *slots,
                                __global {type} *values, const int count) {{
    for (int i = get_global_id(0); i < count; i += get_global_size(0)) {{
        values[i] = data[slots[i]];
    }}
}}"""


#: a batch's moves applied on the device (``SlotChange::move_records``: from, to, length and
#: first scratch slot per move): the moved slots are split into one contiguous run per work
#: item (one slot each on a GPU, whose launch covers them all; long runs on a CPU device,
#: whose launches run fewer items: a strided walk with a search per slot took ~2.8 ms per
#: array a batch at Kronecker 18 on PoCL, these runs 0.4-0.6 ms); a run's first move is
#: found by a binary search over the records, then the run is copied move by move (a plain
#: loop per span, which the compiler vectorises); all spans are copied into the scratch
#: array before any is written back, so a move reads the values from before the batch
_MOVE_OF = """\
int starc_move_of(__global const int *moves, const int move_count, const int slot) {
    int low = 0, high = move_count - 1;
    while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (moves[4 * mid + 3] <= slot) low = mid; else high = mid - 1;
    }
    return low;
}"""

_MOVE = """\
__kernel void starc_move_out_{type}(__global const {type} *data, __global const int *moves,
                                  const int move_count, __global {type} *scratch, const int count) {{
    const int run = (count + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    const int first = (int)get_global_id(0) * run, last = min(count, first + run);
    if (first >= last) return;
    for (int m = starc_move_of(moves, move_count, first), i = first; i < last; ++m) {{
        const int end = min(last, moves[4 * m + 3] + moves[4 * m + 2]), shift = moves[4 * m] - moves[4 * m + 3];
        for (; i < end; ++i) scratch[i] = data[i + shift];
    }}
}}

__kernel void starc_move_in_{type}(__global {type} *data, __global const int *moves,
                                 const int move_count, __global const {type} *scratch, const int count) {{
    const int run = (count + (int)get_global_size(0) - 1) / (int)get_global_size(0);
    const int first = (int)get_global_id(0) * run, last = min(count, first + run);
    if (first >= last) return;
    for (int m = starc_move_of(moves, move_count, first), i = first; i < last; ++m) {{
        const int end = min(last, moves[4 * m + 3] + moves[4 * m + 2]), shift = moves[4 * m + 1] - moves[4 * m + 3];
        for (; i < end; ++i) data[i + shift] = scratch[i];
    }}
}}"""


def prelude(features: Optional[Iterable[str]] = None) -> str:
    """The prelude of a kernel file whose kernels have these features (``KernelCode.features``):
    the atomic helpers they use and the extensions they need; the whole helper API when None."""
    features = None if features is None else set(features)
    return render_prelude("opencl", "prelude.cl.mako", features, atomics=ATOMICS,
                          extensions=required_extensions(features),
                          staged_append=features is None or "staged_append" in features,
                          local_queue=group_end.LOCAL_QUEUE,
                          local_queue_default=group_end.LOCAL_QUEUE_DEFAULT)
