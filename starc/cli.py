"""The ``starc`` command line: compile (default), check, build, run, compare, explain, backends, graph."""

from __future__ import annotations

import difflib
import errno
import os
import pathlib
import shlex
import signal
import sys
from typing import List, Optional

from starc.argparsing import nearest_option
from starc.cli_parser import COMMANDS, build_parser, device_backends
from starc.diagnostics import DiagnosticSink, WARNING_IDS
from starc.errors import (EXIT_ERROR, EXIT_INTERNAL, EXIT_USAGE, InputError, StarcError,
                          UsageError)
from starc.inputs import check_output_directory, check_output_file, write_directory

__all__ = ["main", "build_parser"]


def _sink_for(args) -> Optional[DiagnosticSink]:
    disabled, werror = [], False
    for flag in args.warning_flags:
        if flag == "error":
            werror = True
        elif flag.startswith("no-") and flag[3:] in WARNING_IDS:
            disabled.append(flag[3:])
        else:
            _usage_error(f"unknown warning flag '-W {flag}' (use -W no-<id> with id one of: "
                         f"{', '.join(WARNING_IDS)}; or -Werror)")
            return None
    return DiagnosticSink(disabled, werror)


#: The largest --block-size: CUDA's limit of threads per block.
_MAX_BLOCK_SIZE = 1024


def _backend_options(args, chosen: Optional[List[str]] = None):
    """The backend options of ``args``; an option of none of the ``chosen`` backends
    (default: ``-b``'s one) is warned about, since it changes nothing."""
    from starc.backends import backend_options
    from starc.backends.base import BackendOptions
    if chosen is None:
        chosen = [args.backend] if getattr(args, "backend", None) else []
    size = args.block_size
    if size is not None and not (1 <= size <= _MAX_BLOCK_SIZE and size & (size - 1) == 0):
        raise UsageError(f"--block-size must be a power of two from 1 to {_MAX_BLOCK_SIZE}, "
                         f"got {size}")
    extra = {}
    for backend, option in backend_options():
        value = getattr(args, option.dest, None)
        problem = option.check(value)
        if problem:
            raise UsageError(problem)
        if value is not None:
            extra[option.dest] = value
            if chosen and backend not in chosen:
                print(f"starc: warning: {option.flag} is an option of the {backend} backend; "
                      f"ignored for {', '.join(chosen)}", file=sys.stderr)
    schedule = getattr(args, "schedule", None)
    return BackendOptions(block_size=args.block_size, extra=extra,
                          schedule=None if schedule == "auto" else schedule)


def _usage_error(message: str) -> int:
    """Print a command-line error as a raised UsageError prints (error[E0601]); status 2."""
    print(f"starc: {UsageError(message).report()}", file=sys.stderr)
    return EXIT_USAGE


def _status(sink: DiagnosticSink) -> int:
    """1 for errors in the program, 2 when every error is about the command line (E0601,
    e.g. --function naming no function)."""
    if not sink.has_errors:
        return 0
    return EXIT_USAGE if all(d.code == "E0601" for d in sink.errors) else EXIT_ERROR


def _check_input_file(path: str) -> None:
    """A missing program file is reported first, before any option is judged."""
    if not os.path.isfile(path):
        why = "it is a directory" if os.path.isdir(path) else "No such file or directory"
        raise InputError(f"cannot read '{path}': {why}")


def cmd_check(args) -> int:
    from starc.driver import compile_file
    sink = _sink_for(args)
    if sink is None:
        return 2
    for path in args.files:
        compile_file(path, sink, stop_after="sema", show_traceback=args.traceback)
    sink.emit()
    return _status(sink)


