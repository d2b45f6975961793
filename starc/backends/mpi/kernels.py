"""MPI kernels: each plan kernel as an OpenMP loop over the vertices (or edges) one rank owns.

A kernel over nodes becomes ``static void K(int lo, int hi, ...)`` holding one ``#pragma omp
parallel for`` over ``[lo, hi)``, the rank's own vertices (its own rows' edges for a kernel
over edges); the host passes the bounds of ``starc_mpi::Distribution``. The body is the shared
``cfamily`` printer's output in the dialect OpenACC uses too (``common/host_loops``), of the
plan's kernel in the rank's local index space (``analysis.local_index``): per-vertex arrays
hold the rank's own vertices and its ghosts, indexed by local id, so a body reads its
neighbours' ghost copies and writes ghosts' entries as any shared-memory backend would;
where a vertex id is a value the body reads its global id from the rank's table
(``starc_global``); what the superstep then exchanges is the host's business (``host``). A
private scalar reduction becomes an OpenMP ``reduction`` clause combined into the scalar's
copy after the loop. A single-item kernel is its body alone (every rank runs it alike, on
full-length replicas).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Set

from starc.analysis import plan as P
from starc.backends.common.atomic_helpers import directive_atomics
from starc.backends.common.cfamily import INDENT, KernelCode, lower_kernel
from starc.backends.common.device_prelude import render_prelude
from starc.backends.common.dialect import reducer_names
from starc.backends.common.host_dialect import CXX_KEYWORDS
from starc.backends.common.host_loops import (REDUCTION_OPERATORS, HostLoopDialect,
                                              directive_capabilities, function_parameters,
                                              native_reductions, reducer_name,
                                              reduction_identity, wrap_list)

__all__ = ["ATOMICS", "CAPABILITIES", "MPIDialect", "MPIKernel", "print_kernel",
           "KERNEL_HEADER", "kernel_header", "DISTRIBUTION_INPUTS"]

#: MPI's atomics: kernels are OpenMP loops on each rank's host, so OpenACC's shape with
#: OpenMP's `atomic capture`/`atomic update` (floats too; ``atomic_helpers.directive_atomics``).
ATOMICS = directive_atomics("omp", "OpenMP")

#: MPI's capabilities: OpenMP loops on each rank, built with -fwrapv; the graph split among
#: the ranks (no fixedPoint worklists: one work item per owned vertex, an edge's source and
#: target may live on different ranks; a BFS's queue is each rank's own, ``rank_queues``; a
#: degree renumbering sends the rows to their new owners).
CAPABILITIES = directive_capabilities("mpi", "MPI", ATOMICS, worklists=False, distributed=True,
                                      renumbers_graph=True, wraps_signed=True, dynamic_graphs=True,
                                      schedules=frozenset({"vertex"}), union_find=True)

#: What a kernel may read of the run's ``starc_mpi::Distribution`` besides the plan's
#: arguments, as extra parameters after them: name -> (C++ type, the argument the host passes,
#: ``{d}`` being the Distribution). The whole graph's facts that a rank's slice lacks, and the
#: tables of its local index space.
DISTRIBUTION_INPUTS = {
    # the out- and in-degree of each local vertex (owned, ghost): count_outNbrs / count_inNbrs
    "starc_out_degree": ("const int*", "{d}.out_degree.data()"),
    "starc_in_degree": ("const int*", "{d}.in_degree.data()"),
    # the whole graph's edge count: g.num_edges() (the kernel's m counts the rank's slots)
    "starc_global_edges": ("int", "starc_mpi::edge_count({d})"),
    # local id -> global id: a vertex used as a value
    "starc_global": ("const int*", "{d}.global_id.data()"),
    # the distribution itself: the local id of a global vertex
    "starc_dist": ("const starc_mpi::Distribution&", "{d}"),
    # every vertex's degrees, by global id (a degree of a vertex the rank may not know)
    "starc_global_out_degree": ("const int*", "{d}.global_out_degree.data()"),
    "starc_global_in_degree": ("const int*", "{d}.global_in_degree.data()"),
}

#: local_index.RANK_TABLES -> how a kernel reads it (``{}``: the index)
_RANK_TABLES = {"global_id": ("starc_global", "starc_global[{}]"),
                "local_id": ("starc_dist", "starc_dist.local_of({})"),
                "global_out_degree": ("starc_global_out_degree", "starc_global_out_degree[{}]"),
                "global_in_degree": ("starc_global_in_degree", "starc_global_in_degree[{}]"),
                "owns": ("starc_dist", "starc_dist.owns({})"),
                "owns_local": ("starc_dist", "starc_dist.owns_local({})")}

#: The header of atomic helpers generated next to every MPI program.
KERNEL_HEADER = "starc_mpi_kernels.hpp"


class MPIDialect(HostLoopDialect):
    """Kernel bodies in C++ under OpenMP, with the helpers of ``starc_mpi_kernels.hpp``."""

    name = "mpi"
    reserved = (CXX_KEYWORDS | frozenset(("lo", "hi", "omp_get_thread_num"))
                | frozenset(DISTRIBUTION_INPUTS))

    def __init__(self, reducers=None) -> None:
        super().__init__(reducers)
        #: the DISTRIBUTION_INPUTS the printed bodies read, in first-use order
        self.inputs: List[str] = []

    def _input(self, name: str) -> str:
        if name not in self.inputs:
            self.inputs.append(name)
        return name

    def kept_degree(self, query: str, v: str) -> Optional[str]:
        # Every rank keeps the degrees of its own vertices and its ghosts, so a neighbour's
        # degree needs no ghost row (analysis/distribution.py relies on this); any other
        # vertex's reads the whole graph's (a RankTable).
        kept = "starc_out_degree" if query == "count_outNbrs" else "starc_in_degree"
        return f"{self._input(kept)}[{v}]"

    def rank_table(self, table: str, index: str) -> str:
        if table not in _RANK_TABLES:
            self.missing(f"the rank table '{table}'")
        name, text = _RANK_TABLES[table]
        self._input(name)
        return text.format(index)

    def edge_count(self) -> Optional[str]:
        return self._input("starc_global_edges")


class MPIKernel:
    """A printed kernel: the cfamily code, the graph sizes it takes and the function text."""

    def __init__(self, code: KernelCode, text: str, sizes: List[str],
                 inputs: Sequence[str] = ()) -> None:
        self.code = code
        self.text = text
        #: "n" and/or "m": the sizes the function takes after its bounds, in this order
        self.sizes = sizes
        #: the DISTRIBUTION_INPUTS the function takes after the plan's arguments, in order
        self.inputs = tuple(inputs)


def print_kernel(kernel: P.Kernel) -> MPIKernel:
    """Print one plan kernel as a function holding one OpenMP loop over a rank's items."""
    native = native_reductions(kernel)
    names = reducer_names(native, reducer_name)
    dialect = MPIDialect(names)
    code = lower_kernel(kernel, dialect)
    # (a loop over updates takes its count as a plain argument)
    sizes = [arg.name for arg in code.args if arg.source[0] == "size"
             and arg.source[1] != "frontier"]
    single = code.extent == "single"
    # (the sizes bound a GPU's threads; here only run-time checks may use them)
    params = ([] if single else ["int lo", "int hi"]) + function_parameters(
        code, sizes, dialect, "[[maybe_unused]] int")
    params += [f"{DISTRIBUTION_INPUTS[name][0]} {name}" for name in dialect.inputs]
    counts = {f"int {arg.name}" for arg in code.args if arg.source == ("size", "frontier")}
    params = [f"[[maybe_unused]] {p}" if p in counts else p for p in params]    # (it is hi)
    lines = [code.comment] if code.comment else []
    lines += wrap_list(f"static void {code.name}(", params, ") {")
    for red in native:
        ctype = dialect.storage_type(red.sym.type)
        lines.append(f"{INDENT}{ctype} {names[red.sym.uid]} = "
                     f"{reduction_identity(red.op, red.sym.type, dialect)};")
    index = code.index or "starc_item"
    if single:
        lines.append(f"{INDENT}for (int {index} = 0; {index} < 1; {index}++) {{")
    else:
        clauses = "".join(f" reduction({REDUCTION_OPERATORS[red.op]}:{names[red.sym.uid]})"
                          for red in native)
        # dynamic: a vertex's work is its degree, which varies by orders of magnitude; in
        # chunks of 64, or one with one thread (starc_chunk)
        lines.append(f"#pragma omp parallel for schedule(dynamic, starc_chunk(lo, hi)){clauses}")
        lines.append(f"{INDENT}for (int {index} = lo; {index} < hi; {index}++) {{")
    lines += [INDENT + line for line in code.body]
    lines.append(f"{INDENT}}}")
    by_array = {a.source[1].name: a.name for a in code.args if a.source[0] == "array"}
    for red in native:
        target, local = f"{by_array[red.array.name]}[0]", names[red.sym.uid]
        lines.append(f"{INDENT}{target} = starc_{red.op.lower()}({target}, {local});"
                     if red.op in ("Min", "Max")
                     else f"{INDENT}{target} {REDUCTION_OPERATORS[red.op]}= {local};")
    lines.append("}")
    return MPIKernel(code, "\n".join(lines), sizes, dialect.inputs)


def kernel_header(features: Optional[Set[str]] = None) -> str:
    """``starc_mpi_kernels.hpp`` for kernels with these features: the atomic helpers they use
    (every one when None), locks, checks and graph queries."""
    return render_prelude("mpi", "prelude.hpp.mako", features, atomics=ATOMICS)
