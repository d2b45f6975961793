"""The runtime's entry points compiled once (runtime_object.py, starc_entry.hpp): a program built
against them behaves as the same program built whole from its build hint, the object is compiled
once per compiler and flags, and a toolchain that cannot compile it builds programs whole."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

from starc import runner, toolchains
from starc.backends.base import BackendOptions
from starc.backends.common.runtime_object import SEPARATE, RuntimeEntries
from starc.backends.opencl import toolchain as opencl_toolchain
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file

ROOT = pathlib.Path(__file__).resolve().parents[3]
GRAPH = "0 1 4\n1 2 1\n0 2 9\n2 3 2\n"

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not found")


def _compiles(monkeypatch):
    """The compiler commands run from now on (they still run)."""
    commands = []
    real = toolchains.run_compiler

    def recording(argv, cwd=None, timeout=900):
        commands.append([str(a) for a in argv])
        return real(argv, cwd=cwd, timeout=timeout)
    monkeypatch.setattr(toolchains, "run_compiler", recording)
    return commands


def test_link_puts_the_object_after_the_source_and_before_the_libraries(monkeypatch, tmp_path):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path))
    commands = _compiles(monkeypatch)
    argv = ["g++", "-std=c++17", "-O2", "-o", "prog", "prog.cpp", "-lm"]
    linked = RuntimeEntries().link(argv)
    built = next(tmp_path.glob("runtime-*/starc_runtime.o"))
    assert linked == ["g++", "-std=c++17", "-O2", SEPARATE, "-o", "prog", "prog.cpp",
                      str(built), "-lm"]
    # compiled with the program's compiler and flags, without its output, source and libraries
    assert commands == [["g++", "-std=c++17", "-O2", "-c", "-o", "starc_runtime.o",
                         "starc_runtime.cpp"]]
    # once: the next program with the same compiler and flags reuses it
    assert RuntimeEntries().link(argv) == linked and len(commands) == 1
    # other flags, another object
    RuntimeEntries().link(["g++", "-std=c++17", "-O1", "-o", "prog", "prog.cpp"])
    assert len(commands) == 2 and len(list(tmp_path.glob("runtime-*/starc_runtime.o"))) == 2


def test_a_compiler_that_cannot_build_the_entries_builds_programs_whole(monkeypatch, tmp_path):
    monkeypatch.setenv("STARC_CACHE_DIR", str(tmp_path))
    argv = ["g++", "-std=c++17", "-no-such-flag", "-o", "prog", "prog.cpp"]
    assert RuntimeEntries().link(argv) == argv
    assert not list(tmp_path.glob("runtime-*"))     # nothing half-built is left


@pytest.mark.opencl
def test_a_program_built_on_the_object_is_the_program_its_build_hint_builds(tmp_path):
    graph = tmp_path / "g.el"
    graph.write_text(GRAPH)
    sink = DiagnosticSink()
    comp = compile_file(str(ROOT / "dsl" / "sssp.sp"), sink, backend="opencl",
                        options=BackendOptions())
    built = runner.build(comp, sink, BackendOptions())
    assert built is not None, [d.header() for d in sink.diagnostics]
    # starc's build linked the compiled entries ...
    cache = pathlib.Path(built.argv_prefix[0]).parent.parent
    assert list(cache.glob("runtime-*/starc_runtime.o"))
    # ... and the build hint, one command on the headers alone, builds the same program
    whole = tmp_path / "whole"
    comp.generated.write(whole)
    hint = opencl_toolchain.build_command("sssp")
    assert SEPARATE not in hint
    subprocess.run(hint, cwd=whole, check=True, capture_output=True)
    for args in ([str(graph), "--src", "0"], [str(graph), "--src", "9"],
                 [str(graph), "--sorce", "0"], [str(tmp_path / "missing.el"), "--src", "0"],
                 ["--help"]):
        separate = subprocess.run(built.argv_prefix + args, capture_output=True, text=True)
        alone = subprocess.run([str(whole / "sssp"), *args], capture_output=True, text=True)
        assert (separate.returncode, separate.stdout, separate.stderr) == \
               (alone.returncode, alone.stdout, alone.stderr), args
