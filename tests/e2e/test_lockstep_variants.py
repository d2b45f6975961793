"""OpenCL's and SYCL's kernel variants for lockstep devices end to end
(specialize.lockstep_variants): the auto plan of each dsl program carries, for every kernel
whose schedule on a GPU differs, a variant the host launches there instead;
STARC_OPENCL_LOCKSTEP=1 runs those variants on PoCL (STARC_SYCL_LOCKSTEP=1 on AdaptiveCpp's
CPU device), =0 the CPU forms, both against the reference on graphs whose hubs fill
work-groups."""

from __future__ import annotations

import functools
import os
import subprocess

import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.opencl import toolchain
from starc.graphs import load_graph, write_edge_list
from starc.results import compare_results, parse_results

from e2e_cases import PROGRAMS, hub_graph

#: the dsl programs of issue 29's GPU campaign, each with a kernel whose GPU schedule differs
VARIANT_PROGRAMS = ("pr", "bc", "bfs", "sssp", "cc", "tc")


@functools.lru_cache(maxsize=None)
def _compiled(program: str, backend: str, block_size=None):
    return starc.compile(str(PROGRAMS[program].path), backend,
                         options=BackendOptions(block_size=block_size))


@pytest.fixture(scope="module")
def hub_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hubs")
    files = {False: folder / "hubs.el", True: folder / "weighted_hubs.el"}
    for weighted, path in files.items():
        write_edge_list(hub_graph(weighted=weighted), path)
    return files


def _expected(program: str, path):
    case = PROGRAMS[program]
    params = case.params_for(load_graph(str(path)).num_nodes)
    return _compiled(program, "reference").run(path, undirected=case.undirected, **params)


#: The block size is a build, the lockstep switch a run (CI time): each program is built with
#: one of the two block sizes, each size for three programs, and every build runs both
#: STARC_OPENCL_LOCKSTEP values, so programs x switch and switch x size are covered in full,
#: programs x size not (tc's default build is the one the renumbered-sources test runs too).
VARIANT_BLOCK_SIZES = {"pr": None, "bfs": None, "tc": None, "bc": 8, "sssp": 8, "cc": 8}
assert sorted(VARIANT_BLOCK_SIZES) == sorted(VARIANT_PROGRAMS)


@pytest.mark.opencl
@pytest.mark.parametrize("program", VARIANT_PROGRAMS)
def test_the_variant_of_the_device_kind_matches_the_reference(program, hub_files, monkeypatch):
    """Groups of 256 (the star's centre is heavy) and of 8 (the R-MAT hubs too)."""
    case = PROGRAMS[program]
    block_size = VARIANT_BLOCK_SIZES[program]
    compiled = _compiled(program, "opencl", block_size)
    kernels = compiled.compilation.specialized.kernels
    variants = {k.variant_of: k for k in kernels if k.variant_of}
    assert variants and all(k.lockstep_variant == variants[k.name].name
                            for k in kernels if k.name in variants)
    assert all(variants[k.name].schedule != k.schedule for k in kernels if k.name in variants)
    path = hub_files[case.weighted]
    for lockstep in ("1", "0"):
        monkeypatch.setenv("STARC_OPENCL_LOCKSTEP", lockstep)
        actual = compiled.run(path, undirected=case.undirected,
                              **case.params_for(load_graph(str(path)).num_nodes))
        problems = compare_results(_expected(program, path), actual, rtol=case.rtol,
                                   atol=case.atol)
        assert not problems, (f"{program} (STARC_OPENCL_LOCKSTEP={lockstep}, --block-size "
                              f"{block_size}):\n" + "\n".join(problems))


#: SYCL's variants (no bodies of several loops in its binned kernels: bfs keeps one form)
SYCL_VARIANT_PROGRAMS = ("pr", "bc", "sssp", "cc", "tc")


