"""SYCL 2020 kernels from a plan: the dialect table, the reduction choice and kernel shells.

Each plan kernel becomes a small host function that submits one ``parallel_for`` (through
``starc_parallel_for`` of the runtime prelude, which picks ``range<1>`` or ``nd_range<1>``)
whose lambda holds the body printed by the shared ``cfamily`` printer. Shared updates use
the prelude's ``sycl::atomic_ref`` helpers; a scalar reduction that is the kernel's only use
of the scalar (``ScalarReduction.exclusive``) becomes a ``sycl::reduction`` instead, the SYCL
reduction optimisation of the StarPlat paper.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Set

from starc.analysis import plan as P
from starc.analysis.capabilities import Capabilities
from starc.backends.common import atomic_helpers, group_end
from starc.backends.common.atomic_helpers import (CPP_TYPES, INTEGER_TYPES, AtomicTable,
                                                  CompareExchange, same_call)
from starc.backends.common.binned_shell import GroupSyntax, binned_body, binned_locals
from starc.backends.common.frontier_shell import frontier_body, frontier_locals
from starc.backends.common.cfamily import INDENT, KernelArg, KernelCode, lower_kernel
from starc.backends.common.dialect import NativeReducers, reducer_names
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.kernel_arguments import BOUNDS
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.ir import nodes as ir
from starc.ir.types import Scalar

__all__ = ["ATOMICS", "CAPABILITIES", "FETCH_MINMAX_RETURNS_NEW", "SYCLDialect", "SYCLKernel", "native_reductions",
           "native_reduction", "reduction_object", "print_kernel", "SHELL_PARAMS", "SYCL_RUNTIME",
           "UNIFORM_LAUNCH", "runtime_header"]

_INT, _LONG, _FLOAT, _DOUBLE = Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE

#: The SYCL prelude generated next to every program (``runtime_header``).
SYCL_RUNTIME = "starc_sycl.hpp"

#: The parameters every kernel function takes before its plan arguments.
SHELL_PARAMS = ("q", "block", "where")

#: SYCL 2020 function objects for each reduction operator (``-`` combines the negation).
_REDUCTION_OPERATORS = {"+": "sycl::plus", "-": "sycl::plus", "*": "sycl::multiplies",
                        "&": "sycl::bit_and", "|": "sycl::bit_or", "Min": "sycl::minimum",
                        "Max": "sycl::maximum"}


#: The macro under which atomic_ref::fetch_min/fetch_max return the new value instead of the
#: old one: templates/prelude.hpp.mako defines it under AdaptiveCpp (24.06: floats on every
#: target, integers with --acpp-targets=omp; a generic build does not know its target).
FETCH_MINMAX_RETURNS_NEW = "STARC_SYCL_FETCH_MINMAX_RETURNS_NEW"

#: SYCL 2020 atomic_ref (relaxed, device scope): fetch_add/sub on every type, and/or on
#: integers, fetch_min/fetch_max where the implementation returns the old value (DPC++), a
#: compare-and-swap loop for Min/Max where it does not (FETCH_MINMAX_RETURNS_NEW): the old
#: value decides "this update won" (templates/prelude.hpp.mako says more).
#: starc_atomic_update_<min|max>_<type>, for updates whose result is unused, are plain
#: fetch_min/fetch_max everywhere.
ATOMICS = AtomicTable(
    c_types=CPP_TYPES,
    native={**same_call(("add", "sub", "and", "or"), INTEGER_TYPES,
                        "starc_atomic<{t}>(*p).fetch_{op}(v)"),
            **same_call(("add", "sub"), (_FLOAT, _DOUBLE), "starc_atomic<{t}>(*p).fetch_{op}(v)"),
            **same_call(("min", "max"), CPP_TYPES, "starc_atomic<{t}>(*p).fetch_{op}(v)",
                        fallback_if=f"defined({FETCH_MINMAX_RETURNS_NEW})",
                        fallback_words="on AdaptiveCpp, whose fetch_min/fetch_max return the "
                                       "new value")},
    compare_exchange={t: CompareExchange(
        call=f"starc_atomic<{c}>(*p).compare_exchange_strong(*expected, desired)")
        for t, c in CPP_TYPES.items()},
    load="starc_atomic<{}>(*p).load()",
    about="sycl::atomic_ref (relaxed, device scope), spelled starc_atomic<T> in the prelude; "
          "Min/Max whose old value is used: fetch_min/fetch_max where they return it, a "
          "compare-and-swap loop on AdaptiveCpp, where they return the new value",
    updates={(op, t): f"starc_atomic<{c}>(*p).fetch_{op}(v)"
             for op in ("min", "max") for t, c in CPP_TYPES.items()})

#: SYCL 2020's capabilities: sycl::atomic_ref, whose fetch_min/fetch_max serve where the
#: implementation returns the old value or the old value is unused (ATOMICS); sycl::reduction
#: for private reductions; binned kernels and split worklist rounds in work-groups with
#: local_accessor memory and group barriers, as OpenCL's: a heavy vertex gets the whole group,
#: with no warp tier, because SYCL 2020's sub-groups have no ballot to pick the next marked
#: vertex (``sub_groups_without_ballot``). Only one pull loop per binned kernel, no
#: cooperative bodies: AdaptiveCpp 24.06 miscompiles bfs's (a loop over the group's heavy
#: vertices, bounded by a local int written between barriers, around a search with barriers and
#: a push) on both its CPU targets that split kernels at barriers: ``generic`` crashes,
#: ``omp`` levels the source only (R-MAT 16 and 18), at -O0 too and whatever
#: ACPP_ADAPTIVITY_LEVEL. The kernel is race-free (every local word written and read on opposite
#: sides of a barrier): the test double, PoCL's OpenCL and AdaptiveCpp's fiber target
#: ``omp.library-only`` (about 40x slower) run it right. bench/acpp_local_bound_repro.cpp reduces
#: it to 20 lines (0 of 1000 steps counted on ``generic``; AdaptiveCpp issues 2137 and 2177 are
#: of the same kind). pr's single pull is right there. A grouped kernel makes its own command group
#: (its local_accessors) rather than going through starc_parallel_for, whose CPU form replaces
#: sycl::reduction by private partials (AdaptiveCpp's lost updates): no sycl::reduction there
#: (``native_reductions_in_groups``); as OpenCL's, its work items all meet at its end, where a
#: private reduction is folded by the shared tree in a local_accessor before the group's first
#: item does one atomic (``group_reductions``; "*" keeps one atomic per work item). A kernel
#: that appends to a worklist (or counts a dense round) is such a command group too
#: (``_staged_shell``): its appends are staged per work-group by the shared ``group_end``
#: (``staged_appends``), one global atomic per group, where each was one atomic per item.
CAPABILITIES = Capabilities(
    "sycl", "SYCL", native_reductions=frozenset(_REDUCTION_OPERATORS), dynamic_graphs=True,
    slack_rows=True, span_moves=True,
    native_reduction_object="sycl::reduction", native_reductions_in_groups=False,
    group_reductions=group_end.GROUP_REDUCTIONS,
    converged_group_functions=True, staged_appends=True, group_rounds=True,
    schedules=frozenset({"vertex", "edges", "binned"}), frontier_edges=True, union_find=True,
    sub_groups_without_ballot=True, lockstep_at_run_time=True,
    **atomic_helpers.atomic_capabilities(ATOMICS))


#: the prelude feature of a kernel that runs in work-groups sharing local memory (a binned
#: kernel, a split worklist round): ``starc_work_group_size`` and ``starc_groups``
WORK_GROUPS = "work_groups"

#: the feature of a kernel whose appends its work-groups stage (``_staged_shell``)
STAGED = "staged_append"
#: the prelude feature of a program that asks its device's kind: kernel variants for lockstep
#: devices (``Kernel.lockstep_variant``), a BFS's rounds (launched elsewhere only):
#: ``starc_lockstep_device``
LOCKSTEP = "lockstep_variants"

#: the work-item of a grouped kernel (``_GROUP``)
_ITEM = "starc_it"

#: a work-group's atomic on a local int (relaxed, work-group scope, local space)
_LOCAL_ATOMIC = ("sycl::atomic_ref<int, sycl::memory_order::relaxed, "
                 "sycl::memory_scope::work_group, sycl::access::address_space::local_space>({})")

#: a binned kernel's or split worklist round's work-group in SYCL 2020: local memory from
#: local_accessors made in the command group (a one-value local bound by reference), group
#: barriers, work-group atomic_refs on local ints; no warp tier (SYCL 2020's sub-groups have no
#: ballot). A fold combines by the shared tree in local memory, not sycl::reduce_over_group:
#: AdaptiveCpp 24.06's CPU JIT has no group reductions (a kernel that calls one fails to load:
#: "undefined symbol: __acpp_sscp_work_group_reduce_f32").
_GROUP = GroupSyntax(local="", barrier=f"sycl::group_barrier({_ITEM}.get_group());",
                     lane=f"static_cast<int>({_ITEM}.get_local_id(0))",
                     lanes=f"static_cast<int>({_ITEM}.get_local_range(0))",
                     vertex=f"static_cast<int>({_ITEM}.get_global_id(0))",
                     append=_LOCAL_ATOMIC.format("starc_heavy_count") + ".fetch_add(1)",
                     local_min=_LOCAL_ATOMIC.format("{0}") + ".fetch_min({1});",
                     bind_local="{type}& {name} = {name}_local[0];",
                     minimum="std::min({0}, {1})")


class SYCLDialect(NativeReducers):
    """SYCL 2020 device code is C++: ``long long`` is 64-bit, bool arrays are ``unsigned
    char``, every atomic is a ``sycl::atomic_ref`` helper of the prelude; a Min/Max whose old
    value decides the winner is ``fetch_min``/``fetch_max``, or a compare-and-swap loop on
    AdaptiveCpp (which returns the new value), one whose result is unused a plain
    ``fetch_min``/``fetch_max`` everywhere.

    One instance serves one kernel: ``reducers`` maps the address text of a scalar reduced
    through ``sycl::reduction`` (``&diff_dev[0]``) to its reducer's name, and those names are
    reserved so no kernel local takes them."""

    name = "sycl"
    scalar_types = {Scalar.BOOL: "bool", _INT: "int", _LONG: "long long", _FLOAT: "float",
                    _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    storage_types = {Scalar.BOOL: "unsigned char", _INT: "int", _LONG: "long long",
                     _FLOAT: "float", _DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    atomics = atomic_helpers.FAMILIES
    minmax_functions = {(f, t): f"std::{f.lower()}" for f in ("Min", "Max")
                        for t in (_INT, _LONG, _FLOAT, _DOUBLE, Scalar.NODE, Scalar.EDGE)}
    reserved = CXX_KEYWORDS | frozenset(SHELL_PARAMS) | frozenset(("sycl", "item", "reducers"))
    group_barrier = f"sycl::group_barrier({_ITEM}.get_group());"
    group_lanes = f"static_cast<int>({_ITEM}.get_local_range(0))"

    def minmax_update(self, op: str, reducer: str, value: str) -> str:
        return f"{reducer}.combine({value})"

    def relaxed_load(self, lvalue: str, elem: Scalar) -> str:
        # a plain read racing with atomic_ref updates is a data race in C++'s memory model
        return f"starc_atomic<{self.storage_type(elem)}>({lvalue}).load()"

    def group_fold(self, elem: Scalar, local: str, combine: str):
        # (only a grouped kernel's reductions are ``group``: its shell makes the tree's array)
        return group_end.reduction_tree(_GROUP, self.type_name(elem), local, combine)

    # a work-group's end, where every work item meets (``group_end``): a kernel that appends
    # prints through ``_staged_shell``
    def staged_append(self, queue: group_end.StagedQueue, value: str) -> str:
        return (f"starc_stage_append({queue.stem}, {queue.count}, {queue.queue}, "
                f"{queue.length}, {value})")

    def staged_count(self, queue: group_end.StagedQueue) -> str:
        return _LOCAL_ATOMIC.format(queue.count) + ".fetch_add(1)"

    def stage_lines(self, queues, end: bool):
        return (group_end.stage_close if end else group_end.stage_open)(_GROUP, queues)

    def atomic_update(self, op: str, elem: Scalar, address: str, value: str) -> str:
        # a plain fetch_min/fetch_max: only its returned value is unreliable on AdaptiveCpp
        # (ATOMICS), the update itself is not
        helper = self.atomic_helper(op, elem).replace("starc_atomic_", "starc_atomic_update_", 1)
        return f"{helper}({address}, {value})"


@dataclasses.dataclass
class SYCLKernel:
    """A printed kernel: the cfamily code, its native reductions and the function text."""

    code: KernelCode
    reductions: List[P.ScalarReduction]
    text: str


def native_reductions(kernel: P.Kernel) -> List[P.ScalarReduction]:
    """The kernel's scalar reductions that ``sycl::reduction`` carries (``strategy`` native):
    the reduction object does the combining that OpenCL/CUDA do with one atomic."""
    return [red for red in kernel.reductions if red.strategy == "native"]


def _function_object(red: P.ScalarReduction) -> str:
    return f"{_REDUCTION_OPERATORS[red.op]}<{SYCLDialect().storage_type(red.sym.type)}>()"


def reduction_object(red: P.ScalarReduction, array: str) -> str:
    """The prelude's ``starc_reduction`` that carries ``red`` into device array ``array``: a
    ``sycl::reduction`` of the launch, or on a CPU device private partials (starc_cpu_runs)."""
    return f"starc_reduction({array}, {_function_object(red)})"


def native_reduction(kernel: P.Kernel, red: P.ScalarReduction) -> str:
    """The ``sycl::reduction`` carrying ``red`` (``strategy`` native) into its device array,
    for ``starc explain``."""
    return f"sycl::reduction({red.array.name}, {_function_object(red)})"


def _reducer_name(red: P.ScalarReduction) -> str:
    return f"{red.sym.name}_{'sum' if red.op in '+-' else 'reducer'}"


def print_kernel(kernel: P.Kernel) -> SYCLKernel:
    """Print one plan kernel as a SYCL kernel function."""
    native = native_reductions(kernel)
    names = reducer_names(native, _reducer_name)
    dialect = SYCLDialect(names)
    code = lower_kernel(kernel, dialect)
    if kernel.variant_of:
        code.features.add(LOCKSTEP)
    if code.cooperative is not None or code.frontier is not None:
        code.features.add(WORK_GROUPS)
        return SYCLKernel(code, native, "\n".join(_group_shell(code, dialect)))
    if code.extent == "group":      # (launched only where the device is not lockstep)
        code.features.update((WORK_GROUPS, LOCKSTEP))
        return SYCLKernel(code, native, "\n".join(_one_group_shell(code, dialect)))
    if STAGED in code.features:
        code.features.add(WORK_GROUPS)
        return SYCLKernel(code, native, "\n".join(_staged_shell(code, dialect)))
    nodes = list(ir.walk(kernel.body)) + (list(ir.walk(kernel.guard)) if kernel.guard else [])
    index_used = any(isinstance(x, ir.VarRef) and x.sym == kernel.index for x in nodes)
    index = code.index if index_used else None   # an unnamed parameter: no unused warning
    return SYCLKernel(code, native, "\n".join(_shell(code, index, native, names, dialect,
                                                      kernel.uniform_items)))


def _signature(arg: KernelArg, dialect: SYCLDialect) -> str:
    if arg.is_array:
        const = "" if arg.written else "const "
        return f"{const}{dialect.storage_type(arg.elem)}* {arg.name}"
    return f"{dialect.storage_type(arg.elem)} {arg.name}"


def _wrap(head: str, items: Sequence[str], tail: str, width: int = 100) -> List[str]:
    """``head item, item, ...tail``, one item per line aligned under the first when long."""
    text = head + ", ".join(items) + tail
    if len(text) <= width or not items:
        return [text]
    pad = " " * len(head)
    return [head + (",\n" + pad).join(items) + tail]


#: the prelude's launch with long CPU runs, for a kernel whose work items all do the same small
#: work (``Kernel.uniform_items``); other kernels take its default runs (STARC_RUN_ITEMS)
UNIFORM_LAUNCH = "starc_parallel_for<STARC_UNIFORM_RUN_ITEMS>"


def _shell(code: KernelCode, index: Optional[str], native: List[P.ScalarReduction],
           names: Dict[int, str], dialect: SYCLDialect, uniform: bool) -> List[str]:
    # (one work item takes no work-group size: the parameter stays, unnamed, for the host's call)
    params = ["sycl::queue& q", "std::size_t" if code.extent == "single" else "std::size_t block",
              "const char* where"]
    params += [_signature(a, dialect) for a in code.args]
    lines = [code.comment] if code.comment else []
    lines += _wrap(f"static void {code.name}(", params, ") {")
    if code.extent == "single":
        count, block = "1", "0"
    else:
        count, block = BOUNDS[code.extent], "block"
    params = [f"int {index}" if index is not None else "int"]
    params += [f"auto& {names[red.sym.uid]}" for red in native]
    launch = UNIFORM_LAUNCH if uniform and code.extent != "single" else "starc_parallel_for"
    lines += _wrap(f"{INDENT}{launch}(q, where, {count}, {block}, [=](", params, ") {")
    lines += [INDENT + line for line in code.body]
    arrays = {a.source[1].name: a.name for a in code.args if a.source[0] == "array"}
    reductions = [reduction_object(red, arrays[red.array.name]) for red in native]
    closing = f"{INDENT}}}" + "".join(f", {r}" for r in reductions) + ");"
    if len(closing) > 100:   # one reduction per line
        closing = f"{INDENT}}},\n" + ",\n".join(INDENT * 2 + r for r in reductions) + ");"
    return lines + [closing, "}"]


def _group_shell(code: KernelCode, dialect: SYCLDialect) -> List[str]:
    """A kernel whose work-groups share local memory (a binned kernel, a split worklist round):
    one command group that makes the local_accessors and runs the shared body
    (``binned_shell``, ``frontier_shell``) over an nd_range of whole groups
    (``starc_groups``) of the launch's ``block`` items, or on a CPU device of
    ``starc_work_group_size``'s. The plan gives such a kernel no sycl::reduction: its private
    reductions are folded per group (``group_end.reduction_tree``, whose local arrays
    ``code.group_locals`` the command group makes too), "*" combined once per item."""
    params = ["sycl::queue& q", "std::size_t block", "const char* where"]
    params += [_signature(a, dialect) for a in code.args]
    lines = [code.comment] if code.comment else []
    lines += _wrap(f"static void {code.name}(", params, ") {")
    if code.cooperative is not None:
        body, locals_ = binned_body(code, _GROUP), binned_locals(code)
    else:
        body, locals_ = frontier_body(code, _GROUP), frontier_locals(code)
    locals_ += code.group_locals
    count = BOUNDS[code.extent]
    lines += [f"{INDENT}if ({count} <= 0) return;",
              f"{INDENT}const std::size_t starc_group = starc_work_group_size(q, block);"]
    return lines + _command_group(code, dialect, locals_, f"starc_groups({count}, starc_group)",
                                  "starc_group", body)


def _one_group_shell(code: KernelCode, dialect: SYCLDialect) -> List[str]:
    """A kernel of one work-group (``bfs_rounds``): a command group over an nd_range of one
    group of the launch's ``block`` items (``starc_work_group_size``), whose body strides
    over its work and meets at barriers itself."""
    params = ["sycl::queue& q", "std::size_t block", "const char* where"]
    params += [_signature(a, dialect) for a in code.args]
    lines = [code.comment] if code.comment else []
    lines += _wrap(f"static void {code.name}(", params, ") {")
    lines.append(f"{INDENT}const std::size_t starc_group = starc_work_group_size(q, block);")
    body = [f"{INDENT}const int {code.index} = static_cast<int>({_ITEM}.get_local_id(0));"]
    return lines + _command_group(
        code, dialect, code.group_locals,
        "sycl::nd_range<1>(sycl::range<1>(starc_group), sycl::range<1>(starc_group))",
        "starc_group", body + code.body)


def _command_group(code: KernelCode, dialect: SYCLDialect, locals_, launch: str,
                   group: str, body: List[str]) -> List[str]:
    """The end of a kernel function: one command group that makes ``locals_`` (per-lane ones
    of ``group`` items) and runs ``body`` over ``launch``."""
    i1, i2, i3 = INDENT, INDENT * 2, INDENT * 3
    lines = [f"{i1}starc_at(where, [&] {{", f"{i2}q.submit([&](sycl::handler& starc_handler) {{"]
    for local in locals_:
        name = local.name if local.per_lane or local.extent else f"{local.name}_local"
        size = local.extent or (group if local.per_lane else "1")
        lines.append(f"{i3}sycl::local_accessor<{local.type}, 1> {name}(sycl::range<1>({size}), "
                     "starc_handler);")
    lines.append(f"{i3}starc_handler.parallel_for({launch}, [=](sycl::nd_item<1> {_ITEM}) {{")
    lines += [i3 + line if line.strip() else line for line in body]
    return lines + [f"{i3}}});", f"{i2}}});", f"{i1}}});", "}"]


def _staged_shell(code: KernelCode, dialect: SYCLDialect) -> List[str]:
    """A kernel whose appends (or counts) its work-groups stage in local memory
    (``group_end``): one command group making the staged queues' local_accessors, over the
    prelude's ``starc_staged_groups``, each work-item running a run of items as OpenCL's
    (``opencl.kernels._run_of_items``): on a GPU whole work-groups of ``block`` items, one item
    each; on a CPU device work-groups of one work-item, each running a run of STARC_RUN_ITEMS
    items, the run then being the group (one global atomic per run). No item returns early:
    past the count its run is empty, and its group meets at the end."""
    params = ["sycl::queue& q", "std::size_t block", "const char* where"]
    params += [_signature(a, dialect) for a in code.args]
    lines = [code.comment] if code.comment else []
    lines += _wrap(f"static void {code.name}(", params, ") {")
    count = "1" if code.extent == "single" else BOUNDS[code.extent]
    index = code.index or "starc_item"
    lines += [f"{INDENT}if ({count} <= 0) return;",
              f"{INDENT}const sycl::nd_range<1> starc_range = "
              f"starc_staged_groups(q, {count}, block);"]
    items = f"static_cast<std::size_t>({count})"
    body = [f"{INDENT}const std::size_t starc_run = ({items} + {_ITEM}.get_global_range(0) - 1) "
            f"/ {_ITEM}.get_global_range(0);",
            f"{INDENT}const int starc_first = static_cast<int>(std::min({items}, "
            f"{_ITEM}.get_global_id(0) * starc_run));",
            f"{INDENT}const int starc_last = static_cast<int>(std::min({items}, "
            "static_cast<std::size_t>(starc_first) + starc_run));"]
    body += code.setup
    body.append(f"{code.marker}{INDENT}for (int {index} = starc_first; {index} < starc_last; "
                f"{index}++) {{")
    body += code.skip(2, "continue")
    body += [INDENT + line if line.strip() else line for line in code.item]
    body += [f"{INDENT}}}"] + code.finish
    return lines + _command_group(code, dialect, code.group_locals, "starc_range",
                                  "starc_range.get_local_range()[0]", body)


def runtime_header(features: Optional[Set[str]] = None) -> str:
    """``starc_sycl.hpp`` for kernels with these features: the atomic helpers they use (every
    one when None) and the rest of the SYCL runtime."""
    return render_prelude("sycl", "prelude.hpp.mako", features, atomics=ATOMICS,
                          work_groups=features is None or WORK_GROUPS in features,
                          staged_append=features is None or STAGED in features,
                          lockstep_variants=features is None or LOCKSTEP in features,
                          local_queue=group_end.LOCAL_QUEUE,
                          local_queue_default=group_end.LOCAL_QUEUE_DEFAULT)
