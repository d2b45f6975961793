"""The command line: commands, exit statuses, diagnostics format, no tracebacks."""

from __future__ import annotations

import argparse
import glob
import os
import pathlib
import subprocess
import sys

import pytest

from starc.cli import main

from label_rounds import write_cc_in_rounds

ROOT = pathlib.Path(__file__).resolve().parents[1]
DSL = sorted(glob.glob(str(ROOT / "dsl" / "*.sp")))


def run_cli(*args, cwd=None):
    """Run `python -m starc` as a user would; returns (status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "starc", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


def test_check_all_dsl_programs_clean():
    status, out, err = run_cli("check", *DSL)
    assert status == 0, err
    assert err == ""


def test_help_lists_commands():
    status, out, _ = run_cli("--help")
    assert status == 0
    for command in ("check", "build", "run", "backends", "graph"):
        assert command in out


def test_syntax_error_is_located(tmp_path):
    bad = tmp_path / "bad.sp"
    bad.write_text("function f(Graph g) {\n    int x = ;\n}\n")
    status, _, err = run_cli("check", bad)
    assert status == 1
    assert f"{bad}:2:13: error[E0103]" in err
    assert "Traceback" not in err
    assert "^" in err                       # the caret line


def test_a_byte_order_mark_is_no_character_of_the_program(tmp_path):
    """Editors on Windows start UTF-8 files with EF BB BF; columns count from after it."""
    clean = tmp_path / "clean.sp"
    clean.write_bytes(b"\xef\xbb\xbf" + pathlib.Path(DSL[0]).read_bytes())
    assert run_cli("check", clean)[0::2] == (0, "")
    bad = tmp_path / "bad.sp"
    bad.write_bytes(b"\xef\xbb\xbffunction f(Graph g) {\n    int x = ;\n}\n")
    status, _, err = run_cli("check", bad)
    assert status == 1 and err.startswith(f"{bad}:2:13: error[E0103]"), err


def test_several_errors_in_one_run(tmp_path):
    bad = tmp_path / "two.sp"
    bad.write_text("function f(Graph g) {\n    x = 1;\n    y = 2;\n}\n")
    status, _, err = run_cli("check", bad)
    assert status == 1
    assert err.count("error[E0201]") == 2


def test_missing_file_is_an_error_not_a_traceback(tmp_path):
    status, _, err = run_cli("check", tmp_path / "nope.sp")
    assert status == 1
    assert "cannot read" in err and "Traceback" not in err


def test_usage_errors_exit_2():
    assert run_cli("run")[0] == 2
    assert run_cli("frobnicate.sp", "-b", "nonsense")[0] == 2
    status, _, err = run_cli("check", DSL[0], "-W", "no-such-warning")
    assert status == 2 and "unknown warning flag" in err


def test_warning_can_be_silenced_and_promoted(tmp_path):
    prog = tmp_path / "race.sp"
    prog.write_text("function f(Graph g, propNode<int> p) {\n"
                    "    int x = 0;\n"
                    "    forall (v in g.nodes()) {\n"
                    "        x = v.p;\n"
                    "    }\n"
                    "    return x;\n"
                    "}\n")
    status, _, err = run_cli("check", prog)
    assert status == 0 and "warning[data-race]" in err
    status, _, err = run_cli("check", prog, "-W", "no-data-race")
    assert status == 0 and err == ""
    status, _, err = run_cli("check", prog, "-Werror")
    assert status == 1 and "error[data-race]" in err


@pytest.mark.parametrize("form", ["ast", "ir", "dsl"])
def test_emit_forms(form):
    status, out, err = run_cli(str(ROOT / "dsl" / "sssp.sp"), "--emit", form)
    assert status == 0, err
    assert "dist" in out


def test_emit_dsl_reparses(tmp_path):
    status, out, _ = run_cli(str(ROOT / "dsl" / "bc.sp"), "--emit", "dsl")
    assert status == 0
    again = tmp_path / "bc_again.sp"
    again.write_text(out)
    status, out2, err = run_cli(again, "--emit", "dsl")
    assert status == 0, err
    assert out2 == out


def test_backends_lists_every_registered_backend():
    from starc.backends import backend_names
    status, out, _ = run_cli("backends")
    assert status == 0
    for name in backend_names():
        assert name in out


def _first(nodes, cls):
    return next(n for n in nodes if isinstance(n, cls))


def _syntax_nodes(path: str):
    from starc.frontend import ast, parse
    stack = [parse(pathlib.Path(path).read_text(), path)]
    while stack:
        node = stack.pop(0)
        yield node
        stack.extend(ast.children(node))


def _boom(*args):
    raise ZeroDivisionError("boom")


def test_internal_error_is_reported_at_the_construct(monkeypatch, capsys):
    """An unexpected exception in a stage becomes E0901 at the construct being processed
    (the innermost one: here an expression inside an assignment), not a traceback."""
    from starc.frontend import ast
    from starc.ir.typecheck import ExpressionTyper
    path = str(ROOT / "dsl" / "bfs.sp")
    binary = _first(_syntax_nodes(path), ast.Binary)
    monkeypatch.setattr(ExpressionTyper, "_expr_Binary", _boom)
    status = main(["check", path])
    err = capsys.readouterr().err
    assert status == 1
    assert (f"{binary.loc}: error[E0901]: internal compiler error in sema while processing "
            "Binary: ZeroDivisionError: boom") in err
    assert "= help: please report this" in err and "Traceback" not in err


def test_internal_error_in_lowering_names_the_function(monkeypatch, capsys):
    """Where no visitor names a construct, the stage's input (the function) does."""
    import starc.analysis
    from starc.frontend import ast
    path = str(ROOT / "dsl" / "sssp.sp")
    function = _first(_syntax_nodes(path), ast.Function)
    monkeypatch.setattr(starc.analysis, "lower_function", _boom)
    status = main([path, "--emit", "plan"])
    err = capsys.readouterr().err
    assert status == 1
    assert (f"{function.loc}: error[E0901]: internal compiler error in plan while processing "
            "Function: ZeroDivisionError: boom") in err


