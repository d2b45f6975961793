"""The ``starc graph`` command: generate, inspect and convert graph files."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, List, Optional

from starc.argparsing import ExactArgumentParser
from starc.errors import StarcError, UsageError
from starc.inputs import atomic_output, check_output_file, parse_max_vertices

# The graph modules (and numpy) are imported by the commands that use them: every starc
# command builds this subparser, and `starc check` / `compile` must start without numpy.
if TYPE_CHECKING:
    from .csr import Graph

__all__ = ["add_graph_subparser", "run_graph_command", "main", "graph_summary"]

_FORMATS_HELP = ("format by extension: .mtx Matrix Market, .sg starc binary graph (read by "
                 "generated programs too), .npz numpy archive, else edge list")
_CACHE_HELP = ("read a text graph once, then from a binary .sg copy in the cache directory "
               "($STARC_CACHE_DIR, else $XDG_CACHE_HOME/starc, else ~/.cache/starc), rebuilt "
               "when the file changes")


def add_graph_subparser(subparsers) -> argparse.ArgumentParser:
    """Register ``graph`` (gen, info, convert); its handler is ``args.func``."""
    parser = subparsers.add_parser("graph", help="generate, inspect and convert graph files",
                                   description="Generate, inspect and convert graph files.")
    commands = parser.add_subparsers(dest="graph_command", metavar="COMMAND")
    commands.required = True

    gen = commands.add_parser("gen", help="generate a synthetic graph")
    generators = gen.add_subparsers(dest="generator", metavar="GENERATOR")
    generators.required = True
    rmat_parser = generators.add_parser("rmat", help="Graph500 R-MAT (Kronecker) graph")
    rmat_parser.add_argument("--scale", type=int, required=True,
                             help="2**scale vertices, 0..40; the edges, 2**scale x "
                                  "--edge-factor, at most 2**31 - 2 (scale 26 at factor 16)")
    rmat_parser.add_argument("--edge-factor", type=int, default=16,
                             help="edges per vertex (default 16)")
    for name, default in (("a", 0.57), ("b", 0.19), ("c", 0.19)):
        rmat_parser.add_argument(f"-{name}", type=float, default=default,
                                 help=f"quadrant probability {name} (default {default})")
    uniform_parser = generators.add_parser("uniform", help="uniformly random edges")
    uniform_parser.add_argument("--nodes", type=int, required=True,
                                help="number of vertices")
    uniform_parser.add_argument("--degree", type=float, required=True,
                                help="average out-degree")
    grid_parser = generators.add_parser("grid", help="road-like 2-D lattice")
    grid_parser.add_argument("--rows", type=int, required=True,
                             help="rows of the lattice")
    grid_parser.add_argument("--cols", type=int, required=True,
                             help="columns of the lattice (rows x cols vertices)")
    updates_parser = generators.add_parser(
        "updates", help="an update stream for a graph (docs/graphs.md, 'Update streams')",
        description="Write COUNT updates of GRAPH ('a u v [w]' / 'd u v' lines): deletions "
                    "of distinct existing edges (the --delete-share of them) and additions "
                    "of edges the graph does not have, shuffled, seeded.")
    updates_parser.add_argument("--graph", required=True, help=_FORMATS_HELP)
    updates_parser.add_argument("--undirected", action="store_true",
                                help="read --graph as undirected")
    updates_parser.add_argument("--count", type=int, required=True,
                                help="number of updates")
    updates_parser.add_argument("--delete-share", type=float, default=0.5,
                                help="share of deletions, 0..1 (default 0.5)")
    for sub in (rmat_parser, uniform_parser, grid_parser, updates_parser):
        sub.add_argument("--seed", type=int, default=0,
                         help="random seed (default 0)")
        sub.add_argument("--weights", action="store_true",
                         help="integer weights uniform in [1, 100]")
        sub.add_argument("-o", "--output", required=True,
                         help="the update stream (text)" if sub is updates_parser
                         else _FORMATS_HELP)

    info = commands.add_parser("info", help="print a graph file's statistics")
    info.add_argument("graph", help=_FORMATS_HELP)
    info.add_argument("--undirected", action="store_true", help="symmetrise the edges first")
    info.add_argument("--cache", action="store_true", help=_CACHE_HELP)
    add_max_vertices_option(info)

    convert = commands.add_parser(
        "convert", help="convert between graph formats",
        description="Convert between graph formats (chosen by extension). 'starc graph "
                    "convert g.el g.sg' writes the binary CSR every reader loads in "
                    "milliseconds: a 64-byte header (magic STARC-SG, version, flags, vertex "
                    "and edge counts, an Adler-32 checksum of the payload), then the forward "
                    "and reverse CSR arrays (int32) and the weights (float64); see "
                    "docs/graphs.md. With --undirected the file records that the edges were "
                    "symmetrised, and reading it with --undirected adds nothing.")
    convert.add_argument("input", help=_FORMATS_HELP)
    convert.add_argument("output", help=_FORMATS_HELP)
    convert.add_argument("--undirected", action="store_true",
                         help="symmetrise the edges before writing")
    add_max_vertices_option(convert)

    parser.set_defaults(func=run_graph_command)
    return parser


def add_max_vertices_option(parser: argparse.ArgumentParser) -> None:
    """``--max-vertices N``: refuse a graph whose largest vertex id is N or more."""
    parser.add_argument("--max-vertices", type=_max_vertices, metavar="N",
                        help="refuse graphs with more than N vertices (default 2^31-1, and "
                             "no more than fits in the available memory)")


def _max_vertices(text: str) -> int:
    try:
        return parse_max_vertices(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error)[len("--max-vertices "):]) from None


def graph_summary(graph: Graph) -> List[str]:
    """The lines ``starc graph info`` prints."""
    lines = [f"graph: {graph.name}",
             f"vertices: {graph.num_nodes}",
             f"edges: {graph.num_edges}"]
    if graph.weights is None:
        lines.append("weights: none")
    else:
        kind = "integer" if graph.weights_integral else "real"
        if graph.num_edges:
            low, high = graph.weights.min(), graph.weights.max()
            if graph.weights_integral:
                kind += f" (min {int(low)}, max {int(high)})"
            else:
                kind += f" (min {low:.6g}, max {high:.6g})"
        lines.append(f"weights: {kind}")
    lines += [f"self-loops: {graph.self_loop_count()}",
              f"duplicate edges: {graph.duplicate_edge_count()}",
              f"isolated vertices: {graph.isolated_vertex_count()}"]
    if graph.num_nodes:
        out_degree, in_degree = graph.out_degree(), graph.in_degree()
        lines.append(f"out-degree: min {int(out_degree.min())}, max {int(out_degree.max())}, "
                     f"mean {float(out_degree.mean()):.2f}")
        lines.append(f"in-degree: max {int(in_degree.max())}")
    else:
        lines += ["out-degree: min 0, max 0, mean 0.00", "in-degree: max 0"]
    return lines


#: per generator, (option, its args attribute, whether a value is good, what it must be)
_GENERATOR_VALUES = {
    "rmat": [("--scale", "scale", lambda x: 0 <= x <= 40, "in 0..40"),
             ("--edge-factor", "edge_factor", lambda x: x >= 0, ">= 0")] +
            [(f"-{q}", q, lambda x: math.isfinite(x) and x >= 0, "a finite number >= 0")
             for q in "abc"],
    # a size of 0 would write a graph without vertices (or a stream without updates), which
    # no program can run on: refused like a negative one
    "uniform": [("--nodes", "nodes", lambda x: x >= 1, ">= 1"),
                ("--degree", "degree", lambda x: math.isfinite(x) and x >= 0,
                 "a finite number >= 0")],
    "grid": [("--rows", "rows", lambda x: x >= 1, ">= 1"),
             ("--cols", "cols", lambda x: x >= 1, ">= 1")],
    "updates": [("--count", "count", lambda x: x >= 1, ">= 1")],
}


def _check_generator_values(args) -> None:
    """A bad value named by its option as typed (the generators, a Python API, name their
    parameters: num_nodes, avg_degree; numpy refuses a negative seed in its own words)."""
    checks = _GENERATOR_VALUES.get(args.generator, []) + \
        [("--seed", "seed", lambda x: x >= 0, ">= 0")]
    for option, attribute, good, want in checks:
        value = getattr(args, attribute)
        if not good(value):
            raise UsageError(f"{option} must be {want}, got {value}")


def _generate(args) -> Graph:
    from .generators import grid, rmat, uniform
    _check_generator_values(args)
    if args.generator == "rmat":
        return rmat(args.scale, args.edge_factor, args.a, args.b, args.c, seed=args.seed,
                    weights=args.weights)
    if args.generator == "uniform":
        return uniform(args.nodes, args.degree, seed=args.seed, weights=args.weights)
    return grid(args.rows, args.cols, seed=args.seed, weights=args.weights)


def _generate_updates(args) -> None:
    from .readers import load_graph
    from .updates import generate_updates, write_updates
    check_output_file(args.output)
    _check_generator_values(args)
    graph = load_graph(args.graph, undirected=args.undirected)
    try:
        stream = generate_updates(graph, args.count, args.delete_share, args.seed, args.weights)
    except ValueError as error:
        raise UsageError(str(error)) from None
    with atomic_output(args.output) as tmp:
        write_updates(tmp, stream)
    deletions = int((stream.kinds == 0).sum())
    print(f"wrote {args.output}: {len(stream)} updates ({deletions} deletions, "
          f"{len(stream) - deletions} additions)")


def _write(graph: Graph, path: str, undirected: bool = False) -> None:
    """Write atomically: a failed or interrupted write leaves no partial file."""
    from .writers import write_graph
    with atomic_output(path) as tmp:
        write_graph(graph, tmp, undirected)


def _symmetrised_sg(path: str) -> bool:
    """Whether ``path`` is a .sg file written symmetrised (a copy must say so too)."""
    if not path.lower().endswith(".sg"):
        return False
    from .binary import read_sg_header
    return read_sg_header(path).undirected


def run_graph_command(args) -> int:
    """Run ``starc graph ...``; returns the exit status, reporting errors on stderr."""
    from .readers import load_graph
    try:
        if args.graph_command == "gen" and args.generator == "updates":
            _generate_updates(args)
        elif args.graph_command == "gen":
            check_output_file(args.output)      # before generating: fail fast
            try:
                graph = _generate(args)
            except ValueError as error:       # a bad generator argument or size
                raise UsageError(str(error)) from None
            _write(graph, args.output)
            print(f"wrote {args.output}: {graph.num_nodes} vertices, {graph.num_edges} edges")
        elif args.graph_command == "info":
            path = args.graph
            if args.cache:
                from .cache import cached_graph
                path = cached_graph(path, args.undirected, args.max_vertices)
            graph = load_graph(path, undirected=args.undirected,
                               max_vertices=args.max_vertices)
            graph.name = args.graph if path != args.graph else graph.name   # not the cache's
            print("\n".join(graph_summary(graph)))
        elif args.graph_command == "convert":
            check_output_file(args.output)
            graph = load_graph(args.input, undirected=args.undirected,
                               max_vertices=args.max_vertices)
            _write(graph, args.output, args.undirected or _symmetrised_sg(args.input))
            print(f"wrote {args.output}: {graph.num_nodes} vertices, {graph.num_edges} edges")
        else:  # argparse makes the subcommand required; this guards direct callers.
            raise UsageError(f"unknown graph command {args.graph_command!r}")
    except StarcError as error:
        print(f"starc: {error.report()}", file=sys.stderr)
        return error.exit_code
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Standalone entry: ``main(["graph", "info", "g.el"])`` or ``main(["info", "g.el"])``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["graph"]:
        argv = ["graph"] + argv
    parser = ExactArgumentParser(prog="starc")
    add_graph_subparser(parser.add_subparsers(dest="command"))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
