"""Programs `starc check` accepts run on every backend with the reference's answer (or are
rejected by `check` with the reason): LANGUAGE.md's rule that nothing accepted may fail in a
backend with an "unsupported" error.

CI time: the host-level rules (compound operators on host scalars and one element, a property
copied onto itself, properties read before any attach) are one program, programs/host_rules.sp,
so each backend builds it once rather than once per rule; every rule's part is still compared
with the reference on every graph, and the last one's values are checked on CHAIN."""

from __future__ import annotations

import pathlib

import pytest

import starc
from starc.results import compare_results

from e2e_cases import build_with_nvcc, write_graph_files

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
DEVICE = [pytest.param("opencl", marks=pytest.mark.opencl),
          pytest.param("sycl", marks=pytest.mark.sycl),
          pytest.param("openacc", marks=pytest.mark.openacc),
          pytest.param("mpi", marks=pytest.mark.mpi)]
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


@pytest.mark.parametrize("backend", DEVICE)
def test_host_level_rules(backend, graph_files):
    """x |= e, b &= (x > 4) on host scalars (a numpy bool passed to a kernel broke OpenCL),
    src.a |= e on one element; 'rank = rank' and 'modified = modified' copy nothing; properties
    read before any attach start at zero (host_rules.sp, parts 1-3)."""
    _same(PROGRAMS / "host_rules.sp", backend, graph_files, src="0")


# 0->1, 1->2, 2->0, 0->2, 2->3: in-degrees 1 1 2 1
CHAIN = "0 1\n1 2\n2 0\n0 2\n2 3\n"


@pytest.mark.parametrize("backend", ["reference"] + DEVICE)
def test_properties_start_at_zero_at_each_declaration(backend, tmp_path):
    """3 rounds: indeg is zeroed each round, acc (attached only under if (False)) and the
    outputs start at zero: out = 3 * indeg + 6 * v (host_rules.sp, part 3; the build is
    test_host_level_rules's, from starc's build cache)."""
    graph = tmp_path / "g.el"
    graph.write_text(CHAIN)
    results = starc.compile(str(PROGRAMS / "host_rules.sp"), backend).run(graph, src="0")
    assert list(results.props["out"]) == [3, 9, 18, 21]
    assert list(results.props["never"]) == [0, 0, 0, 0]
    assert [bool(x) for x in results.props["flag"]] == [False, False, True, False]
    assert list(results.props["rank"]) == [2.5] * 4        # part 2: three rounds, one each


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["sssp_dslV3", "host_rules"])
def test_programs_compile_with_nvcc(name, tmp_path):
    build_with_nvcc(PROGRAMS / f"{name}.sp", tmp_path / "build")
