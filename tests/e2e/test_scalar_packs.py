"""Scalars one launch carries back (a ``long`` sum and an ``int`` Max) read with one copy."""

from __future__ import annotations

import functools
import pathlib
import re

import pytest

import starc
from starc.graphs import load_graph
from starc.results import compare_results

from test_group_combining import hub_files  # noqa: F401

REACH_SUM = pathlib.Path(__file__).resolve().parent / "programs" / "frontier_reach_sum.sp"

#: the device backends that run on this machine's CPUs (CUDA: nvcc builds only)
BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
            pytest.param("sycl", marks=pytest.mark.sycl),
            pytest.param("openacc", marks=pytest.mark.openacc)]


@functools.lru_cache(maxsize=None)
def _compiled(backend: str):
    return starc.compile(str(REACH_SUM), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sum_and_max_of_a_round_come_back_in_one_copy(backend, hub_files):  # noqa: F811
    compiled = _compiled(backend)
    generated = compiled.compilation.generated
    text = generated.files[generated.main]
    # after the kernel of a dense round and after that of a sparse one: one copy of the
    # two-slot block (OpenACC: ``update self`` of the block; the others: into its host
    # staging), then each slot into its own host scalar
    assert len(re.findall(r"h_scalars\.data\(\), d_scalars\b|update self\(d_scalars\[",
                          text)) == 2
    assert re.findall(r"std::memcpy\(&(\w+), h_scalars\.data\(\)", text) == [
        "total", "deepest"] * 2
    if not compiled.backend.availability().can_run:
        pytest.skip(f"{backend} cannot run here: {compiled.backend.availability().detail}")
    for weighted in (False, True):      # two hub graphs: rounds of 1 and of 300 vertices
        path = hub_files[weighted]
        expected = starc.compile(str(REACH_SUM), "reference").run(path, src="0")
        assert expected.ret is not None and int(expected.ret) > 100000
        assert load_graph(str(path)).num_nodes > 300
        actual = compiled.run(path, src="0")
        problems = compare_results(expected, actual)
        assert not problems, f"{backend} on {path.name}:\n" + "\n".join(problems)
