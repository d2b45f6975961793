"""The ``starc`` command line's argument parser: its subcommands, their options and help."""

from __future__ import annotations

import argparse
from typing import List

import starc
from starc.argparsing import ExactArgumentParser
from starc.diagnostics import WARNING_IDS
from starc.graphs.cli import add_graph_subparser, add_max_vertices_option

__all__ = ["COMMANDS", "EMIT_FORMS", "build_parser", "device_backends"]

COMMANDS = ("compile", "check", "build", "run", "compare", "explain", "backends", "graph")
EMIT_FORMS = ("ast", "ir", "dsl", "plan", "code", "sourcemap")
# which function a run executes (runcontract.entry_function), for --function's help
_FUNCTION_DEFAULT = ("(default: the only one; else the file's Dynamic function; else the last "
                     "one no other function calls)")

EPILOG = """\
examples:
  starc check dsl/*.sp                               check programs, report every error
  starc dsl/sssp.sp -b opencl -o out/                write a runnable OpenCL program to out/
  starc dsl/bc.sp -b sycl --emit code                print the generated SYCL program
  starc build dsl/sssp.sp -b cuda --gpu-arch sm_90   generate and compile with nvcc
  starc run dsl/sssp.sp -b opencl --graph g.el --src 0
  starc run dsl/bc.sp -b openacc --graph g.el --sourceSet 0,1
  starc run dsl/sssp.sp -b mpi --np 4 --graph g.el --src 0   4 MPI processes (more than the
                                                     cores: add --oversubscribe)
  starc run dsl/sssp.sp -b mpi --launcher 'srun -n 64' --graph g.sg --src 0   under Slurm
  starc run dsl/pr.sp -b reference --graph g.el --beta 0.001 --delta 0.85 --maxIter 100
  starc run dsl/dynamic/dyn_sssp.sp -b reference --graph g.el --updates u.txt --batchSize 100 --src 0
  starc graph gen rmat --scale 12 --weights -o g.el  make a test graph
  starc compare dsl/bc.sp -o bc.html                 every backend's code beside the DSL
  starc backends                                     what can build and run here
  starc explain dsl/sssp.sp -b cuda,mpi              how each backend implements each construct

exit status: 0 success, 1 errors in the program or its input files, 2 command-line
errors (unknown option, bad value, unwritable output path), 3 internal compiler error.
"""


def _add_diagnostic_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("diagnostics")
    g.add_argument("-W", dest="warning_flags", action="append", default=[], metavar="FLAG",
                   help="'-W no-<id>' silences a warning, '-Werror' makes warnings errors; "
                        f"ids: {', '.join(WARNING_IDS)}")
    g.add_argument("--traceback", action="store_true",
                   help="show the Python stack of an internal compiler error")


def _add_backend_options(p: argparse.ArgumentParser, required: bool = True) -> None:
    from starc.backends import backend_names, backend_options
    p.add_argument("-b", "--backend", required=required, choices=backend_names(),
                   help="target backend (see 'starc backends')")
    p.add_argument("--function", help=f"function to compile when the file defines several "
                                      f"{_FUNCTION_DEFAULT}")
    g = p.add_argument_group("backend options")
    _add_block_size(g)
    _add_schedule(g)
    for backend, option in backend_options():
        g.add_argument(option.flag, dest=option.dest, default=None, metavar="VALUE",
                       help=f"{backend}: {option.help}")


def _add_block_size(g) -> None:
    g.add_argument("--block-size", type=int, default=None, metavar="N",
                   help="threads per block / work-group size, a power of two from 1 to 1024 "
                        "(other sizes are rejected: SYCL reductions need a power of two); "
                        "built into the program as its default (CUDA, OpenCL, SYCL: 256; "
                        "OpenACC and MPI have no work-groups to size)")


def _add_schedule(g) -> None:
    # analysis/schedules.py's SCHEDULES, spelled here: building the parser imports no analysis
    g.add_argument("--schedule", choices=("vertex", "edges", "binned", "auto"), default=None,
                   help="work items of a forall with a neighbour loop: vertex, one per "
                        "vertex; edges, one per edge where the loop only pushes to its "
                        "neighbours; binned, where the loop folds its edges into one value: "
                        "a work-group per vertex of degree at least its size (OpenACC: each "
                        "vertex's gang shares the loop); MPI prints vertex only; auto (the "
                        "default): edges or binned where lanes run in lockstep (CUDA; OpenCL "
                        "and SYCL on a GPU device, chosen at run time), vertex elsewhere. "
                        "'--emit plan -b B' says which and why")


