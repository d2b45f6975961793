"""OpenACC programs built with the warnings-as-errors flags and run (g++ -fopenacc runs the
compute regions on the host): reductions of every operator, the toolchain choice."""

from __future__ import annotations

import functools
import pathlib
import sys

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.openacc import toolchain
from starc.backends.openacc.emitter import OpenACCBackend
from starc.results import compare_results

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "e2e"))
from e2e_cases import write_graph_files  # noqa: E402

pytestmark = pytest.mark.openacc

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


@functools.lru_cache(maxsize=None)
def compiled(name: str, backend: str):
    return starc.compile(str(PROGRAMS / f"{name}.sp"), backend)


@pytest.mark.parametrize("graph", ["rmat", "self_loops_dups", "one_vertex", "cycle3"])
def test_every_reduction_operator_matches_the_reference(graph, graph_files):
    expected = compiled("reductions", "reference").run(graph_files[graph])
    actual = compiled("reductions", "openacc").run(graph_files[graph])
    assert expected.ret is not None
    assert not compare_results(expected, actual, rtol=1e-6)


def test_reductions_are_clauses_combined_once():
    text = compiled("reductions", "openacc").compilation.generated.files["reductions.cpp"]
    for clause in ("reduction(+:s_sum)", "reduction(+:d_sum)", "reduction(&:a_reduced)",
                   "reduction(|:o_reduced)", "reduction(min:mn_reduced)",
                   "reduction(max:mx_reduced)", "reduction(*:p_reduced)"):
        assert clause in text
    assert text.count("#pragma acc parallel num_gangs(1) present(") == 1


def test_compiler_choice_and_build_lines(monkeypatch):
    assert toolchain.build_command("bc") == [
        "g++", "-fopenacc", "-O2", "-std=c++17", "-fwrapv", "-o", "bc", "bc.cpp"]
    assert toolchain.build_command("bc", "nvc++", strict=True) == [
        "nvc++", "-acc", "-O2", "-std=c++17", "-Werror", "-o", "bc", "bc.cpp"]
    assert toolchain.find("no-such-openacc-compiler") == []
    assert OpenACCBackend().availability().can_build


def test_a_missing_compiler_is_a_clear_error(tmp_path):
    from starc.backends.base import BackendError
    generated = compiled("reductions", "openacc").compilation.generated
    options = BackendOptions(extra={"openacc_compiler": "no-such-openacc-compiler"})
    with pytest.raises(BackendError, match="no OpenACC compiler .'no-such-openacc-compiler'."):
        OpenACCBackend().build(generated, tmp_path, options)


def test_other_backends_device_options_are_usage_errors(graph_files):
    import subprocess
    from starc.diagnostics import DiagnosticSink
    from starc.runner import build
    sink = DiagnosticSink()
    built = build(compiled("reductions", "openacc").compilation, sink, BackendOptions())
    assert built is not None, [str(d) for d in sink.diagnostics]
    argv = list(built.argv_prefix) + [str(graph_files["rmat"])]
    for option in (["--block-size", "64"], ["--device", "gpu"]):
        proc = subprocess.run(argv + option, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert f"unknown option '{option[0]}'" in proc.stderr


DSL = pathlib.Path(__file__).resolve().parents[3] / "dsl"


@pytest.mark.skipif(not toolchain.nvptx_offload("g++")[0],
                    reason=f"g++ {toolchain.nvptx_offload('g++')[1]}")
@pytest.mark.parametrize("path", sorted(DSL.glob("*.sp")), ids=lambda p: p.stem)
def test_every_dsl_program_compiles_for_nvptx_offloading(path, tmp_path):
    """The compile tier for GPUs: g++ builds the device code of every region too, as PTX for
    the ISA the build names, with no warning (the linker's included)."""
    import subprocess
    generated = starc.compile(str(path), "openacc").compilation.generated
    generated.write(tmp_path)
    program = pathlib.Path(generated.main).stem
    argv = toolchain.build_command(program, "g++", strict=True, target="nvptx")
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr == ""
    assert f".target {toolchain.NVPTX_ISA}".encode() in (tmp_path / program).read_bytes()


@pytest.mark.skipif(not toolchain.nvptx_offload("g++")[0],
                    reason=f"g++ {toolchain.nvptx_offload('g++')[1]}")
def test_gang_queues_are_in_gpu_shared_memory(tmp_path):
    """sssp's appends are staged per gang (``QueueAppend.form`` ``gang``): built for nvptx,
    GCC places the gang-private queues and counts (``private(...)`` on the gang loop) in the
    GPU's shared memory and the vector lanes take their slots by shared-memory atomics."""
    import subprocess
    generated = starc.compile(str(DSL / "sssp.sp"), "openacc").compilation.generated
    generated.write(tmp_path)
    argv = toolchain.build_command("sssp", "g++", strict=True, target="nvptx")
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ptx = (tmp_path / "sssp").read_bytes()
    assert b".shared .align" in ptx and b"__gang_private_shared" in ptx
    assert b"atom.shared.add.u32" in ptx