@pytest.mark.parametrize("form, printer, method, construct", [
    ("dsl", "starc.ir.printer.DSLPrinter", "_stmt_MinMaxAssign", "MinMaxAssign"),
    ("plan", "starc.analysis.dump.PlanPrinter", "_stmt_AtomicMinMax", "AtomicMinMax"),
])
def test_internal_error_in_a_printer_is_located(monkeypatch, capsys, form, printer, method,
                                                construct):
    """--emit printers are stages too: a failure names the statement being printed (the
    plan's atomic keeps the location of the DSL Min/Max assignment it lowers)."""
    import importlib
    from starc.frontend import ast
    module, cls = printer.rsplit(".", 1)
    monkeypatch.setattr(getattr(importlib.import_module(module), cls), method, _boom)
    path = str(ROOT / "dsl" / "sssp.sp")
    minmax = _first(_syntax_nodes(path), ast.MinMaxAssign)
    status = main([path, "--emit", form])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert (f"{minmax.loc}: error[E0901]: internal compiler error in emit {form} while "
            f"processing {construct}: ZeroDivisionError: boom") in err


def _reads_a_property(node) -> bool:
    from starc.ir import nodes as ir
    return isinstance(node.left, ir.PropRead)


@pytest.mark.parametrize("backend, printer, method, construct, source, fails_on", [
    ("cuda", "starc.backends.common.c_statements.CPrinter", "_stmt_AtomicMinMax",
     "AtomicMinMax", "<nbr.dist, nbr.modified>", None),
    # the filter's comparison (a kernel prints others first: its worklist length's slot)
    ("sycl", "starc.backends.common.c_expressions.CExpressionPrinter", "_expr_Binary",
     "Binary", "filter(modified == True)", _reads_a_property),
])
def test_internal_error_in_code_generation_is_located(monkeypatch, capsys, backend, printer,
                                                      method, construct, source, fails_on):
    """The kernel printers name the construct they were printing, at its DSL line."""
    import importlib
    module, cls = printer.rsplit(".", 1)
    owner = getattr(importlib.import_module(module), cls)
    original = getattr(owner, method)

    def failing(self, node, *args):
        if fails_on is None or fails_on(node):
            _boom()
        return original(self, node, *args)
    monkeypatch.setattr(owner, method, failing)
    path = ROOT / "dsl" / "sssp.sp"
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if source in text)
    status = main([str(path), "-b", backend, "--emit", "code"])
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert f"error[E0901]: internal compiler error in generate while processing {construct}" \
        in err
    assert f"sssp.sp:{line}:" in err and "Traceback" not in err


