"""Build (with a cache) and run programs on every backend; the Python API ``starc.compile``."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time as _time
from typing import Dict, List, Optional

import starc
from starc.cachedir import cache_root, cache_workdir
from starc.diagnostics import CompileError, DiagnosticSink, SourceLoc
from starc.errors import UsageError
from starc.inputs import staging_directory
from starc.runcontract import param_specs

__all__ = ["ParamSyntaxError", "parse_param_tokens", "cache_root", "build_file", "build",
           "run_file", "CompiledProgram", "compile"]


class ParamSyntaxError(UsageError, ValueError):
    """A program parameter on the command line that is not ``--name value``."""


def parse_param_tokens(tokens: List[str]) -> Dict[str, str]:
    """``['--src', '0', '--beta=0.1']`` -> ``{'src': '0', 'beta': '0.1'}``."""
    values: Dict[str, str] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("--") or len(token) == 2:
            raise ParamSyntaxError(f"unexpected argument '{token}' (program parameters are "
                                   "given as --name value)")
        name, eq, value = token[2:].partition("=")
        if not eq:
            if i + 1 >= len(tokens):
                raise ParamSyntaxError(f"--{name} needs a value")
            value = tokens[i + 1]
            i += 1
        if name in values:
            raise ParamSyntaxError(f"--{name} given twice")
        values[name] = value
        i += 1
    return values


def _cache_key(comp, options, toolchain: str) -> str:
    digest = hashlib.sha256()
    for part in (starc.__version__, comp.backend.name, comp.function.name, toolchain,
                 repr(options)):
        digest.update(part.encode() + b"\0")
    for name, text in sorted(comp.generated.files.items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return digest.hexdigest()[:24]


def build(comp, sink: DiagnosticSink, options, outdir=None, use_cache: bool = True):
    """Compile the program ``comp`` generated for its backend (``comp.backend``); a
    ``BuiltProgram`` or None (errors in ``sink``)."""
    from starc.backends.base import BuiltProgram
    backend = comp.backend
    avail = backend.availability()
    if not avail.can_build:
        sink.error("E0502", f"backend '{backend.name}' cannot build here: {avail.detail}",
                   SourceLoc(comp.filename, 0, 0))
        return None
    cached_dir = None
    if outdir is not None and not pathlib.Path(outdir).exists():
        # A new -o directory appears complete or not at all: build beside it, then rename.
        cached_dir = pathlib.Path(outdir)
        work = staging_directory(cached_dir.parent, cached_dir.name)
    elif outdir is not None:
        # An existing one keeps its old program until the new one is built: build inside it,
        # then move the files over the old ones (a failed build leaves the folder as it was,
        # not new sources beside the old executable).
        return _build_over(comp, sink, options, backend, pathlib.Path(outdir))
    else:
        cached_dir = cache_root() / _cache_key(comp, options, avail.detail)
        marker = cached_dir / "starc-built.json"
        if use_cache and marker.exists():
            info = json.loads(marker.read_text())
            return BuiltProgram(backend.name, comp.function.name, cached_dir,
                                info["argv_prefix"])
        # Build in a fresh temporary directory and rename into place: no half-built cache.
        work = cache_workdir("build-")
    built = _build_in(comp, sink, options, backend, work)
    if built is None:
        return None
    argv = [a.replace(str(work), str(cached_dir)) for a in built.argv_prefix]
    if outdir is None:
        (work / "starc-built.json").write_text(json.dumps({"argv_prefix": argv}))
        if use_cache and (cached_dir / "starc-built.json").exists():
            # Another process (a test worker) built the same program meanwhile and may be
            # running it: keep its copy rather than delete it under its feet.
            shutil.rmtree(work, ignore_errors=True)
            return BuiltProgram(backend.name, comp.function.name, cached_dir, argv)
        shutil.rmtree(cached_dir, ignore_errors=True)
    try:
        os.replace(work, cached_dir)
    except OSError:
        if outdir is not None or not (cached_dir / "starc-built.json").exists():
            raise
        shutil.rmtree(work, ignore_errors=True)      # the other process won the rename
    return BuiltProgram(backend.name, comp.function.name, cached_dir, argv)


def _build_in(comp, sink: DiagnosticSink, options, backend, work: pathlib.Path):
    """``backend.build`` into ``work``; None (the error in ``sink``, ``work`` removed) when
    the toolchain fails."""
    from starc.backends.base import BackendError
    try:
        return backend.build(comp.generated, work, options)
    except BackendError as exc:
        sink.error(exc.code, str(exc), exc.loc or SourceLoc(comp.filename, 0, 0))
        shutil.rmtree(work, ignore_errors=True)
        return None


def _build_over(comp, sink: DiagnosticSink, options, backend, outdir: pathlib.Path):
    """Build into the existing folder ``outdir``: in a staging folder inside it, whose files
    then replace their namesakes; other files of the folder stay."""
    from starc.backends.base import BuiltProgram
    from starc.inputs import check_output_directory
    check_output_directory(str(outdir))
    try:
        work = staging_directory(outdir, "starc-build")
    except OSError as error:
        raise UsageError(f"cannot write into '{outdir}': {error.strerror}") from None
    built = _build_in(comp, sink, options, backend, work)
    if built is None:
        return None
    try:
        for entry in sorted(work.iterdir()):
            target = outdir / entry.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(entry, target)
    except OSError as error:
        raise UsageError(f"cannot write into '{outdir}': {error.strerror}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    argv = [a.replace(str(work), str(outdir)) for a in built.argv_prefix]
    return BuiltProgram(backend.name, comp.function.name, outdir, argv)


def build_file(path: str, backend, sink: DiagnosticSink, *, function=None,
               options=None, outdir=None, show_traceback=False):
    """``starc build``: ``backend`` is a registered name or a ``Backend`` looked up already."""
    from starc.backends.base import BackendOptions
    from starc.driver import compile_file
    options = options or BackendOptions()
    comp = compile_file(path, sink, backend=backend, function=function,
                        options=options, show_traceback=show_traceback)
    if comp is None or not comp.ok:
        return None
    return build(comp, sink, options, outdir=outdir)


def _program_argv(graph: str, undirected: bool, params: Dict[str, str],
                  out: Optional[str], time: bool, trials: int = 1) -> List[str]:
    argv = [graph]
    if undirected:
        argv.append("--undirected")
    for name, value in params.items():
        argv += [f"--{name}", str(value)]
    if out:
        argv += ["--out", out]
    if time:
        argv.append("--time")
    if trials != 1:
        argv += ["--trials", str(trials)]
    return argv


def _run_reference(comp, graph, undirected, params, out, time,
                   max_vertices=None, trials=1, updates=None) -> int:
    from starc.graphs import load_graph
    from starc.inputs import check_output_file, write_file
    from starc.reference import execute, ExecutionError
    from starc.results import format_results
    if out:
        check_output_file(out)      # before the run: a bad path is known at once
    g = load_graph(graph, undirected=undirected, max_vertices=max_vertices)
    stream = _update_stream(updates, g, undirected)
    from starc.ir.scope import stack_room
    elapsed = []     # each trial's seconds (--trials, as a generated program's)
    try:
        for _ in range(trials):
            start = _time.perf_counter()
            with stack_room():   # the executor recurses over expressions, as the stages do
                results = execute(comp.ir, g, params, function=comp.function.name,
                                  updates=stream)
            elapsed.append(_time.perf_counter() - start)
    except ExecutionError as exc:
        # the specification's one line (LANGUAGE.md, run-time errors), as a generated
        # program prints it: FILE:LINE:COL: runtime error: MESSAGE
        sys.stderr.write(f"{exc}\n")
        return 1
    results.graph = graph
    text = format_results(results)
    if out:
        write_file(out, text)
    else:
        sys.stdout.write(text)
    if time:
        for seconds in elapsed:
            print(f"starc-time {seconds:.6f}", file=sys.stderr)
    return 0


def _update_stream(updates, graph, undirected: bool):
    """``updates`` (None, a path, or an ``UpdateStream``) as the stream a run of ``graph``
    applies: read against its vertices, both directions of each update when undirected."""
    if updates is None:
        return None
    from starc.graphs.updates import UpdateStream, read_updates
    stream = updates if isinstance(updates, UpdateStream) else read_updates(updates,
                                                                             graph.num_nodes)
    return stream.symmetrised() if undirected else stream


def run_file(path: str, backend_name: str, sink: DiagnosticSink, *, graph: str,
             undirected: bool = False, params: Dict[str, str], out=None, time=False,
             function=None, options=None, use_cache=True, show_traceback=False,
             max_vertices=None, launch=None, stats: bool = False,
             graph_cache: bool = False, trials: int = 1, updates=None) -> int:
    """``starc run``: the exit status (the generated program's own status is passed on).
    Bad input raises a StarcError (``starc.cli.main`` prints it and exits with its code).
    ``launch``: how to start a backend that runs several processes (MPI: ranks, hostfile,
    a launcher; ``starc.backends.base.Launch``), checked before compiling; ``stats``:
    pass --stats to a program that counts its communication (MPI); ``graph_cache``: the
    program reads the graph's .sg cache (``starc.graphs.cache``), built first if needed;
    ``trials``: run the timed algorithm that many times in one process (``--trials``);
    ``updates``: the update stream file of a Dynamic program."""
    from starc.backends import get_backend
    from starc.backends.base import BackendOptions, Launch
    from starc.driver import compile_file
    options = options or BackendOptions()
    launch = launch or Launch()
    backend = get_backend(backend_name)
    launcher = backend.launcher(options, launch)     # a bad --np is known before compiling
    if stats and not backend.has_stats:
        raise UsageError(f"--stats counts the messages of a distributed run; the "
                         f"{backend_name} backend sends none (use -b mpi)")
    comp = compile_file(path, sink, backend=backend, function=function, options=options,
                        show_traceback=show_traceback)
    if comp is None or not comp.ok:
        sink.emit()
        return 1
    given = graph
    if graph_cache:     # after compiling: a program with errors must not wait for a graph
        from starc.graphs.cache import cached_graph
        graph = cached_graph(graph, undirected, max_vertices)
    launcher = _fit_ranks(backend, options, launch, graph, given, launcher)
    stream = next((spec for spec in param_specs(comp.function) if spec.kind == "updates"), None)
    if updates is not None and stream is None:
        raise UsageError(f"--updates: {comp.function.name} takes no update stream (only a "
                         "Dynamic function with an 'updates<g>' parameter does)")
    if updates is None and stream is not None:    # the reference's message, before a build
        raise UsageError(f"missing --updates FILE (the update stream '{stream.name}' of "
                         f"{comp.function.name})")
    if backend_name == "reference":
        sink.emit()
        return _run_reference(comp, graph, undirected, params, out, time, max_vertices,
                              trials, updates)
    built = build(comp, sink, options, use_cache=use_cache)
    sink.emit()
    if built is None:
        return 1
    if not backend.availability().can_run:      # E0502, as a backend that cannot build
        print(f"starc: error[E0502]: the {backend_name} program was built in "
              f"{built.directory} but cannot run here: {backend.availability().detail}",
              file=sys.stderr)
        return 1
    argv = launcher + built.argv_prefix + _program_argv(graph, undirected, params, out, time,
                                                        trials)
    if updates is not None:     # a Dynamic program's stream: read by the program itself
        argv += ["--updates", str(updates)]
    if max_vertices is not None:
        argv += ["--max-vertices", str(max_vertices)]
    argv += ["--stats"] if stats else []
    if not launcher:
        # stdin and a /dev/fd/N graph (`--graph <(zcat g.el.gz)`) reach the program as they
        # reach the reference: `cat g.el | starc run ... --graph /dev/stdin`
        return shell_status(subprocess.run(argv, pass_fds=_inherited_fds(graph)).returncode)
    with tempfile.TemporaryDirectory(prefix="starc-run-") as tmp:
        # TMPDIR per run: see CompiledProgram.run.
        return _run_launched(argv, len(launcher), {**os.environ, "TMPDIR": tmp})


def _inherited_fds(path: str) -> tuple:
    """The descriptor a /dev/fd/N (or /proc/self/fd/N) graph path names, which the program
    must inherit; () for any other path."""
    match = re.fullmatch(r"/(?:dev|proc/self)/fd/(\d+)", str(path))
    return (int(match.group(1)),) if match else ()


def shell_status(returncode: int) -> int:
    """A child's status as a shell reports it: 128 + N for a program signal N stopped
    (subprocess's -N; 141 for SIGPIPE, when the reader of stdout left, as `| head` does)."""
    return 128 - returncode if returncode < 0 else returncode


def _run_launched(argv: List[str], prefix: int, env) -> int:
    """Run a program under its launcher (``argv[:prefix]``), passing its stdout and stderr on
    as they come; a launcher that stops without a word gets one line that says so: mpirun -q
    (which keeps its banners out of a failed program's message) also hides mpirun's own
    errors, an unreachable host of a hostfile or too few slots. When the reader of stdout
    leaves (`| head`), the launcher is stopped and the status is 141, as for a program run
    alone: Open MPI's mpirun, left to write into the closed pipe, crashes with a stack dump.
    Any other failure to write (a full disk) stops the launcher too, and is raised."""
    # stdin: no program reads it; an MPI launcher would otherwise forward it to rank 0.
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    said, failed = False, None        # failed: the OSError of writing the output on
    with selectors.DefaultSelector() as streams:
        streams.register(proc.stdout, selectors.EVENT_READ, 1)
        streams.register(proc.stderr, selectors.EVENT_READ, 2)
        while streams.get_map():
            for key, _ in streams.select():
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    streams.unregister(key.fileobj)
                    key.fileobj.close()
                    continue
                if failed:
                    continue        # draining what the stopped launcher still says
                said = said or key.data == 2
                try:
                    _write_all(key.data, chunk)
                except OSError as error:    # the reader left, a full disk
                    failed = error
                    proc.terminate()
    status = proc.wait()
    if isinstance(failed, BrokenPipeError):
        return 128 + signal.SIGPIPE
    if failed:
        raise failed                # starc.cli.main reports it
    if status != 0 and not said:
        quiet = " without -q" if "-q" in argv[:prefix] else ""
        print(f"starc: error: {os.path.basename(argv[0])} stopped with exit status {status} "
              f"and no message; run it{quiet} to see why: {shlex.join(argv)}",
              file=sys.stderr)
    return shell_status(status)


def _write_all(fd: int, data: bytes) -> None:
    """``data`` to file descriptor ``fd`` (1 or 2, as the program's own output would go)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _fit_ranks(backend, options, launch, graph: str, given: str,
               launcher: List[str]) -> List[str]:
    """``launcher``, checked against ``graph`` (the file the program reads: ``given``, or
    its .sg cache) before anything starts: more ranks than vertices is a usage error however
    it was asked for (a typo such as --np 100000 for 10), and the default number of ranks
    shrinks to fit a smaller graph. One rank may run any graph, the empty one too."""
    from starc.graphs.peek import vertices_up_to
    ranks = backend.ranks(options, launch)
    if ranks is None:
        return launcher
    if os.path.exists(graph) and not os.path.isfile(graph):
        # each rank reads its own byte range: a stream (/dev/stdin, <(...)) cannot be shared
        raise UsageError(f"--graph {given}: MPI ranks each read their own part of the graph "
                         "file, so it must be a regular file, not a stream or a device; save "
                         "it to a file first")
    if ranks == 1:
        return launcher
    vertices = vertices_up_to(graph, ranks)
    if vertices >= ranks:
        return launcher
    if launch.ranks is None:
        return backend.launcher(options, dataclasses.replace(launch, ranks=max(1, vertices)))
    most = max(1, vertices)
    raise UsageError(f"--np {ranks} is more MPI processes than the {vertices} vertices of "
                     f"'{given}' (a process owns at least one vertex); use --np {most} or fewer")


class CompiledProgram:
    """``starc.compile(...)``: a checked, lowered program that runs on one backend."""

    def __init__(self, comp, options, launcher=()) -> None:
        self.compilation = comp
        self.options = options
        self.launcher = list(launcher)    # the command that starts the program (MPI: mpirun)
        self._built = None

    @property
    def backend(self):
        """The ``Backend`` the program was compiled for (the compilation's)."""
        return self.compilation.backend

    @property
    def function(self) -> str:
        return self.compilation.function.name

    def run(self, graph, *, undirected: bool = False, updates=None, **params):
        """Run on ``graph`` (a path or a ``starc.graphs.Graph``) and return
        ``starc.results.Results`` with numpy arrays; ``updates``: a Dynamic program's update
        stream (a path or a ``starc.graphs.updates.UpdateStream``)."""
        from starc.graphs import Graph, write_edge_list
        from starc.results import parse_results
        params = {k: (",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v))
                  for k, v in params.items()}
        with tempfile.TemporaryDirectory(prefix="starc-run-") as tmp:
            if isinstance(graph, Graph):
                path = os.path.join(tmp, "graph.el")
                write_edge_list(graph, path)
            else:
                path = str(graph)
            if self.backend.name == "reference":
                from starc.graphs import load_graph
                from starc.reference import execute
                loaded = load_graph(path, undirected=undirected)
                return execute(self.compilation.ir, loaded, params, function=self.function,
                               updates=_update_stream(updates, loaded, undirected))
            stream_argv = []
            if updates is not None:
                if not any(spec.kind == "updates"
                           for spec in param_specs(self.compilation.function)):
                    raise UsageError(f"--updates: {self.function} takes no update stream (only "
                                     "a Dynamic function with an 'updates<g>' parameter does)")
                from starc.graphs.updates import UpdateStream, write_updates
                if isinstance(updates, UpdateStream):   # the program reads a file
                    written = os.path.join(tmp, "updates.txt")
                    write_updates(written, updates)
                    updates = written
                stream_argv = ["--updates", str(updates)]
            if self._built is None:
                sink = DiagnosticSink()
                self._built = build(self.compilation, sink, self.options)
                if self._built is None:
                    raise CompileError(sink.errors)
            out = os.path.join(tmp, "results.txt")
            argv = self.launcher + self._built.argv_prefix + _program_argv(
                path, undirected, params, out, False) + stream_argv
            # TMPDIR per run: concurrent mpiruns of one user otherwise race on Open MPI's
            # session directory (ORTE_ERROR_LOG in session_dir.c)
            proc = subprocess.run(argv, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, env={**os.environ, "TMPDIR": tmp})
            failed_check = _failed_check(proc)
            if failed_check is not None:
                raise failed_check
            if proc.returncode != 0:
                raise RuntimeError(f"{self.backend.name} program failed (exit {proc.returncode}): "
                                   f"{proc.stderr.strip()}")
            return parse_results(pathlib.Path(out).read_text())


def _failed_check(proc):
    """The reference's ``ExecutionError`` when a generated program stopped on a failed
    run-time check (exit status 1, the reference's "<loc>: runtime error: <message>" as its
    last line on stderr), so ``run`` fails alike on every backend; else None."""
    from starc.reference import ExecutionError
    lines = proc.stderr.strip().splitlines()
    match = re.fullmatch(r"(.+):(\d+):(\d+): runtime error: (.+)", lines[-1]) if lines else None
    if proc.returncode != 1 or match is None:
        return None
    file, line, col, message = match.groups()
    return ExecutionError(message, SourceLoc(file, int(line), int(col)))


def compile(source: str, backend: str = "reference", *, function: Optional[str] = None,
            options=None, ranks: Optional[int] = None, oversubscribe: bool = False,
            hostfile: Optional[str] = None, launcher: Optional[str] = None) -> CompiledProgram:
    """Compile DSL ``source`` (text, or a path to a .sp file) for ``backend``; raises
    ``CompileError`` with the diagnostics if the program has errors. For a backend that runs
    several processes (MPI), as ``starc run``'s options: ``ranks`` (default 2, no more than
    this machine's or ``hostfile``'s slots unless ``oversubscribe``), ``hostfile`` and
    ``launcher`` (a command that replaces mpirun, e.g. "srun -n 64"); a ``UsageError`` for
    any other backend or a bad value. Unlike ``starc run``, ``run`` starts the ranks asked
    for on any graph, also one with fewer vertices than ranks (the tests of ranks that own
    no vertex)."""
    from starc.backends import get_backend
    from starc.backends.base import BackendOptions, Launch
    from starc.driver import compile_source, read_source
    sink = DiagnosticSink()
    filename = "<string>"
    if "\n" not in source and source.endswith(".sp") and os.path.exists(source):
        filename, source = source, read_source(source, sink)
    options = options or BackendOptions()
    target = get_backend(backend)          # the one look-up: the compilation keeps it
    start = target.launcher(                                    # bad ranks: before compiling
        options, Launch(ranks, oversubscribe, hostfile, launcher))
    comp = compile_source(source, filename, sink, backend=target, function=function,
                          options=options)
    if not comp.ok:
        raise CompileError(sink.errors)
    return CompiledProgram(comp, options, start)