def cmd_compile(args) -> int:
    from starc.driver import compile_file
    sink = _sink_for(args)
    if sink is None:
        return 2
    stop = {"ast": "parse", "ir": "sema", "dsl": "sema", "plan": "plan"}.get(args.emit,
                                                                             "generate")
    _check_input_file(args.file)
    options = _backend_options(args)
    outdir = None
    if stop == "generate" and args.backend and args.backend != "reference":
        outdir = check_output_directory(
            args.output or f"{pathlib.Path(args.file).stem}_{args.backend}")
    if stop == "generate" and not args.backend:
        return _usage_error("a backend is needed: -b " + "|".join(device_backends()))
    if stop == "generate" and args.backend == "reference":
        return _usage_error("the reference executor generates no program; use "
                            "'starc run FILE -b reference --graph G'")
    # With a device backend the plan is its specialized plan (analysis.specialize), else the
    # neutral plan; the reference executor (which runs the typed IR and never lowers it)
    # would otherwise stop before it.
    backend = args.backend
    if stop == "plan":
        specialized = backend is not None and backend != "reference"
        stop, backend = ("specialize", backend) if specialized else ("plan", None)
    comp = compile_file(args.file, sink, stop_after=stop, backend=backend,
                        function=args.function, options=options,
                        show_traceback=args.traceback)
    sink.emit()
    if comp is None or sink.has_errors:
        return _status(sink) or EXIT_ERROR
    if args.emit in ("ast", "ir", "dsl", "plan"):
        text = _emitted(args.emit, comp, args.traceback)
        if text is None:
            sink.emit()
            return _status(sink)
        print(text, end="")
    elif args.emit == "code":
        for name, text in comp.generated.files.items():
            print(f"// ===== {name} =====")
            print(text)
    elif args.emit == "sourcemap":
        import json
        print(json.dumps(sourcemap_json(comp), indent=1))
    else:
        for path in write_directory(str(outdir), comp.generated.files):
            print(f"wrote {path}")
        if comp.generated.build_hint:
            print(f"build: {comp.generated.build_hint}")
    return 0


def sourcemap_json(comp) -> dict:
    """``--emit sourcemap``: the DSL file and, per generated file, line -> DSL span."""
    generated = comp.generated
    return {"source": comp.filename, "backend": generated.backend,
            "files": {name: {str(line): span.as_json() for line, span in sorted(spans.items())}
                      for name, spans in generated.sourcemap.items()}}


def _emitted(form: str, comp, show_traceback: bool) -> Optional[str]:
    """The text of ``--emit FORM``, or None after an E0901: a printer that fails is reported
    like any stage, at the construct it was printing."""
    from starc.driver import InternalError, run_stage

    def text() -> str:
        if form == "ast":
            from starc.frontend.ast import dump
            return dump(comp.ast) + "\n"
        if form == "ir":
            from starc.ir.dump import dump_ir
            return dump_ir(comp.ir) + "\n"
        if form == "dsl":
            from starc.ir.printer import print_program
            return print_program(comp.ir)
        from starc.analysis import plan_dump
        return plan_dump(comp.specialized or comp.plan) + "\n"
    try:
        return run_stage(f"emit {form}", comp.sink, show_traceback, text)
    except InternalError:
        return None


def cmd_build(args) -> int:
    from starc.backends import get_backend
    from starc.runner import build_file
    sink = _sink_for(args)
    if sink is None:
        return 2
    _check_input_file(args.file)
    if args.backend == "reference":
        return _usage_error("the reference executor needs no build; use 'starc run'")
    options = _backend_options(args)
    if args.output:
        check_output_directory(args.output)
    backend = get_backend(args.backend)
    launcher = backend.launcher(options)          # $STARC_MPI_LAUNCHER, checked
    built = build_file(args.file, backend, sink, function=args.function,
                       options=options, outdir=args.output,
                       show_traceback=args.traceback)
    sink.emit()
    if built is None:
        return _status(sink) or EXIT_ERROR
    print(f"built {built.backend} program in {built.directory}")
    print("run:  " + shlex.join(launcher + built.argv_prefix) + " GRAPH [--name value ...]")
    return 0


def cmd_run(args, params: List[str]) -> int:
    from starc.runner import run_file, parse_param_tokens
    sink = _sink_for(args)
    if sink is None:
        return 2
    _check_input_file(args.file)
    try:
        values = parse_param_tokens(params)      # a ParamSyntaxError is a UsageError
        options = _backend_options(args)
        if args.out:
            check_output_file(args.out)
        status = run_file(args.file, args.backend, sink, graph=args.graph,
                          undirected=args.undirected, params=values, out=args.out,
                          time=args.time, function=args.function, options=options,
                          use_cache=not args.no_cache, show_traceback=args.traceback,
                          max_vertices=args.max_vertices, launch=_launch(args),
                          stats=args.stats, graph_cache=args.cache, trials=args.trials,
                          updates=args.updates)
    except UsageError as exc:
        # a program parameter the error is about may be a misspelt option of starc run's
        # (--udirected, --trails 3): say so, rather than only list the program's parameters
        hints = _misspelt_run_options(params, args.run_options, about=str(exc))
        if hints:
            raise UsageError(f"{exc}; {hints[0]}") from None
        raise
    return _status(sink) if sink.has_errors and status == EXIT_ERROR else status


