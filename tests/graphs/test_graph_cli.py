"""The ``starc graph`` subcommands through ``starc.graphs.cli.main``."""

import argparse

import pytest

from starc.graphs import load_graph
from starc.graphs.cli import add_graph_subparser, main, run_graph_command


def test_gen_rmat_then_info(tmp_path, capsys):
    path = str(tmp_path / "g.el")
    assert main(["graph", "gen", "rmat", "--scale", "6", "--edge-factor", "4", "--weights",
                 "--seed", "1", "-o", path]) == 0
    graph = load_graph(path)
    assert graph.num_edges == 256 and graph.weights_integral
    capsys.readouterr()
    assert main(["graph", "info", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "edges: 256" in out and "vertices: 64" in out
    assert any(line.startswith("weights: integer (min ") for line in out)
    for label in ("self-loops: ", "duplicate edges: ", "isolated vertices: ",
                  "out-degree: min ", "in-degree: max "):
        assert any(line.startswith(label) for line in out), label


@pytest.mark.parametrize("extension", ["el", "txt", "mtx", "npz"])
def test_gen_formats_by_extension(tmp_path, extension):
    path = str(tmp_path / f"g.{extension}")
    assert main(["graph", "gen", "grid", "--rows", "4", "--cols", "5", "-o", path]) == 0
    assert load_graph(path).num_edges == 2 * (4 * 4 + 5 * 3)


def test_gen_uniform_and_convert_undirected(tmp_path, capsys):
    source, target = str(tmp_path / "u.el"), str(tmp_path / "u.mtx")
    assert main(["gen", "uniform", "--nodes", "50", "--degree", "2", "-o", source]) == 0
    assert main(["graph", "convert", source, target, "--undirected"]) == 0
    assert load_graph(target) == load_graph(source, undirected=True)
    capsys.readouterr()
    assert main(["graph", "info", source, "--undirected"]) == 0
    assert "(undirected)" in capsys.readouterr().out


def test_bad_input_reports_e0602_without_traceback(tmp_path, capsys):
    path = tmp_path / "bad.el"
    path.write_text("0 1\n1 x\n")
    assert main(["graph", "info", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == f"starc: error[E0602]: {path}:2: target id 'x' is not an integer\n"


def test_missing_input_and_unwritable_output(tmp_path, capsys):
    assert main(["graph", "convert", str(tmp_path / "none.el"), str(tmp_path / "o.el")]) == 1
    assert "cannot open" in capsys.readouterr().err
    out = str(tmp_path / "no" / "dir" / "g.el")
    # An output path that cannot be written is a command-line error: status 2.
    assert main(["graph", "gen", "grid", "--rows", "2", "--cols", "2", "-o", out]) == 2
    assert capsys.readouterr().err == (f"starc: error[E0601]: cannot write '{out}': directory "
                                       f"'{tmp_path / 'no' / 'dir'}' does not exist\n")
    assert not (tmp_path / "no").exists()


def test_bad_generator_argument_is_e0601(tmp_path, capsys):
    out = str(tmp_path / "g.el")
    assert main(["graph", "gen", "rmat", "--scale", "-1", "-o", out]) == 2
    assert capsys.readouterr().err.startswith("starc: error[E0601]: --scale must be")
    assert main(["graph", "gen", "rmat", "--scale", "3", "-a", "0.9", "-b", "0.9", "-o", out]) == 2
    assert capsys.readouterr().err.startswith("starc: error[E0601]: R-MAT probabilities must")
    assert not (tmp_path / "g.el").exists()


@pytest.mark.parametrize("argv, message", [
    (["rmat", "--scale", "-1"], "--scale must be in 0..40, got -1"),
    (["rmat", "--scale", "41"], "--scale must be in 0..40, got 41"),
    (["rmat", "--scale", "3", "--edge-factor", "-2"], "--edge-factor must be >= 0, got -2"),
    (["rmat", "--scale", "3", "--seed", "-1"], "--seed must be >= 0, got -1"),
    (["rmat", "--scale", "3", "-a", "nan"], "-a must be a finite number >= 0, got nan"),
    (["uniform", "--nodes", "-3", "--degree", "2"], "--nodes must be >= 1, got -3"),
    (["uniform", "--nodes", "0", "--degree", "2"], "--nodes must be >= 1, got 0"),
    (["uniform", "--nodes", "5", "--degree", "inf"],
     "--degree must be a finite number >= 0, got inf"),
    (["grid", "--rows", "2", "--cols", "-1"], "--cols must be >= 1, got -1"),
    (["grid", "--rows", "0", "--cols", "3"], "--rows must be >= 1, got 0"),
    (["grid", "--rows", "3", "--cols", "0"], "--cols must be >= 1, got 0"),
])
def test_a_bad_generator_value_names_the_option_as_typed(tmp_path, capsys, argv, message):
    """Not the generator's Python parameter ('num_nodes', 'avg_degree') nor numpy's words."""
    out = str(tmp_path / "g.el")
    assert main(["graph", "gen", *argv, "-o", out]) == 2
    assert capsys.readouterr().err == f"starc: error[E0601]: {message}\n"
    assert not (tmp_path / "g.el").exists()


def test_a_bad_update_seed_names_the_option(tmp_path, capsys):
    graph = tmp_path / "g.el"
    graph.write_text("0 1\n1 2\n")
    out = str(tmp_path / "u.txt")
    assert main(["graph", "gen", "updates", "--graph", str(graph), "--count", "1",
                 "--seed", "-1", "-o", out]) == 2
    assert capsys.readouterr().err == "starc: error[E0601]: --seed must be >= 0, got -1\n"
    assert not (tmp_path / "u.txt").exists()


@pytest.mark.parametrize("count", ["0", "-2"])
def test_an_update_stream_of_no_updates_is_refused(tmp_path, capsys, count):
    graph = tmp_path / "g.el"
    graph.write_text("0 1\n1 2\n")
    out = str(tmp_path / "u.txt")
    assert main(["graph", "gen", "updates", "--graph", str(graph), "--count", count,
                 "-o", out]) == 2
    assert capsys.readouterr().err == f"starc: error[E0601]: --count must be >= 1, got {count}\n"
    assert not (tmp_path / "u.txt").exists()


def test_usage_error_returns_argparse_status(capsys):
    assert main(["graph", "info"]) == 2
    assert "required" in capsys.readouterr().err


def test_subparser_plugs_into_a_parent_parser(tmp_path):
    parser = argparse.ArgumentParser(prog="starc")
    add_graph_subparser(parser.add_subparsers(dest="command"))
    path = str(tmp_path / "g.npz")
    args = parser.parse_args(["graph", "gen", "grid", "--rows", "2", "--cols", "3",
                              "-o", path])
    assert args.func is run_graph_command
    assert run_graph_command(args) == 0 and load_graph(path).num_nodes == 6
