"""--openacc-target: the flags per target, the nvptx offload probe, the tier starc names, builds."""

from __future__ import annotations

import pathlib
import sys

import pytest

import starc
from starc.backends.base import BackendError, BackendOptions
from starc.backends.openacc import toolchain
from starc.cli import main
from starc.diagnostics import DiagnosticSink
from starc.results import compare_results
from starc.runner import build

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "e2e"))
from e2e_cases import write_graph_files  # noqa: E402

pytestmark = pytest.mark.openacc

BFS = pathlib.Path(__file__).resolve().parents[3] / "dsl" / "bfs.sp"
OFFLOADS, WHY_NOT = toolchain.nvptx_offload("g++")
needs_offload = pytest.mark.skipif(not OFFLOADS, reason=f"g++ {WHY_NOT}")
#: what g++'s nvptx offload build leaves in the program: PTX for the ISA the build names
PTX = f".target {toolchain.NVPTX_ISA}".encode()


def _options(target=None) -> BackendOptions:
    return BackendOptions(extra={} if target is None else {"openacc_target": target})


def _built(target=None):
    """The program built (through the build cache) for ``target``: its folder and argv."""
    compilation = starc.compile(str(BFS), "openacc", options=_options(target)).compilation
    sink = DiagnosticSink()
    built = build(compilation, sink, _options(target))
    assert built is not None, [str(d) for d in sink.diagnostics]
    return built


def _offload_missing(monkeypatch):
    monkeypatch.setattr(toolchain, "nvptx_offload",
                        lambda compiler="g++": (False, toolchain.NO_OFFLOAD_COMPILER))


def test_each_target_has_its_flags():
    assert toolchain.build_command("bc", target="host") == [
        "g++", "-fopenacc", "-O2", "-std=c++17", "-fwrapv", "-foffload=disable", "-fopenmp",
        "-o", "bc", "bc.cpp"]
    nvptx = toolchain.build_command("bc", target="nvptx")
    assert nvptx[5:8] == ["-foffload=nvptx-none", "-foffload-options=nvptx-none=-misa=sm_75",
                          "-Wl,-z,notext"]
    assert toolchain.build_command("bc", "nvc++", target="host")[1] == "-acc=host"
    assert toolchain.build_command("bc", "nvc++", target="nvptx")[1] == "-acc=gpu"
    assert toolchain.target_of(_options("nvptx"), "/opt/nvidia/bin/nvc++") == "nvptx"
    assert toolchain.target_of(_options(), "/opt/nvidia/bin/nvc++") is None


@pytest.mark.parametrize("target, first, others", [
    (None, "-foffload=disable", ["-foffload=nvptx-none", "nvc++ -acc -O2"]),
    ("nvptx", "-foffload=nvptx-none", ["nvc++ -acc=gpu -O2"]),
    ("host", "-foffload=disable", ["nvc++ -acc=host -O2"]),
])
def test_the_header_shows_the_builds_of_the_target_asked(target, first, others):
    generated = starc.compile(str(BFS), "openacc", options=_options(target)).compilation.generated
    lines = generated.files[generated.main].splitlines()
    builds = [line for line in lines if line.startswith(("// Build: ", "//    or: "))]
    assert builds[0].startswith("// Build: g++ -fopenacc") and first in builds[0]
    assert generated.build_hint == builds[0][len("// Build: "):]
    assert len(builds) == 1 + len(others)
    assert all(wanted in line for wanted, line in zip(others, builds[1:]))


def test_an_unknown_target_is_a_usage_error(capsys, tmp_path):
    out = tmp_path / "out"
    assert main(["build", str(BFS), "-b", "openacc", "--openacc-target", "gpu",
                 "-o", str(out)]) == 2
    assert "--openacc-target expects host, nvptx or auto, got 'gpu'" in capsys.readouterr().err
    assert not out.exists()


def test_the_probe_says_why_g_plus_plus_cannot_offload(tmp_path):
    """The messages of GCC 12 without the offload package (lto-wrapper), and of a ptxas that
    refuses the ISA, from stand-in compilers."""
    for name, message, why in [
        ("no-package", "lto-wrapper: fatal error: could not find accel/nvptx-none/mkoffload in "
                       "/usr/lib/gcc/x86_64-linux-gnu/12/ (consider using '-B')",
         toolchain.NO_OFFLOAD_COMPILER),
        ("old-ptxas", "ptxas fatal   : Value 'sm_75' is not defined for option 'gpu-name'",
         "fails to build a test loop for nvptx-none (ptxas fatal   : Value 'sm_75' is not "
         "defined for option 'gpu-name')")]:
        compiler = tmp_path / name
        compiler.write_text(f"#!/bin/sh\necho \"{message}\" >&2\nexit 1\n")
        compiler.chmod(0o755)
        assert toolchain.nvptx_offload(str(compiler)) == (False, why)


def test_without_the_offload_compiler_auto_is_the_host(monkeypatch, capsys, tmp_path):
    _offload_missing(monkeypatch)
    assert toolchain.target_of(_options(), "/usr/bin/g++") == "host"
    with pytest.raises(BackendError, match="--openacc-target nvptx: /usr/bin/g\\+\\+ has no "
                                           "nvptx offload compiler .Debian: gcc-12-offload"):
        toolchain.target_of(_options("nvptx"), "/usr/bin/g++")
    assert main(["backends"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("openacc"))
    assert "g++" in row and "-fopenacc: host fallback (one thread), as g++ has no nvptx " \
                           "offload compiler (Debian: gcc-12-offload-nvptx)" in row


@needs_offload
def test_with_the_offload_compiler_starc_names_the_tier(capsys):
    assert main(["backends"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("openacc"))
    assert f"-fopenacc: gcc nvptx offload ({toolchain.NVPTX_ISA})" in row


@needs_offload
def test_every_target_builds_runs_and_has_its_own_cache_entry(monkeypatch, tmp_path):
    """auto is nvptx here: the program carries PTX and, with no GPU, runs on the host; host
    builds none; and auto without the offload compiler is a host build, kept apart."""
    graph = write_graph_files(tmp_path)["rmat"]
    expected = starc.compile(str(BFS), "reference").run(graph, src=1)
    folders = {}
    for target in ("host", "nvptx", None):
        built = _built(target)
        folders[target] = built.directory
        assert (PTX in (built.directory / "bfs").read_bytes()) == (target != "host"), target
        actual = starc.compile(str(BFS), "openacc", options=_options(target)).run(graph, src=1)
        assert not compare_results(expected, actual), target
    _offload_missing(monkeypatch)
    folders["auto, no offload compiler"] = _built().directory
    assert PTX not in (folders["auto, no offload compiler"] / "bfs").read_bytes()
    assert len(set(folders.values())) == len(folders), folders
