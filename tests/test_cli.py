"""The command line: commands, exit statuses, diagnostics format, no tracebacks."""

from __future__ import annotations

import glob
import pathlib
import subprocess
import sys

import pytest

from starc.cli import main

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


def test_internal_error_is_a_diagnostic(monkeypatch, capsys):
    """An unexpected exception in a stage becomes E0901 with a location, not a traceback."""
    import starc.ir.sema as sema

    def broken(program, sink):
        node = program.functions[0]          # the construct the failure is reported at
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(sema, "analyze", broken)
    status = main(["check", str(ROOT / "dsl" / "bfs.sp")])
    err = capsys.readouterr().err
    assert status == 1
    assert "error[E0901]: internal compiler error in sema while processing Function" in err
    assert "bfs.sp:" in err and "Traceback" not in err


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