@pytest.mark.sycl
@pytest.mark.parametrize("program", SYCL_VARIANT_PROGRAMS)
@pytest.mark.parametrize("lockstep", ["1", "0"])
def test_sycl_variants_match_the_reference(program, lockstep, hub_files, monkeypatch):
    """SYCL picks by sycl::device::is_gpu() the same way (STARC_SYCL_LOCKSTEP overrides)."""
    case = PROGRAMS[program]
    compiled = _compiled(program, "sycl")
    kernels = compiled.compilation.specialized.kernels
    assert any(k.variant_of for k in kernels)
    assert "starc_lockstep_device(starc_queue)" in compiled.compilation.generated.files[
        f"{program}.cpp"]
    path = hub_files[case.weighted]
    monkeypatch.setenv("STARC_SYCL_LOCKSTEP", lockstep)
    actual = compiled.run(path, undirected=case.undirected,
                          **case.params_for(load_graph(str(path)).num_nodes))
    problems = compare_results(_expected(program, path), actual, rtol=case.rtol, atol=case.atol)
    assert not problems, f"{program} (sycl, STARC_SYCL_LOCKSTEP={lockstep}):\n" + \
        "\n".join(problems)


def _sabotaged_pr(folder):
    """pr's OpenCL program with its variant for lockstep devices made wrong (it returns at
    once, so no rank is ever written), built."""
    generated = _compiled("pr", "opencl").compilation.generated
    [variant] = [k for k in _compiled("pr", "opencl").compilation.specialized.kernels
                 if k.variant_of]
    for name, text in generated.files.items():
        if name.endswith(".cl"):
            head = f"__kernel void {variant.name}("
            start = text.index("{", text.index(head))
            text = text[:start + 1] + "\n    return;" + text[start + 1:]
        (folder / name).write_text(text)
    return toolchain.compile_program(folder, "pr")


@pytest.mark.opencl
def test_the_device_kind_picks_the_variant(tmp_path, hub_files):
    """The host really launches by the device kind: with the variant broken, the results are
    wrong where it runs (=1) and right where it does not (=0, and PoCL's CPU device left to
    tell); a bad value is a usage error."""
    program = _sabotaged_pr(tmp_path)
    path = hub_files[False]
    case = PROGRAMS["pr"]
    args = [str(program), str(path)] + [a for name, value in case.params
                                        for a in (f"--{name}", value)]
    expected = _expected("pr", path)

    def run(lockstep):      # "": unset, the device's kind decides
        return subprocess.run(args, capture_output=True, text=True,
                              env={**os.environ, "STARC_OPENCL_LOCKSTEP": lockstep})

    for lockstep in ("0", ""):
        done = run(lockstep)
        assert done.returncode == 0, done.stderr
        assert not compare_results(expected, parse_results(done.stdout), rtol=case.rtol,
                                   atol=case.atol)
    done = run("1")
    assert done.returncode == 0, done.stderr
    assert compare_results(expected, parse_results(done.stdout), rtol=case.rtol, atol=case.atol)
    done = run("yes")
    assert done.returncode == 2
    assert "STARC_OPENCL_LOCKSTEP must be 0 or 1, not 'yes'" in done.stderr


@pytest.mark.opencl
@pytest.mark.parametrize("lockstep", ["1", "0"])
def test_the_edges_variant_reads_the_renumbered_sources(lockstep, hub_files, monkeypatch):
    """tc renumbers the graph by degree (--degree-order always): the edges' sources, which
    only its variant for lockstep devices reads, are filled and copied in only there."""
    compiled = _compiled("tc", "opencl")
    text = compiled.compilation.generated.files["tc.cpp"]
    assert "if (starc_lockstep) {\n" in text and "starc::fill_sources(" in text
    monkeypatch.setenv("STARC_OPENCL_LOCKSTEP", lockstep)
    path = hub_files[False]
    actual = compiled.run(path, undirected=True, **{"degree-order": "always"})
    assert not compare_results(_expected("tc", path), actual)