def _add_teaching_options(p: argparse.ArgumentParser) -> None:
    """What compare and explain share: the program, the backends, the function, the block
    size the code is shown with."""
    p.add_argument("file", help="the .sp program")
    p.add_argument("-b", "--backends", metavar="LIST",
                   help="comma-separated backends (default: every device backend: "
                        f"{','.join(device_backends())})")
    p.add_argument("--function", help=f"function to show when the file defines several "
                                      f"{_FUNCTION_DEFAULT}")
    _add_block_size(p)
    _add_schedule(p)
    _add_diagnostic_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = ExactArgumentParser(
        prog="starc", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="starc compiles StarPlat-style graph programs (.sp) to CUDA, SYCL, "
                    "OpenCL, OpenACC and MPI. 'starc FILE -b BACKEND' is short for "
                    "'starc compile FILE -b BACKEND'.",
        epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"starc {starc.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("compile", help="generate a program for a backend (the default command)",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the .sp program")
    _add_backend_options(p, required=False)
    p.add_argument("-o", "--output", help="output directory (default: <name>_<backend>/)")
    p.add_argument("--emit", choices=EMIT_FORMS,
                   help="print a stage instead of writing files: ast, ir, dsl (canonical "
                        "source from the IR), plan (kernels and transfers; with -b, as "
                        "that backend specializes it), code, "
                        "sourcemap (JSON: each generated line's DSL span, per file)")
    _add_diagnostic_options(p)

    p = sub.add_parser("check", help="parse and check programs; report every error")
    p.add_argument("files", nargs="+", metavar="FILE", help="the .sp programs")
    _add_diagnostic_options(p)

    p = sub.add_parser("build", help="generate and compile with the backend's toolchain")
    p.add_argument("file", help="the .sp program")
    _add_backend_options(p)
    p.add_argument("-o", "--output", help="output directory (default: <name>_<backend>/)")
    _add_diagnostic_options(p)

    p = sub.add_parser(
        "run", help="build (cached), run on a graph and print the results",
        description="Parameters of the program are given as '--name value' after the "
                    "options, e.g. '--src 0' or '--sourceSet 0,5,9'; so are the generated "
                    "program's own options: '--device cpu|gpu|default' (OpenCL, SYCL), "
                    "'--block-size N' (CUDA, SYCL, OpenCL).")
    p.add_argument("file", help="the .sp program")
    _add_backend_options(p)
    p.add_argument("--graph", required=True, help="graph file (edge list, .mtx, .sg or .npz)")
    p.add_argument("--undirected", action="store_true", help="add the reverse of every edge")
    p.add_argument("--updates", metavar="FILE",
                   help="the update stream a Dynamic program runs over ('a u v [w]' / 'd u v' "
                        "lines, docs/graphs.md); its batch size is the program's parameter")
    p.add_argument("--cache", action="store_true",
                   help="read a text graph once, then from a binary .sg copy in the cache "
                        "directory, rebuilt when the file changes (docs/graphs.md)")
    p.add_argument("--out", help="write the results here instead of stdout")
    p.add_argument("--time", action="store_true", help="print 'starc-time <s>' on stderr")
    p.add_argument("--trials", metavar="N", type=_trial_count, default=1,
                   help="run the algorithm N times in one process (one starc-time line "
                        "each, as GAPBS's -n); the results are the last run's")
    p.add_argument("--np", metavar="N",
                   help="mpi: run on N processes (default 2; no more than the slots: this "
                        "machine's cores, or the hostfile's; no more than the graph's "
                        "vertices)")
    p.add_argument("--oversubscribe", action="store_true",
                   help="mpi: allow more processes than slots (they share the cores)")
    p.add_argument("--hostfile", metavar="FILE",
                   help="mpi: start the processes on the hosts of FILE, given to mpirun "
                        "(Open MPI: one 'host slots=N' a line)")
    p.add_argument("--launcher", metavar="COMMAND",
                   help="mpi: start the program with COMMAND instead of mpirun, e.g. "
                        "'srun -n 64', which decides the processes and hosts (default: "
                        "$STARC_MPI_LAUNCHER when set)")
    p.add_argument("--stats", action="store_true",
                   help="mpi: print each rank's supersteps, messages and bytes on stderr")
    add_max_vertices_option(p)
    p.add_argument("--no-cache", action="store_true", help="rebuild even if cached")
    _add_diagnostic_options(p)
    # starc run's own options, to word a misspelt one (which parses as a program parameter)
    parser.run_options = tuple(s for a in p._actions for s in a.option_strings)
    p.set_defaults(run_options=parser.run_options)

    p = sub.add_parser(
        "compare", help="write one HTML page: the DSL and each backend's code, line to line",
        description="Writes a self-contained HTML page (no network needed) with the program "
                    "on the left and one column per backend; clicking a DSL line highlights "
                    "the code it became in every column, clicking generated code its origin.")
    _add_teaching_options(p)
    p.add_argument("-o", "--output", help="the HTML file (default: <name>_compare.html)")

    p = sub.add_parser("explain", help="what each backend chose for each forall, reduction, "
                                       "Min/Max, fixedPoint, BFS and transfer, and why")
    _add_teaching_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text (default) or JSON: one record per construct, each backend's "
                        "choice inside")
    p.add_argument("--graph", metavar="FILE",
                   help="also model each neighbour loop's SIMT lane efficiency on this graph "
                        "under every schedule (no GPU needed)")
    p.add_argument("--undirected", action="store_true", help="read --graph as undirected")
    p.add_argument("--warp-width", type=int, metavar="W",
                   help="lanes per warp / sub-group in the model (default 32)")

    sub.add_parser("backends", help="list backends and whether they can build and run here")

    add_graph_subparser(sub)
    return parser


def _trial_count(text: str) -> int:
    """``--trials``'s value: a whole number of runs, at least 1 (argparse reports the rest)."""
    if not text.strip().isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs, 1 or more, "
                                         f"got '{text}'")
    return int(text)


def device_backends() -> List[str]:
    """The backends compare and explain show by default."""
    from starc.backends import device_backend_names
    return device_backend_names()
