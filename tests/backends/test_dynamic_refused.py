"""What no device backend lowers of a dynamic-graph program (issue 31: ``g.propagateNodeFlags``,
a loop over a whole stream) is a located E0501 at its line on each, writing nothing (what MPI
alone refuses: tests/e2e/test_mpi_dynamic.py)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "sema" / "samples" / "dynamic.sp"


def _starc(*args):
    proc = subprocess.run([sys.executable, "-m", "starc", *map(str, args)],
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("backend", ["opencl", "cuda", "sycl", "openacc", "mpi"])
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
