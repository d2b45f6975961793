"""Scalars that launches carry back, read with one copy of their block, against the reference."""

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


#: three kernels carry scalars back: (a, b), then (b, c), then c alone; b joins both packs'
#: arrays, so a, b and c share one block (a ``long``, an ``int`` and a ``float`` slot), and
#: the last kernel's one scalar keeps its one-element read of its slot
SHARED = """\
function shared_scalars(Graph g, node src) {
    long a = 0;
    int b = 0;
    float c = 0;
    forall (v in g.nodes()) {
        a += g.count_outNbrs(v);
        b += 1;
    }
    forall (v in g.nodes().filter(v != src)) {
        b += 2;
        c += 0.5;
    }
    forall (v in g.nodes()) {
        c += 1;
    }
    return a * 1000000 + b * 1000 + c;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalars_of_several_launches_share_one_block(backend, hub_files, tmp_path):  # noqa: F811
    source = tmp_path / "shared_scalars.sp"
    source.write_text(SHARED)
    compiled = starc.compile(str(source), backend)
    generated = compiled.compilation.generated
    text = generated.files[generated.main]
    assert len(re.findall(r"h_scalars\.data\(\), d_scalars\b|update self\(d_scalars\[",
                          text)) == 2
    assert re.findall(r"std::memcpy\(&(\w+), h_scalars\.data\(\)", text) == ["a", "b", "b", "c"]
    assert len(re.findall(r"\bstarc_read_element\b", text)) == 1     # c, after the last kernel
    if not compiled.backend.availability().can_run:
        pytest.skip(f"{backend} cannot run here: {compiled.backend.availability().detail}")
    path = hub_files[False]
    expected = starc.compile(str(source), "reference").run(path, src="0")
    problems = compare_results(expected, compiled.run(path, src="0"))
    assert not problems, f"{backend}:\n" + "\n".join(problems)
