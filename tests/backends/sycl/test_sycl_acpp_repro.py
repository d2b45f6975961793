"""bench/acpp_local_bound_repro.cpp, the kernel AdaptiveCpp's CPU target miscompiles, is right SYCL:
built against the test double (work-groups as fibers, a barrier every item must reach), it counts
each of its 1000 steps once."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from hostbuild import GXX, STRICT_FLAGS, TEST_DOUBLE

REPRO = pathlib.Path(__file__).resolve().parents[3] / "bench" / "acpp_local_bound_repro.cpp"


@pytest.mark.skipif(GXX is None, reason="g++ not found")
def test_repro_kernel_counts_every_step_on_the_test_double(tmp_path):
    program = tmp_path / "repro"
    subprocess.run([GXX, *STRICT_FLAGS, "-I", str(TEST_DOUBLE), str(REPRO), "-o", str(program)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "counted 1000 of 1000 steps"
