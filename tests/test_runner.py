"""The compile result carries its backend (issue 28, item 4): ``starc.compile(...).run(...)``,
``starc run`` and ``starc build`` look the backend up in the registry once, and everything after
uses the object the compilation keeps."""

from __future__ import annotations

import pathlib

import pytest

import starc
import starc.backends
from starc.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
SSSP = str(ROOT / "dsl" / "sssp.sp")


@pytest.fixture
def lookups(monkeypatch):
    """The names ``get_backend`` was asked for, in order."""
    asked = []
    real = starc.backends.get_backend

    def counting(name):
        asked.append(name)
        return real(name)
    monkeypatch.setattr(starc.backends, "get_backend", counting)
    return asked


def test_compile_and_run_on_the_reference_look_the_backend_up_once(graph, lookups):
    program = starc.compile(SSSP, "reference")
    assert program.backend is program.compilation.backend
    assert program.backend.name == "reference"
    assert program.run(graph, src=0).props["dist"].tolist() == [0, 4, 5]
    assert lookups == ["reference"]


@pytest.mark.opencl
def test_compile_build_and_run_look_the_backend_up_once(graph, lookups):
    program = starc.compile(SSSP, "opencl")
    assert program.backend is program.compilation.backend
    assert program.compilation.generated.backend == program.backend.name == "opencl"
    assert program.run(graph, src=0).props["dist"].tolist() == [0, 4, 5]
    assert program.run(graph, src=1).props["dist"].tolist()[1:] == [0, 1]     # built once
    assert lookups == ["opencl"]


def test_starc_run_looks_the_backend_up_once(graph, lookups, capfd):
    assert main(["run", SSSP, "-b", "reference", "--graph", graph, "--src", "0"]) == 0
    assert capfd.readouterr().out.splitlines()[1:] == ["dist 0 0", "dist 1 4", "dist 2 5"]
    assert lookups == ["reference"]


@pytest.mark.opencl
def test_starc_build_looks_the_backend_up_once(tmp_path, lookups, capsys):
    assert main(["build", SSSP, "-b", "opencl", "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "sssp").is_file()
    assert capsys.readouterr().out.startswith(f"built opencl program in {tmp_path / 'out'}")
    assert lookups == ["opencl"]


def test_a_program_built_where_it_cannot_run_is_a_coded_error(graph, monkeypatch, capsys,
                                                              tmp_path):
    """CUDA without a GPU builds and stops there: error[E0502] (backend unavailable), as a
    backend that cannot build, not an uncoded 'error:'."""
    from starc.backends.base import Availability, BuiltProgram
    from starc.backends.cuda.emitter import CUDABackend
    import starc.runner
    monkeypatch.setattr(CUDABackend, "availability",
                        lambda self: Availability(True, False, "nvcc found; no GPU"))
    monkeypatch.setattr(starc.runner, "build", lambda comp, sink, options, use_cache=True:
                        BuiltProgram("cuda", "Compute_SSSP", tmp_path, ["false"]))
    assert main(["run", SSSP, "-b", "cuda", "--graph", graph, "--src", "0"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (f"starc: error[E0502]: the cuda program was built in "
                                 f"{tmp_path} but cannot run here: nvcc found; no GPU\n")
