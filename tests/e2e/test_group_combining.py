"""Issue 29 item 2 on OpenCL (PoCL): scalar reductions folded per work-group by a tree in local
memory before one atomic, worklist appends and counts staged in local memory, one global
atomic per work-group (backends/common/group_end.py); against the reference on graphs with
hubs (``e2e_cases.hub_graph``: the traversals' source, vertex 0, is a star's centre whose round
appends 300 vertices from one work item), in real work-groups (--block-size given, so a CPU
device gets no runs of one item)."""

from __future__ import annotations

import functools
import re
import subprocess

import numpy as np
import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.common.group_end import LOCAL_QUEUE_DEFAULT
from starc.graphs import Graph, load_graph, rmat, write_edge_list
from starc.results import compare_results, parse_results
from starc.runner import _program_argv

from e2e_cases import PROGRAMS, hub_graph

GROUP_PROGRAMS = ("sssp", "cc", "bfs", "pr", "bc", "tc")
GROUP_SIZES = (2, 3, 64, 256)


@pytest.fixture(scope="module")
def hub_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hubs")
    files = {}
    for weighted in (False, True):
        files[weighted] = folder / f"hubs{'_weighted' if weighted else ''}.el"
        write_edge_list(hub_graph(weighted), files[weighted])
    return files


@functools.lru_cache(maxsize=None)
def _compiled(program: str, backend: str, block_size=None):
    options = BackendOptions(block_size=block_size)
    return starc.compile(str(PROGRAMS[program].path), backend, options=options)


def _expected(program: str, path):
    case = PROGRAMS[program]
    params = case.params_for(load_graph(str(path)).num_nodes)
    return _compiled(program, "reference").run(path, undirected=case.undirected, **params)


@pytest.mark.parametrize("block_size", GROUP_SIZES)
@pytest.mark.parametrize("program", GROUP_PROGRAMS)
def test_group_combining_matches_the_reference(program, block_size, hub_files):
    case = PROGRAMS[program]
    path = hub_files[case.weighted]
    compiled = _compiled(program, "opencl", block_size)
    if not compiled.backend.availability().can_run:
        pytest.skip(f"no OpenCL device: {compiled.backend.availability().detail}")
    params = case.params_for(load_graph(str(path)).num_nodes)
    actual = compiled.run(path, undirected=case.undirected, **params)
    problems = compare_results(_expected(program, path), actual, rtol=case.rtol, atol=case.atol)
    assert not problems, f"{program}, --block-size {block_size}:\n" + "\n".join(problems)


# --- one global atomic per work-group, in the printed kernels -----------------------------------

def _kernels(program: str):
    """(name, lines) of each ``__kernel`` in the program's OpenCL kernel file."""
    text = _compiled(program, "opencl").compilation.generated.files[f"{program}.cl"]
    for chunk in text.split("__kernel void ")[1:]:
        yield chunk.split("(", 1)[0], chunk[:chunk.index("\n}")].splitlines()


def _openers(lines, at: int):
    """The lines that open the blocks around ``lines[at]``, innermost first."""
    depth = len(lines[at]) - len(lines[at].lstrip())
    for line in reversed(lines[:at]):
        indent = len(line) - len(line.lstrip())
        if line.strip() and indent < depth:
            yield line
            depth = indent


@pytest.mark.parametrize("program", GROUP_PROGRAMS)
def test_each_global_combine_is_the_first_items_once_per_group(program):
    """Every global atomic on a reduction's device copy (``*_dev[0]``) or a worklist's length
    (``*_size[0]``) is done by the work-group's first item, at the kernel's end: not in the
    item loop (the form without per-group combining) and not once per item. Only an append
    past the local queue's capacity takes its own slot (inside ``starc_stage_append``)."""
    assert sum(_first_items_combines(program, name, lines, "(int)get_local_id(0) == 0")
               for name, lines in _kernels(program)) >= 1


def _first_items_combines(program: str, name: str, lines, leader: str) -> int:
    """How many global atomics on a reduction's device copy or a worklist's length the kernel
    ``lines`` has, each checked to be the first item's (under ``leader``), outside loops."""
    combines = 0
    for at, line in enumerate(lines):
        if not re.search(r"atomic\w*\(&\w+_(dev|size)\[0\]", line):
            continue
        blocks = [line] + list(_openers(lines, at))
        assert any(leader in block for block in blocks), f"{program} {name}: {line.strip()}"
        assert not any(block.lstrip().startswith(("for", "while")) for block in blocks), \
            f"{program} {name}: in a loop: {line.strip()}"
        combines += 1
    return combines


