"""Device backends whose capabilities keep no mutable graph yet (MPI) refuse dynamic-graph
programs (issue 31) with a located E0501, writing nothing; the reference executor and the
OpenCL, CUDA, SYCL and OpenACC backends run them (tests/e2e/test_dynamic_programs.py). What no
device backend lowers yet (``g.propagateNodeFlags``, a loop over a whole stream) is an E0501
at its line on those too."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "sema" / "samples" / "dynamic.sp"
REFUSING = {"mpi": "MPI"}



def _starc(*args):
    proc = subprocess.run([sys.executable, "-m", "starc", *map(str, args)],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("backend", sorted(REFUSING))
def test_dynamic_program_is_refused_at_its_update_stream(backend, tmp_path):
    out = tmp_path / "out"
    status, _, err = _starc(SAMPLE, "-b", backend, "-o", out)
    assert status == 1
    assert (f"{SAMPLE}:23:15: error[E0501]: dynamic graphs: the update stream 'stream' (an "
            "'updates<g>' parameter) in the Dynamic function 'Track' is not supported by the "
            f"{REFUSING[backend]} backend yet") in err
    assert "'-b reference' runs it, and so do the opencl, cuda, sycl and openacc backends" in err
    assert "Traceback" not in err and "E0901" not in err
    assert not out.exists()


@pytest.mark.parametrize("backend", sorted(REFUSING))
def test_the_dsl_dynamic_programs_are_refused_before_lowering(backend, tmp_path):
    program = ROOT / "dsl" / "dynamic" / "dyn_sssp.sp"
    status, _, err = _starc(program, "-b", backend, "-o", tmp_path / "out")
    assert status == 1
    assert f"not supported by the {REFUSING[backend]} backend yet" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("backend", ["opencl", "cuda", "sycl", "openacc"])
def test_a_loop_over_a_whole_stream_stops_at_its_line(backend, tmp_path):
    """The sample's Decremental loops over an update variable, not over a batch."""
    status, _, err = _starc(SAMPLE, "-b", backend, "-o", tmp_path / "out")
    assert status == 1
    assert (f"{SAMPLE}:16:5: error[E0501]: a loop over a whole update stream is not supported "
            "by the device backends: loop over 'currentBatch()' inside its Batch") in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("construct, where, name", [
    ("g.propagateNodeFlags(seen);", (3, 5), "'g.propagateNodeFlags(seen)'"),
])
def test_a_static_function_using_a_dynamic_construct_is_refused_there(construct, where, name,
                                                                      tmp_path):
    program = tmp_path / "p.sp"
    program.write_text("function F(Graph g, propNode<bool> seen, node src) {\n"
                       "    src.seen = True;\n"
                       f"    {construct}\n"
                       "}\n")
    status, _, err = _starc("build", program, "-b", "opencl", "-o", tmp_path / "out")
    assert status == 1
    assert (f"{program}:{where[0]}:{where[1]}: error[E0501]: dynamic graphs: {name} in 'F' "
            "is not supported by the device backends yet") in err
    assert not (tmp_path / "out").exists()