def _misspelt_run_options(tokens: List[str], run_options, about: str = "") -> List[str]:
    """'did you mean' lines for the ``--name`` tokens of ``tokens`` close to an option of
    ``starc run`` (only those ``about`` names, when given)."""
    hints = []
    for token in tokens:
        name = token.split("=", 1)[0]
        near = nearest_option(token, run_options)
        if near and (not about or f"{name}'" in about or f"{name} " in about):
            hints.append(f"'{name}' is no option of starc run: did you mean '{near}'?")
    return hints


def _launch(args):
    """How ``starc run`` was asked to start the processes. ``--np``'s value is a number when
    it is written as one, else the text as given, for the backend's launcher to reject with
    the one message the Python API's ``ranks=`` gets too."""
    from starc.backends.base import Launch
    text = args.np
    ranks = int(text) if text is not None and text.strip().isdecimal() else text
    return Launch(ranks, args.oversubscribe, args.hostfile, args.launcher)


def backend_list(text: Optional[str]) -> List[str]:
    """``-b a,b,c`` of compare/explain: the named device backends in that order (each once),
    or every device backend when not given; an unknown name is a usage error."""
    known = device_backends()
    if text is None:
        return known
    names = []
    for name in (part.strip() for part in text.split(",")):
        if name == "reference":     # a backend, but one that generates no code to show
            raise UsageError(f"-b reference: the reference executor generates no code, so "
                             f"there is nothing to show (choose from: {', '.join(known)})")
        if name not in known:
            raise UsageError(f"unknown backend '{name}' in -b (choose from: {', '.join(known)})"
                             if name else f"empty backend name in -b '{text}'")
        if name not in names:
            names.append(name)
    return names


def _teaching_inputs(args):
    """compare's and explain's (sink, backends, backend options), judged in the order every
    command judges them; None after an unknown -W flag."""
    sink = _sink_for(args)
    if sink is None:
        return None
    _check_input_file(args.file)
    backends = backend_list(args.backends)
    return sink, backends, _backend_options(args, backends)


def cmd_compare(args) -> int:
    from starc.inputs import write_file
    from starc.teaching.compare import compare_page
    inputs = _teaching_inputs(args)
    if inputs is None:
        return 2
    sink, backends, options = inputs
    output = args.output or f"{pathlib.Path(args.file).stem}_compare.html"
    check_output_file(output)
    page = compare_page(args.file, backends, sink, function=args.function, options=options,
                        show_traceback=args.traceback)
    sink.emit()
    if page is None:
        return _status(sink) or EXIT_ERROR
    write_file(output, page)
    print(f"wrote {output}")
    return 0


def cmd_backends(args) -> int:
    from starc.backends import backend_names, get_backend
    rows = []
    for name in backend_names():
        try:
            backend = get_backend(name)
            avail = backend.availability()
            state = ("build+run" if avail.can_run else "build only") if avail.can_build \
                else "unavailable"
            rows.append((name, state, avail.detail))
        except StarcError as exc:     # a setting of the user's (the cache directory)
            rows.append((name, "unavailable", str(exc)))
        except Exception as exc:  # noqa: BLE001 - a broken backend must not hide the others
            rows.append((name, "unavailable", f"failed to load: {type(exc).__name__}: {exc}"))
    width = max(len(r[0]) for r in rows)
    for name, state, detail in rows:
        print(f"{name:<{width}}  {state:<11}  {detail}")
    return 0