def test_run_reference_on_a_graph(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text("0 1 4\n0 2 1\n2 1 2\n1 3 5\n")
    status, out, err = run_cli("run", ROOT / "dsl" / "sssp.sp", "-b", "reference",
                               "--graph", graph, "--src", "0")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"# starc results: Compute_SSSP backend=reference graph={graph}"
    assert lines[1:] == ["dist 0 0", "dist 1 3", "dist 2 1", "dist 3 8"]


def test_run_reports_bad_parameters(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text("0 1 4\n")
    status, _, err = run_cli("run", ROOT / "dsl" / "sssp.sp", "-b", "reference",
                             "--graph", graph, "--src", "x")
    assert status == 2 and "--src" in err and "Traceback" not in err
    status, _, err = run_cli("run", ROOT / "dsl" / "sssp.sp", "-b", "reference",
                             "--graph", graph)
    assert status == 2 and "--src" in err


def test_run_reports_bad_graph(tmp_path):
    graph = tmp_path / "bad.el"
    graph.write_text("0 1\n0 x\n")
    status, _, err = run_cli("run", ROOT / "dsl" / "bfs.sp", "-b", "reference",
                             "--graph", graph, "--src", "0")
    assert status == 1 and f"{graph}:2" in err and "Traceback" not in err


@pytest.mark.opencl
def test_run_opencl_matches_reference_through_the_cli(tmp_path):
    """The README's quick start: `starc run dsl/sssp.sp -b opencl --graph g.el --src 0`."""
    graph = tmp_path / "g.el"
    status, _, err = run_cli("graph", "gen", "rmat", "--scale", "7", "--weights", "-o", graph)
    assert status == 0, err
    outputs = {}
    for backend in ("reference", "opencl"):
        status, out, err = run_cli("run", ROOT / "dsl" / "sssp.sp", "-b", backend,
                                   "--graph", graph, "--src", "0", "--time")
        assert status == 0, err
        assert "starc-time" in err
        outputs[backend] = out.splitlines()
    assert outputs["opencl"][0].endswith(f"backend=opencl graph={graph}")
    assert outputs["opencl"][1:] == outputs["reference"][1:]
    assert len(outputs["opencl"]) == 1 + 128


# -- bad input (issue 13): every problem a message, the documented status, nothing written --

SSSP = ROOT / "dsl" / "sssp.sp"
BFS = ROOT / "dsl" / "bfs.sp"


def starc(capsys, *args):
    """Run ``starc.cli.main`` in-process; returns (status, stdout, stderr)."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def tree(path: pathlib.Path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.fixture
def graphs(tmp_path):
    files = {"huge.el": "0 1 3\n1 99999999999 2\n", "big.el": "0 1 3\n1 2000000000 2\n",
             "w.el": "0 1 3\n1 2 4\n", "nw.el": "0 1\n1 2\n", "real.el": "0 1 3\n1 2 2.5\n",
             "badw.el": "0 1 3\n1 2 x\n", "empty.el": ""}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.mark.parametrize("command", [["run", SSSP, "-b", "reference", "--src", "0", "--graph"],
                                     ["graph", "info"], ["graph", "convert"]])
def test_huge_vertex_id_is_a_located_input_error(capsys, graphs, command):
    extra = [graphs / "out.el"] if command[-1] == "convert" else []
    status, out, err = starc(capsys, *command, graphs / "huge.el", *extra)
    assert status == 1 and out == ""
    assert err.endswith(f"{graphs / 'huge.el'}:2: target id 99999999999 is larger than the "
                        "largest vertex id allowed, 2147483646 (--max-vertices; 32-bit ids)\n")
    assert not (graphs / "out.el").exists()


def test_huge_32_bit_vertex_id_is_refused_before_allocating(capsys, graphs, monkeypatch):
    monkeypatch.setenv("STARC_MAX_MEMORY", "2G")
    status, _, err = starc(capsys, "graph", "info", graphs / "big.el")
    assert status == 1
    assert err == (f"starc: error[E0602]: {graphs / 'big.el'}: 2000000001 vertices and 2 edges need "
                   "about 89.4 GiB of memory but 2.0 GiB is available (the vertex count is the "
                   "largest id + 1: are the ids dense?)\n")
    status, _, err = starc(capsys, "graph", "info", graphs / "w.el", "--max-vertices", "2")
    assert status == 1 and f"{graphs / 'w.el'}:2: target id 2 is larger than the largest " \
                           "vertex id allowed, 1" in err
    status, _, err = starc(capsys, "graph", "info", graphs / "w.el", "--max-vertices", "0")
    assert status == 2 and "--max-vertices" in err


def test_max_vertices_option_of_run(capsys, graphs):
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph", graphs / "w.el",
                           "--src", "0", "--max-vertices", "2")
    assert status == 1 and ":2: target id 2 is larger than" in err
    status, out, _ = starc(capsys, "run", SSSP, "-b", "reference", "--graph", graphs / "w.el",
                           "--src", "0", "--max-vertices", "3")
    assert status == 0 and "dist 2 7" in out


@pytest.mark.parametrize("command", [["run", SSSP, "-b", "reference", "--src", "0", "--graph"],
                                     ["graph", "info"]])
def test_dev_zero_is_refused_not_read_forever(capsys, command):
    status, _, err = starc(capsys, *command, "/dev/zero")
    assert status == 1
    assert err.endswith("/dev/zero:1: line is longer than 1 MiB; is this a text graph file?\n")


@pytest.mark.parametrize("command", [["compile", SSSP, "-b", "opencl", "--emit", "code"],
                                     ["build", SSSP, "-b", "opencl"],
                                     ["run", SSSP, "-b", "reference", "--src", "0", "--graph"]])
def test_unknown_function_is_a_usage_error(capsys, graphs, command):
    extra = [graphs / "w.el"] if command[-1] == "--graph" else []
    status, out, err = starc(capsys, *command, *extra, "--function", "Nope")
    assert status == 2 and out == ""
    assert "error[E0601]: no function named 'Nope' (the file defines: Compute_SSSP)" in err
    assert "internal" not in err


@pytest.mark.parametrize("where", ["missing_dir", "under_a_file"])
def test_compile_output_directory_problems(capsys, tmp_path, where):
    (tmp_path / "file").write_text("x")
    out = {"missing_dir": tmp_path / "no" / "sub", "under_a_file": tmp_path / "file" / "sub"}
    before = tree(tmp_path)
    status, _, err = starc(capsys, SSSP, "-b", "opencl", "-o", out[where])
    assert status == 2
    assert err.startswith(f"starc: error[E0601]: cannot create '{out[where]}': ")
    assert tree(tmp_path) == before


def test_compile_output_onto_a_file_and_into_a_new_directory(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    status, _, err = starc(capsys, SSSP, "-b", "opencl", "-o", target)
    assert status == 2
    assert err == (f"starc: error[E0601]: cannot write into '{target}': it is a file, not a "
                   "directory\n")
    assert target.read_text() == "x"
    status, out, _ = starc(capsys, SSSP, "-b", "opencl", "-o", tmp_path / "new")
    files = ["sssp.cl", "sssp.cpp", "starc_cli.hpp", "starc_degree_order.hpp", "starc_entry.hpp",
             "starc_graph.hpp", "starc_graph_binary.hpp", "starc_graph_text.hpp",
             "starc_opencl_device.hpp", "starc_opencl_host.hpp", "starc_results.hpp",
             "starc_runtime.hpp", "starc_slack_reverse_ids.hpp", "starc_slack_rows.hpp",
             "starc_slot_change.hpp", "starc_support.hpp", "starc_update_stream.hpp",
             "starc_updates.hpp"]
    assert status == 0 and tree(tmp_path / "new") == files
    assert tree(tmp_path) == ["file", "new"] + [f"new/{f}" for f in files]   # no leftovers


def test_build_output_directory_problems(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    for out in (tmp_path / "no" / "sub", tmp_path / "file"):
        status, _, err = starc(capsys, "build", SSSP, "-b", "opencl", "-o", out)
        assert status == 2 and "error[E0601]: cannot " in err
    assert tree(tmp_path) == ["file"]


@pytest.mark.parametrize("output", ["dir", "missing/g.el", "file/g.el"])
@pytest.mark.parametrize("command", [["graph", "gen", "grid", "--rows", "2", "--cols", "2",
                                      "-o"], ["graph", "convert", "IN"]])
def test_graph_output_path_problems(capsys, graphs, command, output):
    (graphs / "dir").mkdir()
    (graphs / "file").write_text("x")
    command = [graphs / "w.el" if part == "IN" else part for part in command]
    before = tree(graphs)
    status, out, err = starc(capsys, *command, graphs / output)
    assert status == 2 and out == ""
    assert err.startswith(f"starc: error[E0601]: cannot write '{graphs / output}': ")
    assert tree(graphs) == before


@pytest.mark.parametrize("output", ["dir", "missing/r.txt", "file/r.txt"])
def test_run_out_path_problems(capsys, graphs, output):
    (graphs / "dir").mkdir()
    (graphs / "file").write_text("x")
    before = tree(graphs)
    status, out, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                             graphs / "w.el", "--src", "0", "--out", graphs / output)
    assert status == 2 and out == ""
    assert err.startswith(f"starc: error[E0601]: cannot write '{graphs / output}': ")
    assert tree(graphs) == before


@pytest.mark.parametrize("args, message", [
    (["rmat", "--scale", "40"], "rmat --scale 40 --edge-factor 16: 1099511627776 vertices"),
    (["rmat", "--scale", "30"], "rmat --scale 30 --edge-factor 16: 17179869184 edges are more "
                                "than the limit"),
    (["uniform", "--nodes", "10", "--degree", "inf"], "--degree must be a finite number"),
    (["uniform", "--nodes", "10", "--degree", "nan"], "--degree must be a finite number"),
    (["uniform", "--nodes", "2000000000", "--degree", "1"], "of memory but"),
    (["grid", "--rows", "100000", "--cols", "100000"], "vertices (ids 0..9999999999)"),
    (["rmat", "--scale", "4", "-a", "nan"], "-a must be a finite number >= 0, got nan"),
])
def test_graph_gen_sizes_are_checked_before_allocating(capsys, tmp_path, monkeypatch, args,
                                                       message):
    monkeypatch.setenv("STARC_MAX_MEMORY", "4G")
    status, _, err = starc(capsys, "graph", "gen", *args, "-o", tmp_path / "g.el")
    assert status == 2, err
    assert message in err and len(err.splitlines()) == 1
    assert tree(tmp_path) == []


@pytest.mark.parametrize("backend", ["reference", pytest.param("opencl",
                                                               marks=pytest.mark.opencl)])
@pytest.mark.parametrize("extra, name", [(["--foo", "3"], "--foo"), (["--s", "0"], "--s"),
                                         (["--sr", "0"], "--sr"), (["--d", "0"], "--d"),
                                         (["--dev", "cpu"], "--dev"),
                                         (["--sycl", "x"], "--sycl")])
def test_program_parameters_match_exactly(capfd, graphs, backend, extra, name):
    # capfd: the generated OpenCL host runs as a subprocess and writes to the real stderr.
    status, out, err = starc(capfd, "run", SSSP, "-b", backend, "--graph", graphs / "w.el",
                             "--src", "0", *extra)
    assert status == 2 and out == ""
    assert f"unknown option '{name}' (Compute_SSSP takes: --src)" in err


def test_bogus_gpu_arch_is_a_usage_error(capsys):
    status, _, err = starc(capsys, SSSP, "-b", "cuda", "--gpu-arch", "bogus", "--emit", "code")
    assert status == 2
    assert "--gpu-arch expects a CUDA architecture such as sm_75" in err
    for arch in ("sm_90a", "compute_80", "sm_75"):
        status, out, _ = starc(capsys, SSSP, "-b", "cuda", "--gpu-arch", arch, "--emit", "code")
        assert status == 0 and out


def test_weight_errors_name_the_line(capsys, graphs):
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                           graphs / "real.el", "--src", "0")
    assert status == 1
    assert err == (f"starc: error[E0602]: {graphs / 'real.el'}:2: weight '2.5': Compute_SSSP "
                   "needs integer edge weights for 'weight' (propEdge<int>) but "
                   f"{graphs / 'real.el'} has non-integer weights\n")
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                           graphs / "badw.el", "--src", "0")
    assert status == 1 and f"{graphs / 'badw.el'}:2: weight 'x' is not a number" in err


def test_data_errors_exit_1_not_the_usage_status(capsys, graphs):
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                           graphs / "nw.el", "--src", "0")
    assert status == 1
    assert f"{graphs / 'nw.el'}: the program reads edge weights (propEdge<int> weight) but " \
        "the file has none" in err
    # ... while a bad parameter value is a command-line error
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                           graphs / "w.el", "--src", "9")
    assert status == 2 and "--src expects a node id (0..2), got '9'" in err


def test_empty_graph_message_has_no_negative_range(capsys, graphs):
    status, _, err = starc(capsys, "run", BFS, "-b", "reference", "--graph",
                           graphs / "empty.el", "--src", "0")
    assert status == 2      # out of range, as any id; the same status as generated programs
    assert err == (f"starc: error[E0601]: --src 0: {graphs / 'empty.el'} has no vertices, so "
                   "no node id is valid\n")
    assert "(0..-1)" not in err      # the old message named an empty id range


@pytest.mark.parametrize("args", [["nosuchfile.sp"], ["nosuchfile.sp", "-b", "opencl"],
                                  ["build", "nosuchfile.sp", "-b", "opencl"],
                                  ["run", "nosuchfile.sp", "-b", "reference", "--graph", "g"]])
def test_missing_program_file_is_named_first(capsys, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    status, _, err = starc(capsys, *args)
    assert status == 1
    assert err == ("starc: error[E0602]: cannot read 'nosuchfile.sp': No such file or "
                   "directory\n")


def test_flat_250_term_sum_compiles_and_runs_everywhere(capsys, tmp_path, graphs):
    terms = " + ".join(f"v.p * {i % 7}" if i % 3 else str(i) for i in range(250))
    program = tmp_path / "sum.sp"
    program.write_text("function F(Graph g, propNode<int> p, propNode<int> q) {\n"
                       "  g.attachNodeProperty(p = 1, q = 0);\n"
                       f"  forall (v in g.nodes()) {{ v.q = {terms}; }}\n}}\n")
    expected = sum(i % 7 if i % 3 else i for i in range(250))
    for backend in ("opencl", "cuda", "sycl"):
        status, out, err = starc(capsys, program, "-b", backend, "--emit", "code")
        assert status == 0, err
    status, out, err = starc(capsys, "run", program, "-b", "reference", "--graph",
                             graphs / "w.el")
    assert status == 0, err
    assert f"q 0 {expected}\n" in out


def test_no_traceback_from_a_subprocess_either(tmp_path):
    (tmp_path / "huge.el").write_text("0 99999999999\n")
    status, out, err = run_cli("graph", "info", tmp_path / "huge.el")
    assert status == 1 and "Traceback" not in err and len(err.splitlines()) == 1


def _all_parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _all_parsers(child)


def test_no_parser_matches_option_prefixes(capsys, graphs):
    from starc.cli import build_parser
    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) > 10 and not [p.prog for p in parsers if p.allow_abbrev]
    status, _, err = starc(capsys, "graph", "info", graphs / "w.el", "--undir")
    assert status == 2 and "unrecognized arguments: --undir" in err
    status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph", graphs / "w.el",
                           "--src", "0", "--no-c")
    assert status == 2 and "--no-c needs a value" in err     # a parameter, not --no-cache


def test_emit_plan_with_the_reference_backend(capsys):
    # Found by the CLI fuzzer: an internal error (the reference executor has no plan stage).
    status, out, err = starc(capsys, SSSP, "-b", "reference", "--emit", "plan")
    assert status == 0, err
    assert out == starc(capsys, SSSP, "--emit", "plan")[1] != ""


@pytest.mark.parametrize("command", ["run", "convert"])
def test_output_onto_a_fifo_writes_in_place_never_replaces_it(capsys, graphs, command):
    # An atomic rename onto /dev/null (as root) would replace the device for the whole
    # machine; a FIFO in the test directory stands in for it.
    import os
    import stat
    import threading
    fifo = graphs / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    if command == "run":
        status, _, err = starc(capsys, "run", SSSP, "-b", "reference", "--graph",
                               graphs / "w.el", "--src", "0", "--out", fifo)
    else:
        status, _, err = starc(capsys, "graph", "convert", graphs / "w.el", fifo)
    reader.join(30)
    assert status == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert ("dist 2 7\n" if command == "run" else "\n1 2 4\n") in got[0]
    assert tree(graphs) == sorted(["fifo"] + [name for name in tree(graphs) if name != "fifo"])


def test_a_construct_no_device_backend_runs_names_the_backend_and_the_one_that_can(
        capsys, tmp_path):
    """Issue 13: what `check` accepts but a backend cannot express fails with a located
    message that names that backend (and says the reference runs it)."""
    program = tmp_path / "setn.sp"
    program.write_text("function F(Graph g, propNode<int> a, SetN<g> s) {\n"
                       "    forall (v in g.nodes()) {\n"
                       "        for (x in s) {\n            v.a = v.a + x;\n        }\n"
                       "    }\n}\n")
    assert starc(capsys, "check", program)[0] == 0
    status, _, err = starc(capsys, program, "-b", "sycl", "-o", tmp_path / "out")
    assert status == 1
    assert f"{program}:3:9: error[E0501]: iterating a SetN inside a forall" in err
    assert "help: '-b sycl' cannot run this program; '-b reference' can" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("option, value, wanted", [
    ("--mpi-compiler", "'mpicxx", "expects a command quoted as in a shell"),
    ("--openacc-compiler", "", "expects a command, got an empty value"),
])
def test_compiler_command_that_is_no_command_line(option, value, wanted, capsys, tmp_path):
    """An unclosed quote once ended in 'internal error: ValueError' (exit 3)."""
    backend = option.split("-")[2]
    out = tmp_path / "out"
    assert main(["build", str(ROOT / "dsl" / "bfs.sp"), "-b", backend, option, value,
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert wanted in err and "Traceback" not in err and "internal error" not in err
    assert not out.exists()


def test_a_reference_run_time_error_is_the_specifications_one_line(capsys, graphs, tmp_path):
    """LANGUAGE.md: a program stops with 'FILE:LINE:COL: runtime error: MESSAGE', exit status 1
    and no results, as every generated program prints it: the location once, no catalogue
    code (E0602 is a bad input file's)."""
    program = tmp_path / "div.sp"
    program.write_text("function f(Graph g, propNode<int> q, int d) {\n"
                       "    forall (v in g.nodes()) {\n"
                       "        v.q = 7 / d;\n"
                       "    }\n"
                       "}\n")
    out = tmp_path / "res.txt"
    status, stdout, err = starc(capsys, "run", program, "-b", "reference", "--graph",
                                graphs / "w.el", "--d", "0", "--out", out)
    assert (status, stdout) == (1, "")
    assert err == f"{program}:3:15: runtime error: integer division by zero\n"
    assert not out.exists()


def run_with_stdout_closed(*args):
    """Run `python -m starc` with its stdout a pipe whose reader has already left (as
    `starc ... | head` ends); returns (status, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "starc", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(), err


@pytest.mark.parametrize("backend", [
    "reference",
    pytest.param("opencl", marks=pytest.mark.opencl),
    pytest.param("mpi", marks=pytest.mark.mpi),        # mpirun crashed writing to the pipe
])
def test_a_reader_that_leaves_early_stops_a_run_quietly(backend, graph):
    status, err = run_with_stdout_closed("run", ROOT / "dsl" / "bfs.sp", "-b", backend,
                                         "--graph", graph, "--src", "0")
    assert (status, err) == (141, "")      # 128 + SIGPIPE, as a shell reports `| head`


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full device here")
@pytest.mark.parametrize("args", [
    ("compile", "{dsl}/bc.sp", "-b", "sycl", "--emit", "code"),
    ("run", "{dsl}/bfs.sp", "-b", "reference", "--graph", "{graph}", "--src", "0"),
    ("--help",),            # argparse swallows a failed write of its own: status 0, no word
    ("graph", "gen", "--help"),
    # starc passes the ranks' output on, and stops the launcher when it cannot
    pytest.param(("run", "{dsl}/bfs.sp", "-b", "mpi", "--graph", "{graph}", "--src", "0"),
                 marks=pytest.mark.mpi),
])
def test_a_full_disk_under_stdout_is_reported_not_an_internal_error(args, graph):
    args = [a.format(dsl=ROOT / "dsl", graph=graph) for a in args]
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "starc", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert (proc.returncode, proc.stderr) == (
        2, "starc: error[E0601]: cannot write to stdout: No space left on device\n")


@pytest.mark.parametrize("args", [("compile", ROOT / "dsl" / "bc.sp", "-b", "sycl",
                                   "--emit", "code"),
                                  ("explain", ROOT / "dsl" / "bc.sp")])
def test_a_reader_that_leaves_early_is_no_internal_error(args):
    status, err = run_with_stdout_closed(*args)
    assert (status, err) == (141, "")


def run_cli_umask(*args, cwd=None, umask=0o022):
    """run_cli under ``umask`` (what a user's shell sets)."""
    proc = subprocess.run([sys.executable, "-m", "starc", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, preexec_fn=lambda: os.umask(umask))
    return proc.returncode, proc.stdout, proc.stderr


def test_outputs_get_the_modes_open_and_mkdir_give_under_the_umask(tmp_path):
    """Files and folders others must read (a cluster's hosts: README, MPI) are not private."""
    graph, updates, folder = tmp_path / "g.el", tmp_path / "u.txt", tmp_path / "bc_sycl"
    assert run_cli_umask("graph", "gen", "rmat", "--scale", "4", "-o", graph)[0] == 0
    assert run_cli_umask("graph", "convert", graph, tmp_path / "g.sg")[0] == 0
    assert run_cli_umask("graph", "gen", "updates", "--graph", graph, "--count", "4",
                         "-o", updates)[0] == 0
    assert run_cli_umask(ROOT / "dsl" / "bc.sp", "-b", "sycl", "-o", folder)[0] == 0
    modes = {path.name: path.stat().st_mode & 0o777
             for path in (graph, tmp_path / "g.sg", updates, folder, folder / "bc.cpp")}
    assert modes == {"g.el": 0o644, "g.sg": 0o644, "u.txt": 0o644, "bc_sycl": 0o755,
                     "bc.cpp": 0o644}


@pytest.mark.openacc
def test_a_failed_build_into_an_existing_folder_leaves_it_as_it_was(tmp_path):
    """Not the new sources beside the old executable: the folder keeps the program that
    built until a new one does."""
    folder = tmp_path / "oa"
    assert run_cli("build", ROOT / "dsl" / "bfs.sp", "-b", "openacc", "-o", folder)[0] == 0
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    changed = tmp_path / "bfs.sp"
    changed.write_text((ROOT / "dsl" / "bfs.sp").read_text().replace("level = -1", "level = -2"))
    status, _, err = run_cli("build", changed, "-b", "openacc", "--openacc-compiler", "false",
                             "-o", folder)
    assert status == 1 and "error[E0502]" in err
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before
    assert run_cli("build", changed, "-b", "openacc", "-o", folder)[0] == 0
    after = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert after["bfs.cpp"] != before["bfs.cpp"] and "-2" in after["bfs.cpp"].decode()
    assert sorted(after) == sorted(before)       # replaced in place, no staging folder left


@pytest.mark.parametrize("args", [
    ("compare", "{dsl}/tc.sp", "-o", "{out}"),
    ("graph", "gen", "rmat", "--scale", "3", "-o", "{out}"),
    ("run", "{dsl}/bfs.sp", "-b", "reference", "--graph", "{graph}", "--src", "0", "--out",
     "{out}"),
])
def test_a_file_path_with_a_trailing_slash_names_a_directory_not_the_file(args, graph,
                                                                          tmp_path):
    """As the generated programs word it; pathlib would drop the slash and write 'out'."""
    out = f"{tmp_path}/out/"
    args = [a.format(dsl=ROOT / "dsl", graph=graph, out=out) for a in args]
    status, _, err = run_cli(*args)
    assert (status, err) == (2, f"starc: error[E0601]: cannot write '{out}': directory "
                                f"'{tmp_path}/out' does not exist\n")
    assert not (tmp_path / "out").exists()


def _run_with_graph_streams(args, text):
    """run_cli with ``text`` on stdin and on a pipe the command line names as {fd}."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    try:
        args = [str(a).format(fd=f"/dev/fd/{read}") for a in args]
        proc = subprocess.run([sys.executable, "-m", "starc", *args], input=text,
                              capture_output=True, text=True, pass_fds=(read,))
    finally:
        os.close(read)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.opencl
@pytest.mark.parametrize("graph", ["/dev/stdin", "{fd}"])
def test_a_graph_streamed_to_a_program_reaches_it_as_it_reaches_the_reference(graph):
    """`cat g.el | starc run ... --graph /dev/stdin`, `--graph <(zcat g.el.gz)`: the program
    got an empty stdin and a closed descriptor ('has no vertices', 'cannot open')."""
    text = "0 1 4\n1 2 1\n"
    outputs = []
    for backend in ("reference", "opencl"):
        status, out, err = _run_with_graph_streams(
            ["run", ROOT / "dsl" / "sssp.sp", "-b", backend, "--graph", graph, "--src", "0"],
            text)
        assert status == 0, err
        outputs.append(out.splitlines()[1:])
    assert outputs[0] == outputs[1] == ["dist 0 0", "dist 1 4", "dist 2 5"]


@pytest.mark.mpi
def test_mpi_refuses_a_streamed_graph_up_front():
    status, _, err = _run_with_graph_streams(
        ["run", ROOT / "dsl" / "sssp.sp", "-b", "mpi", "--graph", "/dev/stdin", "--src", "0"],
        "0 1 4\n1 2 1\n")
    assert (status, err) == (2, "starc: error[E0601]: --graph /dev/stdin: MPI ranks each read "
                                "their own part of the graph file, so it must be a regular file, "
                                "not a stream or a device; save it to a file first\n")


def test_the_run_option_names_a_parameter_may_not_have_are_starc_runs_options():
    """runcontract.RUN_OPTION_NAMES: every option of `starc run` spelt like an identifier,
    and the generated programs' --device."""
    from starc.cli_parser import build_parser
    from starc.runcontract import RUN_OPTION_NAMES
    spelt = {option[2:] for option in build_parser().run_options
             if option.startswith("--") and option[2:].isidentifier()}
    assert RUN_OPTION_NAMES == spelt | {"device"}


def test_a_function_chosen_with_function_is_checked_for_run_option_names(tmp_path):
    program = tmp_path / "two.sp"
    program.write_text("function Helper(Graph g, int trials) { }\n"
                       "function Main(Graph g) {\n    Helper(g, 3);\n}\n")
    assert run_cli("check", program)[0] == 0          # Main runs by default
    status, _, err = run_cli(program, "-b", "opencl", "--function", "Helper", "--emit", "code")
    assert status == 1 and err.startswith(f"{program}:1:26: error[E0414]: parameter 'trials'")


def test_an_option_that_cannot_apply_is_warned_about_not_silently_dropped(tmp_path):
    """--gpu-arch builds CUDA only; --undirected and --warp-width shape explain's model on a
    graph only: given where they change nothing, each is a warning (and the command still
    does its work)."""
    status, out, err = run_cli("compile", ROOT / "dsl" / "bfs.sp", "-b", "opencl",
                               "--gpu-arch", "sm_80", "-o", tmp_path / "out")
    assert status == 0 and (tmp_path / "out" / "bfs.cl").exists()
    assert err.splitlines()[0] == ("starc: warning: --gpu-arch is an option of the cuda "
                                   "backend; ignored for opencl")
    status, out, err = run_cli("compile", ROOT / "dsl" / "bfs.sp", "-b", "cuda",
                               "--gpu-arch", "sm_80", "-o", tmp_path / "cuda")
    assert status == 0 and "warning" not in err
    status, out, err = run_cli("explain", ROOT / "dsl" / "bfs.sp", "-b", "opencl",
                               "--undirected", "--warp-width", "64")
    assert status == 0 and "iterateInBFS" in out
    assert err.splitlines() == [
        "starc: warning: --undirected applies to the model on a graph; ignored without --graph",
        "starc: warning: --warp-width applies to the model on a graph; ignored without --graph"]


def test_a_schedule_that_does_not_apply_is_a_located_warning(capsys, tmp_path):
    """--schedule binned on cc's push loops (binned shares a pull's fold or a search) and
    edges on pr's pull (one item per edge needs a push): each forall with a neighbour loop it
    cannot schedule gets one warning at its line, with why, and keeps one item per vertex;
    -W no-schedule silences it. (cc kept as rounds, tests/label_rounds.py: its union-find's
    link loop takes every schedule.)"""
    cc = write_cc_in_rounds(tmp_path)
    status, _, err = starc(capsys, cc, "-b", "opencl", "--schedule", "binned", "--emit", "plan")
    assert status == 0
    warnings = [line for line in err.splitlines() if "warning[schedule]" in line]
    assert warnings == [f"{cc}:12:9: warning[schedule]: --schedule binned does not apply to "
                        "this forall: its loops only push (one work item per edge: --schedule "
                        "edges): one work item per vertex"]
    status, _, err = starc(capsys, ROOT / "dsl" / "pr.sp", "-b", "cuda", "--schedule", "edges",
                           "--emit", "plan")
    assert status == 0 and err.count("warning[schedule]") == 1 and "pr.sp:13:9" in err
    status, _, err = starc(capsys, cc, "-b", "opencl", "--schedule", "binned", "-W",
                           "no-schedule", "--emit", "plan")
    assert status == 0 and "warning" not in err
    # where it applies, or auto: nothing
    status, _, err = starc(capsys, cc, "-b", "opencl", "--schedule", "edges", "--emit", "plan")
    assert status == 0 and "warning" not in err
