"""Programs `starc check` accepts run on every backend with the reference's answer (or are
rejected by `check` with the reason): LANGUAGE.md's rule that nothing accepted may fail in a
backend with an "unsupported" error."""

from __future__ import annotations

import pathlib

import pytest

import starc
from starc.results import compare_results

from e2e_cases import write_graph_files

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
DEVICE = [pytest.param("opencl", marks=pytest.mark.opencl),
          pytest.param("sycl", marks=pytest.mark.sycl)]
GRAPHS = ("rmat", "isolated", "self_loops_dups", "disconnected", "one_vertex")


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    return write_graph_files(tmp_path_factory.mktemp("graphs"))


def _same(path, backend, graph_files, **params):
    ref, dev = starc.compile(str(path), "reference"), starc.compile(str(path), backend)
    for name in GRAPHS:
        expected = ref.run(graph_files[name], **params)
        actual = dev.run(graph_files[name], **params)
        problems = compare_results(expected, actual)
        assert not problems, f"{path.name} on {name} ({backend}):\n" + "\n".join(problems)


@pytest.mark.parametrize("backend", DEVICE)
def test_fixedpoint_with_swapped_convergence_property(backend, graph_files):
    _same(PROGRAMS / "sssp_dslV3.sp", backend, graph_files, src="0")
