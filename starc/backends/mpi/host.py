"""The MPI host: how the shared C++ host printer spells each operation on every rank.

Every rank runs the whole host program with the same scalars. The graph is distributed
(``starc_mpi::distribute``: each rank reads its share of the file and keeps the rows of the
vertices it owns, in its local index space). A per-vertex array holds the rank's own vertices
and its ghosts, indexed by local id (``Distribution::local_nodes`` elements); one the program
touches at arbitrary vertices is a full-length replica indexed by global id
(``analysis.distribution``: ``replicas``). Host operations act on every rank's copy alike
(fills, copies, swaps, single-element writes of the vertices it knows), so the copies stay
consistent; a single-element read asks the owner (``starc_mpi::read_node``); each rank copies
its own vertices' results out, and rank 0 writes them all, streamed to it rank by rank
(``starc_mpi::Results``). The graph's arrays are the distribution's own vectors (no copy).

A launch is one superstep: the exchanges its kernel needs are registered on a
``starc_mpi::Superstep`` (snapshots, identities of accumulations; refreshes of every mirror,
values only, and Min/Max targets whose ghosts keep their candidates, as the plan says), the
kernel runs over the rank's own vertices, and ``finish()`` exchanges updates, refreshes and
one-value arrays.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from starc.analysis.distribution import Distribution
from starc.backends.common.cfamily import INDENT, KernelCode
from starc.backends.common.host_dialect import Count, HostDialect, HostExprDialect, HostPrinter
from starc.backends.mpi.kernels import DISTRIBUTION_INPUTS
from starc.ir.types import Scalar

__all__ = ["MPIHostDialect", "DIST", "mpi_operator"]

#: the host variable holding the ``starc_mpi::Distribution``
DIST = "starc_dist"
_STATS = "starc_stats"
_SECONDS = "starc_seconds"

_OPS = {"=": "Store", "+": "Add", "-": "Sub", "*": "Mul", "&": "And", "|": "Or", "Min": "Min",
        "Max": "Max"}
_COMBINE = {"+": "Add", "-": "Sub", "*": "Mul", "&": "And", "|": "Or", "Min": "Min",
            "Max": "Max", "flag": "Flag", "store": "Store"}
#: The MPI operator ``SuperstepScalars::mpi_op`` (runtime/starc_mpi_scalars.hpp) reduces each
#: kind of one-value array with, for ``starc explain``; tests/teaching checks the two agree.
#: A flag is 0 or 1 on each rank, so MPI_MAX is the logical OR of the ranks' flags.
_MPI_OPS = {"Add": "MPI_SUM", "Sub": "MPI_SUM", "Mul": "MPI_PROD", "And": "MPI_BAND",
            "Or": "MPI_BOR", "Min": "MPI_MIN", "Max": "MPI_MAX", "Flag": "MPI_MAX"}


def mpi_operator(how: str) -> str:
    """The MPI operator combining a one-value array across ranks (``how``: a reduction
    operator or ``flag``, as ``Superstep.scalars`` says); "" for a stored value, which the
    last rank that stored broadcasts."""
    return _MPI_OPS.get(_COMBINE[how], "")


def _literal(value) -> str:
    """A constant secondary's value (a bool or an int) as a C++ literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value}LL"


class MPIHostExprDialect(HostExprDialect):
    """Host expressions on a rank: a degree of any vertex comes from its owner (or from the
    whole graph's degrees where the kernels keep them): the local graph holds only the
    rank's rows."""

    def kept_degree(self, query: str, v: str) -> str:
        out = "true" if query == "count_outNbrs" else "false"
        return f"starc_mpi::degree_of({DIST}, {v}, {out})"