@pytest.mark.sycl
def test_sycl_binned_kernel_folds_its_reduction_once_per_group():
    """SYCL's binned pr (a grouped kernel: no sycl::reduction there) folds diff per work-group
    by the same tree, in a local_accessor, and has exactly one atomic on diff's device copy,
    the group's first item's, outside loops."""
    options = BackendOptions(schedule="binned")
    compilation = starc.compile(str(PROGRAMS["pr"].path), "sycl", options=options).compilation
    assert {r.strategy for k in compilation.specialized.kernels if k.schedule == "binned"
            for r in k.reductions} == {"group"}
    text = compilation.generated.files["pr.cpp"]
    grouped = [chunk[:chunk.index("\n}")] for chunk in text.split("static void ")[1:]
               if "sycl::local_accessor" in chunk.split("\n}")[0]]
    assert len(grouped) == 1 and "sycl::local_accessor<float, 1> starc_group_diff_local(" \
        "sycl::range<1>(starc_group), starc_handler);" in grouped[0]
    assert "reduce_over_group" not in text
    lines = grouped[0].splitlines()
    assert _first_items_combines("pr", "binned", lines,
                                 "static_cast<int>(starc_it.get_local_id(0)) == 0") == 1


def test_the_plan_and_the_kernels_agree_on_the_forms():
    """pr's diff is folded per work-group (plan: ``group``); sssp's appends and counts are
    staged (plan: ``local``), and its kernel file stages them through the local queue."""
    pr = _compiled("pr", "opencl").compilation.specialized
    assert {r.strategy for k in pr.kernels for r in k.reductions} == {"group"}
    sssp = _compiled("sssp", "opencl").compilation
    assert sssp.specialized.target.appends == "local"
    text = sssp.generated.files["sssp.cl"]
    assert text.count("starc_stage_append(starc_staged_") == 2
    assert "atomic_inc(&starc_staged_modified_frontier_size_count);" in text


# --- the local queue's overflow ------------------------------------------------------------------

@pytest.mark.parametrize("program", ("sssp", "cc"))
@pytest.mark.parametrize("capacity", (1, 5))
def test_appends_past_the_local_queue_take_their_own_slots(program, capacity, hub_files,
                                                           tmp_path):
    """The local queue's capacity shrunk to ``capacity`` (the kernel file's STARC_LOCAL_QUEUE,
    set before the prelude's default): the hub's round overflows it at once, and every entry
    past it takes a global slot of its own; the results are still the reference's."""
    case = PROGRAMS[program]
    path = hub_files[case.weighted]
    compiled = _compiled(program, "opencl", 64)
    backend = compiled.backend
    if not backend.availability().can_run:
        pytest.skip(f"no OpenCL device: {backend.availability().detail}")
    built = backend.build(compiled.compilation.generated, tmp_path, compiled.options)
    # the program reads its kernel file from its own folder when it starts
    kernels = tmp_path / f"{program}.cl"
    assert "#define STARC_LOCAL_QUEUE 2048" in kernels.read_text()   # (sssp's, cc's worklists)
    kernels.write_text(f"#define STARC_LOCAL_QUEUE {capacity}\n" + kernels.read_text())
    exe = built.argv_prefix[0]
    params = case.params_for(load_graph(str(path)).num_nodes)
    out = tmp_path / "results.txt"
    proc = subprocess.run([str(exe)] + _program_argv(str(path), case.undirected, params,
                                                     str(out), False),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    problems = compare_results(_expected(program, path), parse_results(out.read_text()),
                               rtol=case.rtol, atol=case.atol)
    assert not problems, f"{program}, local queue of {capacity}:\n" + "\n".join(problems)


def test_a_hub_overflows_the_local_queue_by_itself(tmp_path):
    """A star of 3000 leaves beside an R-MAT part: sssp's first sparse round appends 3000
    vertices from the centre's one work item, past the default local queue (2048 entries), so
    the last ones take their own slots; the distances are still the reference's."""
    leaves = 3000
    assert leaves > LOCAL_QUEUE_DEFAULT
    part = rmat(8, edge_factor=8, seed=2)
    offset = leaves + 1
    ids = np.arange(1, offset, dtype=np.int64)
    src = np.concatenate([np.zeros(leaves, dtype=np.int64), ids, part.sources + offset])
    dst = np.concatenate([ids, np.zeros(leaves, dtype=np.int64), part.targets + offset])
    weights = np.random.default_rng(1).integers(1, 21, src.size)
    path = tmp_path / "big_star.el"
    write_edge_list(Graph.from_edges(offset + part.num_nodes, src, dst, weights, True,
                                     "star of 3000 and R-MAT"), path)
    compiled = _compiled("sssp", "opencl", 64)
    if not compiled.backend.availability().can_run:
        pytest.skip(f"no OpenCL device: {compiled.backend.availability().detail}")
    actual = compiled.run(path, src="0")
    problems = compare_results(_expected("sssp", path), actual)
    assert not problems, "\n".join(problems)
