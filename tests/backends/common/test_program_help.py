"""A generated program's --help lists exactly the options its parser accepts, per backend."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
SSSP = ROOT / "dsl" / "sssp.sp"
TC = ROOT / "dsl" / "tc.sp"

COMMON = {"--undirected": None, "--out": "OUT", "--time": None, "--trials": "2",
          "--max-vertices": "100", "--help": None}
# What each backend's program reads besides the DSL parameters (the independent list: the
# runtime headers' readers), with a value it accepts.
OWN = {"cuda": {"--block-size": "128"},
       "sycl": {"--device": "cpu", "--block-size": "128"},
       "opencl": {"--device": "cpu", "--block-size": "128"},
       "openacc": {},
       "mpi": {"--stats": None}}
MARKS = {b: getattr(pytest.mark, b) for b in OWN}


def build(program: pathlib.Path, backend: str, out: pathlib.Path) -> pathlib.Path:
    env = dict(os.environ, PYTHONPATH=str(ROOT), STARC_CACHE_DIR=str(out / "cache"))
    proc = subprocess.run([sys.executable, "-m", "starc", "build", str(program), "-b", backend,
                           "-o", str(out / "prog")], capture_output=True, text=True, env=env,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out / "prog" / program.stem


def run(exe: pathlib.Path, backend: str, *args):
    command = [str(exe), *map(str, args)]
    if backend == "mpi":
        from starc.backends.mpi import toolchain
        command = toolchain.launcher() + command
        command[command.index("-np") + 1] = "1"
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def help_options(text: str) -> set:
    """The options of the help's option lines ("  --name METAVAR   help", "  --help, -h ...")."""
    found = set()
    for line in text.split("options:\n", 1)[1].splitlines():
        words = line.split()
        if line.startswith("  -") and words:
            found.add(words[0].rstrip(","))
            if words[0].endswith(","):
                found.add(words[1])
    return found


@pytest.mark.parametrize("backend", [pytest.param(b, marks=MARKS[b]) for b in OWN])
def test_help_lists_exactly_what_the_parser_accepts(backend, tmp_path):
    exe = build(SSSP, backend, tmp_path)
    help_proc = run(exe, backend, "--help")
    assert help_proc.returncode == 0, help_proc.stderr
    assert ".sg" in help_proc.stdout and ".mtx" in help_proc.stdout
    expected = {**COMMON, "--src": "0", **OWN[backend]}
    assert help_options(help_proc.stdout) == set(expected) | {"-h"}
    # every option listed is accepted (the run succeeds with it), and appears in the synopsis
    synopsis = help_proc.stdout.splitlines()[0]
    graph = tmp_path / "g.el"
    graph.write_text("0 1 4\n1 2 2\n2 0 7\n")
    for option, value in expected.items():
        assert option in re.findall(r"--[-\w]+", synopsis), (option, synopsis)
        if option in ("--help", "--src"):
            continue
        value = tmp_path / "res.txt" if value == "OUT" else value
        args = [graph, "--src", "0", option] + ([] if value is None else [value])
        if value is None:   # a flag without a value refuses one
            bad = run(exe, backend, graph, "--src", "0", f"{option}=1")
            assert bad.returncode == 2 and f"{option} takes no value" in bad.stderr, bad.stderr
        proc = run(exe, backend, *args)
        if backend == "cuda" and proc.returncode == 1 and "no usable CUDA device" in proc.stderr:
            continue    # parsed, then no usable GPU here (status 1: the device is missing)
        assert proc.returncode == 0, (option, proc.stderr)
    # a device flag the help does not list is refused, naming it
    for option in {"--device", "--block-size"} - set(expected):
        proc = run(exe, backend, graph, "--src", "0", option, "1")
        assert proc.returncode == 2 and f"unknown option '{option}'" in proc.stderr, proc.stderr


@pytest.mark.openacc
def test_help_lists_degree_order_where_the_program_renumbers(tmp_path):
    exe = build(TC, "openacc", tmp_path)
    proc = run(exe, "openacc", "--help")
    assert "--degree-order" in help_options(proc.stdout), proc.stdout
    assert "[--degree-order auto|always|never]" in proc.stdout.splitlines()[0]