class MPIHostDialect(HostDialect):
    """The host's operations on rank replicas, and one superstep per launch."""

    name = "mpi"
    expr_dialect = MPIHostExprDialect()
    #: host memory, allocated inside the clock as the CPU baselines (GAPBS) allocate theirs
    allocates_before_clock = False

    def __init__(self, distribution: Distribution, sizes: Dict[str, List[str]],
                 inputs: Optional[Dict[str, Sequence[str]]] = None) -> None:
        self.distribution = distribution
        #: kernel name -> the graph sizes ("n", "m") its function takes after its bounds
        self.sizes = sizes
        #: kernel name -> the DISTRIBUTION_INPUTS its function takes last
        self.inputs = inputs or {}

    def attach(self, printer: HostPrinter) -> None:
        super().attach(printer)
        #: host variable -> its plan array, plan array name -> its host variable
        self.arrays = {printer.array_var(a): a for a in printer.plan.arrays}
        self.variables = {a.name: var for var, a in self.arrays.items()}

    # --- program phases -----------------------------------------------------------------------
    def guarded_main(self, program: str) -> str:
        # (the body gets the command line without the runtime's own --stats)
        return (f'starc_mpi::guarded_main(argc, argv, "{program}", '
                f'[&](int argc, char** argv) {{')

    def program_flags(self) -> List[Tuple[str, str, str]]:
        return [("stats", "", "print each rank's superstep counters and times on stderr")]

    def options(self, cl: str) -> List[str]:
        return [f"const bool {_STATS} = starc_mpi::options({cl});"]

    def read_graph(self, graph: str, cl: str) -> List[str]:
        d = self.distribution
        needs = ", ".join(str(x).lower() for x in (d.reverse, d.ghost_rows, d.global_degrees,
                                                   d.sources, d.in_degrees,
                                                   d.ghost_row_slices, d.appended_ghosts))
        needs = "{" + needs + "}"
        return [f"starc_mpi::Distribution {DIST} = starc_mpi::distribute({cl}.graph_path, "
                f"{cl}.undirected, starc_mpi::Needs{needs}, {_STATS});",
                # an alias, so a program without kernels or results never reads it
                f"[[maybe_unused]] starc::Graph& {graph} = {DIST}.graph;"]

    def weight_bound(self, local: str, largest: bool) -> str:
        return f"starc_mpi::all_ranks_weight_bound({DIST}, {local}, {str(largest).lower()})"

    def graph_state(self, graph: str) -> str:
        return DIST     # the graph is the distribution's, with its ghosts and mirrors

    def rebuild_part(self, change: str, parts: List[Tuple[str, str]],
                     in_place: bool = True) -> List[str]:
        relayout = "" if in_place else ", false"
        if len(parts) == 1:
            args = f"{parts[0][0]}, {parts[0][1]}"
        else:   # the deletions, then the additions, in one pass
            args = f"&{parts[0][0]}, &{parts[1][0]}"
        return [f"const starc_mpi::LocalChange {change} = starc_mpi::apply_updates({DIST}, "
                f"{args}{relayout});"]

    def carry_local(self, var: str, elem: Scalar, change: str) -> List[str]:
        return [f"starc_mpi::carry_local({DIST}, {change}, {var});"]

    def carry_edges(self, var: str, elem: Scalar, change: str, capacity: str,
                    added=None) -> List[str]:
        weights = f", &{added}" if added else ""
        return [f"starc_mpi::carry_edges({DIST}, {change}, {var}, {capacity}{weights});"]

    def edge_count(self, graph: str) -> str:
        # The local graph's num_edges counts the rank's slots; every rank must see the same
        # count, or host decisions made from it (a BFS's direction) differ between ranks.
        return f"starc_mpi::edge_count({DIST})"

    def warm_up(self, where: str) -> List[str]:
        lines = []
        if self.distribution.indexes_mirrors:
            lines += ["// Index the mirrors the refreshes mark (a part of the distribution).",
                      f"starc_mpi::index_mirrors({DIST});"]
        if self.host.kernels:
            lines += ["// Start the OpenMP threads of the kernels now, outside the timed span.",
                      "#pragma omp parallel", "{}"]
        return lines

    def timer_start(self, where: str) -> List[str]:
        return ["MPI_Barrier(" + DIST + ".comm);  // every rank starts the clock together",
                *super().timer_start(where)]

    def synchronize(self, where: str) -> List[str]:
        return []       # every exchange is complete when finish() returns

    def trial_end(self, where: str) -> List[str]:
        rank_seconds = super().timer_seconds()
        return [f"const double {_SECONDS} = starc_mpi::max_seconds({DIST}, {rank_seconds});"]

    def teardown(self, where: str) -> List[str]:
        return [f"starc_mpi::report_stats({DIST});"]

    def timer_seconds(self) -> str:
        return _SECONDS     # the slowest rank's time (trial_end agrees on it)

    def stopwatch_seconds(self, timer: str) -> Tuple[List[str], str]:
        _, rank_seconds = super().stopwatch_seconds(timer)
        slowest = f"{timer}_seconds"
        return ([f"const double {slowest} = starc_mpi::max_seconds({DIST}, {rank_seconds});"],
                slowest)

    def report(self, lines: List[str]) -> List[str]:
        return [f"if ({DIST}.rank == 0) {{"] + [INDENT + line for line in lines] + ["}"]

    def result_vector(self, vector: str, elem: Scalar, graph: str) -> List[str]:
        # the rank's own vertices' values (rank 0 writes them all, streamed: ``results``)
        return [f"std::vector<{self.storage_type(elem)}> {vector}"
                f"(static_cast<size_t>({DIST}.last - {DIST}.first));"]

    def results(self, results, cl, function, props, returned, graph) -> List[str]:
        lines = [f'starc_mpi::Results {results}({DIST}, {cl}, "{function}", "{self.name}");']
        lines += [f'{results}.prop("{name}", {vector}.data());' for name, vector in props]
        if returned is not None:
            lines.append(f"{results}.ret({returned});")
        return lines + [f"{results}.close();"]

    # --- per-vertex arrays: the local index space, or a full-length replica ---------------------
    def _replica(self, var: str) -> bool:
        return self.arrays[var].name in self.distribution.replicas

    def _graph(self, var: str) -> bool:
        return var in self.arrays and self.arrays[var].role == "graph"

    def _levels(self, var: str) -> bool:
        return var in self.arrays and self.arrays[var].extent == "levels"

    def _count(self, var: str, count: Count) -> str:
        extent = self.arrays[var].extent
        if extent == "levels":
            return f"{var}_levels.size()"
        if extent == "nodes":
            return f"{self.host.graph}.num_nodes" if self._replica(var) else f"{DIST}.local_nodes"
        if extent == "nodes+1":
            return f"{DIST}.local_nodes + 1"
        return count

    def allocate(self, var: str, elem: Scalar, count: Count, where: str) -> List[str]:
        if self._graph(var):
            return []      # the distribution's vectors (copy_to_device)
        if self._levels(var):   # grown by its writes (starc_mpi::write_level)
            ctype = self.storage_type(elem)
            return [f"std::vector<{ctype}> {var}_levels(static_cast<size_t>({DIST}.local_nodes) "
                    f"+ 1);", f"{var} = {var}_levels.data();"]
        if self.arrays[var].extent in ("nodes", "edges"):    # never a 0-element array
            count = f"std::max({self._count(var, count)}, 1)"
        return [f"{var} = new {self.storage_type(elem)}[{count}]();"]

    def free(self, var: str, elem: Scalar, where: str) -> List[str]:
        if self._graph(var) or self._levels(var):   # (a vector: freed with its scope)
            return []
        return [f"delete[] {var};"]

    def copy_to_device(self, var, elem, host, count, where):
        if self._graph(var):    # (the cast: a kernel may answer its queries from degrees)
            return [f"{var} = {host};  // the distribution's own",
                    f"static_cast<void>({var});"]
        return [f"std::copy({host}, {host} + {self._count(var, count)}, {var});"]

    def copy_to_host(self, host, var, elem, count, where):
        if self.arrays[var].extent == "nodes":     # a result: the rank's own vertices
            first, last = ((f"{DIST}.first", f"{DIST}.last") if self._replica(var)
                           else (f"{DIST}.own_begin", f"{DIST}.own_end"))
            return [f"std::copy({var} + {first}, {var} + {last}, {host});"]
        return [f"std::copy({var}, {var} + {count}, {host});"]

    def fill(self, var, elem, value, count, where):
        count = self._count(var, count)
        return [f"std::fill({var}, {var} + {count}, "
                f"static_cast<{self.storage_type(elem)}>({value}));"]

    def copy_device(self, dst, src, elem, count, where):
        count = self._count(dst, count)
        return [f"std::copy({src}, {src} + {count}, {dst});"]

    def write_element(self, var, elem, index, value, where):
        if self._levels(var):
            return [f"starc_mpi::write_level({var}_levels, {var}, {index}, {value});"]
        if self.arrays[var].extent == "nodes" and not self._replica(var):
            return [f"starc_mpi::write_node({DIST}, {var}, {index}, {value});"]
        return [f"{var}[{index}] = {value};"]

    def read_element(self, var, elem, index, where):
        if self.arrays[var].extent == "nodes":
            helper = "read_replica" if self._replica(var) else "read_node"
            return f"starc_mpi::{helper}({DIST}, {var}, {index})"
        return f"{var}[{index}]"

    def order_by_degree(self, order, graph, mode):
        # The distribution itself is renumbered (its rows sent to their new owners); each
        # trial starts again from the file's ids, so the graph arrays are pointed anew always.
        return ([f"const bool {order} = starc_mpi::order_by_degree({DIST}, {mode});",
                 f"static_cast<void>({order});"], "true", f"{DIST}.graph.{{}}.data()")

    def renumbered(self, order):
        return order

    def least_labels(self, labels, name, where):
        fresh = name in self.distribution.fresh_labels
        return [f"// The labels' least over each component: each rank's edges in a union-find, "
                "the trees", "// joined through the ghosts (starc_mpi_components.hpp).",
                f"starc_mpi::least_component_labels({DIST}, {labels}, "
                f"{str(fresh).lower()});  // ghost copies {'exact' if fresh else 'refreshed first'}"]

    # --- kernels ------------------------------------------------------------------------------
    def _scope(self, name: str) -> str:
        """How the superstep exchanges array ``name``: at ghosts in the local index space, or
        anywhere in a replica."""
        return "Anywhere" if name in self.distribution.replicas else "Neighbour"

    def launch(self, kernel: KernelCode, args: Sequence[str], where: str) -> List[str]:
        sized = [spec.source[0] == "size" and spec.source[1] != "frontier"
                 for spec in kernel.args]
        sizes = [arg for arg, size in zip(args, sized) if size]
        rest = [arg for arg, size in zip(args, sized) if not size]
        rest += [DISTRIBUTION_INPUTS[name][1].format(d=DIST)
                 for name in self.inputs.get(kernel.name, ())]
        step = self.distribution.steps[kernel.name]
        # a kernel over a list's entries (a batch's updates, a rank's queue): [0, its count)
        entries = ["0"] + [arg for arg, spec in zip(args, kernel.args)
                           if spec.source == ("size", "frontier")]
        if step.global_:
            # a loop over a batch's updates: every one of them, on every rank alike
            bounds = entries if kernel.extent == "frontier" else []
            call = (f"{kernel.name}({', '.join(bounds + sizes + rest)});  // on every rank "
                    "alike")
            if not (step.refresh or step.scalars):
                return [call] + self._ghost_edges(step)
            # its statements at one endpoint ran on the endpoint's owner: the ghost copies
            # (or replicas) of what they wrote come from there (owner_updates), and so may
            # a failed check
            lines = [f"starc_mpi::Superstep starc_step({DIST});"]
            lines += [f"starc_step.refresh({self.variables[name]}, "
                      f"starc_mpi::Scope::{self._scope(name)});" for name in step.refresh]
            lines += self._errors(step) + [call, "starc_step.finish();"]
            return ["{"] + [INDENT + line for line in lines] + ["}"] + self._ghost_edges(step)
        if kernel.extent == "nodes":
            bounds = [f"{DIST}.own_begin", f"{DIST}.own_end"]
        elif kernel.extent == "frontier":   # the rank's own worklist's entries
            bounds = entries
        else:       # the slots of the rank's own rows
            bounds = [f"{DIST}.owned_begin", f"{DIST}.owned_begin + {DIST}.owned_edges"]
        lines = [f"starc_mpi::Superstep starc_step({DIST});"]
        constants = dict(step.constants)
        for write in step.updates:
            if write.primary:
                value = (f", {_literal(constants[write.array])}"
                         if write.array in constants else "")
                lines.append(f"starc_step.secondary({self.variables[write.array]}, "
                             f"{self.variables[write.primary]}{value});")
            else:
                lines.append(f"starc_step.update({self.variables[write.array]}, "
                             f"starc_mpi::Op::{_OPS[write.op]}, "
                             f"starc_mpi::Scope::{self._scope(write.array)});")
        for array, queue, length in step.queued:
            lines.append(f"starc_step.queue({self.variables[array]}, {self.variables[queue]}, "
                         f"{self.variables[length]});")
        for name in step.bounds:
            lines.append(f"starc_step.keep_candidates({self.variables[name]});")
        for name in step.refresh:
            if name in step.every:
                lines.append(f"starc_step.refresh_every({self.variables[name]});")
            else:
                lines.append(f"starc_step.refresh({self.variables[name]}, "
                             f"starc_mpi::Scope::{self._scope(name)});")
        for name, how in step.scalars:
            if how != "error":
                lines.append(f"starc_step.scalar({self.variables[name]}, "
                             f"starc_mpi::Combine::{_COMBINE[how]});")
        lines += self._errors(step)
        lines.append(f"{kernel.name}({', '.join(bounds + sizes + rest)});")
        lines.append("starc_step.finish();")
        return ["{"] + [INDENT + line for line in lines] + ["}"] + self._ghost_edges(step)

    def _errors(self, step) -> List[str]:
        """The run-time error word combined across ranks, where the kernel may set it."""
        if not any(how == "error" for _, how in step.scalars):
            return []
        error = self.host.plan.error
        return [f"starc_step.errors({self.variables[error.site.name]}, "
                f"{self.variables[error.value.name]});"]

    def _ghost_edges(self, step) -> List[str]:
        """The ghost rows' copies of the edge properties the kernel wrote, from their owners."""
        return [f"starc_mpi::refresh_ghost_edges({DIST}, {self.variables[name]});"
                for name in step.ghost_edges]