def cmd_explain(args) -> int:
    from starc.driver import compile_file
    from starc.teaching.explain import render_json, render_text, report
    inputs = _teaching_inputs(args)
    if inputs is None:
        return 2
    sink, backends, options = inputs
    width = 32 if args.warp_width is None else args.warp_width
    if not 1 <= width <= 1024:      # a bad value is an error with --graph or not
        return _usage_error(f"--warp-width must be from 1 to 1024, got {width}")
    if args.graph is None:      # both only shape the model on a graph
        for flag, given in (("--undirected", args.undirected),
                            ("--warp-width", args.warp_width is not None)):
            if given:
                print(f"starc: warning: {flag} applies to the model on a graph; ignored "
                      "without --graph", file=sys.stderr)
    comp = compile_file(args.file, sink, stop_after="plan", function=args.function,
                        show_traceback=args.traceback)
    sink.emit()
    if comp is None or comp.plan is None or sink.has_errors:
        return _status(sink) or EXIT_ERROR
    graph = None
    if args.graph is not None:
        from starc.graphs import load_graph
        graph = load_graph(args.graph, undirected=args.undirected)
    data = report(comp, backends, options, graph, width)
    print(render_json(data) if args.format == "json" else render_text(data), end="")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    try:
        status = _main(argv)
        sys.stdout.flush()       # here, not at exit: a reader that left is seen below
        return status
    except BrokenPipeError:      # `starc ... | head`: the reader has what it wanted
        return closed_stdout()
    except OSError as error:     # stdout itself failed: a full disk, a device error
        if not _is_stdout_failure(error):
            print(f"starc: internal error: {type(error).__name__}: {error}", file=sys.stderr)
            return EXIT_INTERNAL
        print(f"starc: error[E0601]: cannot write to stdout: {os.strerror(error.errno)}",
              file=sys.stderr)
        _stdout_to_devnull()
        return EXIT_USAGE


#: errno values of a write to an open stream that failed (a file's path errors come named).
_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _is_stdout_failure(error: Exception) -> bool:
    """Whether ``error`` is a failed write to stdout: every file starc writes by name reports
    its own errors (``starc.inputs``), with the path."""
    return (isinstance(error, OSError) and error.filename is None
            and error.errno in _OUTPUT_ERRNOS)


def _main(argv: Optional[List[str]]) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        command = _misspelt_command(argv[0])
        if command:
            print(f"starc: error: '{argv[0]}' is not a command; did you mean '{command}'? "
                  "(see 'starc --help')", file=sys.stderr)
            return EXIT_USAGE
        argv.insert(0, "compile")       # `starc bc.sp -b sycl`
    parser = build_parser()
    try:
        if argv and argv[0] == "run":
            args, extra = parser.parse_known_args(argv)
        else:
            args, extra = parser.parse_args(argv), []
    except SystemExit as exc:            # argparse already printed the message
        if exc.code and argv and argv[0] == "run":    # `--grpah g.el`: --graph is missing
            for hint in _misspelt_run_options(argv[1:], parser.run_options)[:1]:
                print(hint, file=sys.stderr)
        return int(exc.code or 0)
    try:
        return _dispatch(parser, args, extra)
    except BrokenPipeError:
        raise                    # main's
    except SystemExit as exc:
        return int(exc.code or 0)
    except KeyboardInterrupt:
        return 130
    except StarcError as exc:
        print(f"starc: {exc.report()}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - never a traceback for the user
        if _is_stdout_failure(exc):
            raise                # main's
        print(f"starc: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if getattr(args, "traceback", False):
            raise
        return EXIT_INTERNAL


def _misspelt_command(word: str) -> Optional[str]:
    """The command ``word`` most likely misspells (``chek``, ``bakends``), or None when it may
    be the program file of the `starc FILE` shorthand (an existing path, a .sp name)."""
    if word.endswith(".sp") or os.path.exists(word):
        return None
    close = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.7)
    return close[0] if close else None


def closed_stdout() -> int:
    """The status of a command whose stdout was closed by its reader (128 + SIGPIPE, as a
    shell reports a program that signal stops)."""
    _stdout_to_devnull()
    return 128 + signal.SIGPIPE


def _stdout_to_devnull() -> None:
    """Points stdout at /dev/null, so that Python's flush at exit does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _dispatch(parser, args, extra: List[str]) -> int:
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "run":
        return cmd_run(args, extra)
    if args.command == "graph":
        from starc.graphs.cli import run_graph_command
        return run_graph_command(args)
    commands = {"check": cmd_check, "compile": cmd_compile, "build": cmd_build,
                "compare": cmd_compare, "backends": cmd_backends, "explain": cmd_explain}
    return commands[args.command](args)
