"""A misspelt option of `starc run` parses as a program parameter (the program's parameters
follow starc's options), so its error says which option was probably meant; matching stays
exact, and a program parameter that only looks like one of starc's still runs."""

from __future__ import annotations

import pathlib

import pytest

from starc.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
SSSP = str(ROOT / "dsl" / "sssp.sp")


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1 5\n1 2 3\n2 3 4\n")
    return str(path)


@pytest.mark.parametrize("typo, message", [
    (["--trails", "2"], "starc: error[E0601]: unknown option '--trails' (Compute_SSSP takes: "
                        "--src); '--trails' is no option of starc run: did you mean '--trials'?"),
    (["--udirected"], "starc: error[E0601]: --udirected needs a value; '--udirected' is no "
                      "option of starc run: did you mean '--undirected'?"),
    (["--no-cahce"], "starc: error[E0601]: --no-cahce needs a value; '--no-cahce' is no option "
                     "of starc run: did you mean '--no-cache'?"),
    (["--Src", "1"], "starc: error[E0601]: unknown option '--Src' (Compute_SSSP takes: --src); "
                     "did you mean '--src'?"),
    # an abbreviation of exactly one option (matching stays exact: it is still an error)
    (["--undir"], "starc: error[E0601]: --undir needs a value; '--undir' is no option of "
                  "starc run: did you mean '--undirected'?"),
])
def test_a_misspelt_option_names_the_one_meant(capsys, graph, typo, message):
    args = ["--src", "0"] if typo[0] != "--Src" else []
    assert main(["run", SSSP, "-b", "reference", "--graph", graph, *args, *typo]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [message]


@pytest.mark.parametrize("typo", ["--grpah", "--gr"])
def test_a_misspelt_required_option_names_the_one_meant(capsys, graph, typo):
    assert main(["run", SSSP, "-b", "reference", typo, graph, "--src", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "starc run: error: the following arguments are required: --graph"
    assert err[-1] == f"'{typo}' is no option of starc run: did you mean '--graph'?"


def test_a_parameter_that_looks_like_an_option_of_starc_run_still_runs(capsys, tmp_path, graph):
    program = tmp_path / "times.sp"
    program.write_text("function F(Graph g, propNode<int> d, int times) {\n"
                       "    forall (v in g.nodes()) { v.d = times; }\n}\n")
    assert main(["run", str(program), "-b", "reference", "--graph", graph, "--times", "3"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["d 0 3", "d 1 3", "d 2 3", "d 3 3"] and err == ""


@pytest.mark.parametrize("word, command", [("chek", "check"), ("complie", "compile"),
                                           ("exlpain", "explain"), ("bakends", "backends"),
                                           ("Run", "run")])
def test_a_misspelt_command_is_named_not_taken_for_the_program_file(word, command, capsys):
    """`starc FILE` is short for `starc compile FILE`: a first word close to a command that is
    no file and no .sp name is the command misspelt (it was: 'unrecognized arguments: FILE')."""
    assert main([word, SSSP]) == 2
    assert capsys.readouterr().err == (f"starc: error: '{word}' is not a command; did you mean "
                                       f"'{command}'? (see 'starc --help')\n")


def test_a_program_file_named_like_a_command_is_still_compiled(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chek").write_text(pathlib.Path(SSSP).read_text())
    assert main(["chek", "--emit", "dsl"]) == 0
    assert "Compute_SSSP" in capsys.readouterr().out
