"""Issue 29 item 2 on OpenCL (PoCL): scalar reductions folded per work-group by a tree in local
memory before one atomic, worklist appends and counts staged in local memory, one global
atomic per work-group (backends/common/group_end.py); against the reference on graphs with
hubs (``e2e_cases.hub_graph``: the traversals' source, vertex 0, is a star's centre whose round
appends 300 vertices from one work item), in real work-groups (--block-size given, so a CPU
device gets no runs of one item). On SYCL the appending kernels stage through the same code:
on the test double as a CPU device (work-groups of one running a run of items), as a GPU
(STARC_SYCL_DOUBLE_GPU=1: real work-groups of --block-size items), and on AdaptiveCpp's CPU
device where acpp is on PATH.

CI time: the work-group size is the built program's own run-time option (``--block-size N``;
starc's --block-size only sets its default), so each (program, backend) is built once, at
work-groups of ``BUILT_BLOCK`` (run without the option: the built-in default), and run at every
size of the test's matrix with ``--block-size``, on the SYCL double as a CPU and as a GPU (an
environment variable of the run, not of the build); OpenCL's local-queue overflow edits the
kernel file, which the program reads when it starts, in a copy of the one build."""

from __future__ import annotations

import dataclasses
import functools
import re
import shutil
import subprocess

import numpy as np
import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.common.group_end import LOCAL_QUEUE_DEFAULT
from starc.diagnostics import DiagnosticSink
from starc.graphs import Graph, load_graph, rmat, write_edge_list
from starc.results import compare_results, parse_results
from starc.runner import _program_argv, build

from e2e_cases import CASES, PROGRAMS, hub_graph

#: (cc's propagation kept as rounds, whose appends these check: cc.sp runs a union-find here)
GROUP_PROGRAMS = ("sssp", "cc_in_rounds", "bfs", "pr", "bc", "tc")
GROUP_SIZES = (2, 3, 64, 256)
#: the work-group size the programs are built with; the others are given with --block-size
BUILT_BLOCK = 64


@pytest.fixture(scope="module")
def hub_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hubs")
    files = {}
    for weighted in (False, True):
        files[weighted] = folder / f"hubs{'_weighted' if weighted else ''}.el"
        write_edge_list(hub_graph(weighted), files[weighted])
    return files


#: the programs whose kernels append to a worklist or count a dense round (SYCL stages them)
APPENDING_PROGRAMS = ("sssp", "cc_in_rounds", "sswp")
SYCL_GROUP_SIZES = (2, 64, 256)


@functools.lru_cache(maxsize=None)
def _compiled(program: str, backend: str, block_size=None):
    options = BackendOptions(block_size=block_size)
    return starc.compile(str(CASES[program].path), backend, options=options)


def _block_option(block_size: int):
    """The run's options for work-groups of ``block_size`` items (none for the built-in one)."""
    return {} if block_size == BUILT_BLOCK else {"block-size": block_size}


@functools.lru_cache(maxsize=None)
def _expected(program: str, path):
    case = CASES[program]
    params = case.params_for(load_graph(str(path)).num_nodes)
    return _compiled(program, "reference").run(path, undirected=case.undirected, **params)


@pytest.mark.parametrize("program", GROUP_PROGRAMS)
def test_group_combining_matches_the_reference(program, hub_files):
    for block_size in GROUP_SIZES:
        _matches_the_reference(program, "opencl", block_size, hub_files, "no OpenCL device")


def _matches_the_reference(program: str, backend: str, block_size: int, hub_files, missing: str,
                           device: str = ""):
    """``program`` built for ``backend`` at ``block_size`` gives the reference's results on
    its hub graph (skipped, saying ``missing``, where the backend cannot run)."""
    case = CASES[program]
    path = hub_files[case.weighted]
    compiled = _compiled(program, backend, BUILT_BLOCK)
    if not compiled.backend.availability().can_run:
        pytest.skip(f"{missing}: {compiled.backend.availability().detail}")
    params = case.params_for(load_graph(str(path)).num_nodes)
    actual = compiled.run(path, undirected=case.undirected, **params,
                          **_block_option(block_size))
    problems = compare_results(_expected(program, path), actual, rtol=case.rtol, atol=case.atol)
    assert not problems, f"{program} {device}, --block-size {block_size}:\n" + \
        "\n".join(problems)


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
    (``*_size[frontier_round % 2]``) is done by the work-group's first item, at the kernel's end: not in the
    item loop (the form without per-group combining) and not once per item. Only an append
    past the local queue's capacity takes its own slot (inside ``starc_stage_append``)."""
    assert sum(_first_items_combines(program, name, lines, "(int)get_local_id(0) == 0")
               for name, lines in _kernels(program)) >= 1


def _first_items_combines(program: str, name: str, lines, leader: str) -> int:
    """How many global atomics on a reduction's device copy or a worklist's length the kernel
    ``lines`` has, each checked to be the first item's (under ``leader``), outside loops."""
    combines = 0
    for at, line in enumerate(lines):
        if not re.search(r"atomic\w*\(&\w+_(dev\[0\]|size\[frontier_round % 2\])", line):
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
    # the worklist's build and the sparse round (a relaxation's and a deferred entry's:
    # analysis/priority_window.py), and the sparse round's variant for GPUs (a work-group's
    # split of its entries' edges, wip71's lockstep variants: the same two); the rounds of
    # one work-group take their slots one by one (the next step reads them)
    assert text.count("starc_stage_append(starc_staged_") == 5
    gpu_form = text[text.index("__kernel void Compute_SSSP_forall_11_sparse_lockstep("):]
    assert gpu_form.count("starc_stage_append(starc_staged_") == 2
    assert "atomic_inc(&starc_staged_modified_frontier_size_count);" in text


# --- the local queue's overflow ------------------------------------------------------------------

@pytest.mark.parametrize("program", ("sssp", "cc_in_rounds"))
def test_appends_past_the_local_queue_take_their_own_slots(program, hub_files, tmp_path):
    """The local queue's capacity shrunk to 1 and to 5 (the kernel file's STARC_LOCAL_QUEUE,
    set before the prelude's default): the hub's round overflows it at once, and every entry
    past it takes a global slot of its own; the results are still the reference's."""
    compiled, path = _runnable(program, "opencl", hub_files, "no OpenCL device")
    cached = build(compiled.compilation, DiagnosticSink(), compiled.options)
    assert cached is not None
    # the program reads its kernel file from its own folder when it starts: a copy of the
    # build, whose kernel file each capacity edits
    copy = tmp_path / "built"
    shutil.copytree(cached.directory, copy)
    built = dataclasses.replace(cached, directory=copy, argv_prefix=[
        arg.replace(str(cached.directory), str(copy)) for arg in cached.argv_prefix])
    kernels = copy / f"{program}.cl"
    original = kernels.read_text()
    assert "#define STARC_LOCAL_QUEUE 2048" in original   # (sssp's, cc's worklists)
    for capacity in (1, 5):
        kernels.write_text(f"#define STARC_LOCAL_QUEUE {capacity}\n" + original)
        _run_matches_the_reference(built, program, path, tmp_path, f"local queue of {capacity}")


def _runnable(program: str, backend: str, hub_files, missing: str):
    """``program`` compiled for ``backend`` at work-groups of 64, and its hub graph (skipped,
    saying ``missing``, where the backend cannot run)."""
    compiled = _compiled(program, backend, BUILT_BLOCK)
    if not compiled.backend.availability().can_run:
        pytest.skip(f"{missing}: {compiled.backend.availability().detail}")
    return compiled, hub_files[CASES[program].weighted]


def _run_matches_the_reference(built, program: str, path, tmp_path, label: str):
    """The built program, run on ``path``, gives the reference's results."""
    case = CASES[program]
    params = case.params_for(load_graph(str(path)).num_nodes)
    actual = run_built(built, path, case.undirected, params, tmp_path)
    problems = compare_results(_expected(program, path), actual, rtol=case.rtol, atol=case.atol)
    assert not problems, f"{program}, {label}:\n" + "\n".join(problems)


def run_built(built, path, undirected: bool, params, tmp_path):
    """The results of the built program run on ``path`` with ``params``."""
    out = tmp_path / "results.txt"
    proc = subprocess.run([str(built.argv_prefix[0])] + _program_argv(
        str(path), undirected, params, str(out), False),
        capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return parse_results(out.read_text())


def big_star(folder):
    """A star of 3000 leaves beside an R-MAT part, weighted, written under ``folder``: sssp's
    first sparse round appends 3000 vertices from the centre's one work item, past the default
    local queue (2048 entries)."""
    leaves = 3000
    assert leaves > LOCAL_QUEUE_DEFAULT
    part = rmat(8, edge_factor=8, seed=2)
    offset = leaves + 1
    ids = np.arange(1, offset, dtype=np.int64)
    src = np.concatenate([np.zeros(leaves, dtype=np.int64), ids, part.sources + offset])
    dst = np.concatenate([ids, np.zeros(leaves, dtype=np.int64), part.targets + offset])
    weights = np.random.default_rng(1).integers(1, 21, src.size)
    path = folder / "big_star.el"
    write_edge_list(Graph.from_edges(offset + part.num_nodes, src, dst, weights, True,
                                     "star of 3000 and R-MAT"), path)
    return path


def test_a_hub_overflows_the_local_queue_by_itself(tmp_path):
    """The big star (``big_star``): the last of the centre's appends take their own slots;
    the distances are still the reference's."""
    path = big_star(tmp_path)
    compiled = _compiled("sssp", "opencl", BUILT_BLOCK)
    if not compiled.backend.availability().can_run:
        pytest.skip(f"no OpenCL device: {compiled.backend.availability().detail}")
    actual = compiled.run(path, src="0")
    problems = compare_results(_expected("sssp", path), actual)
    assert not problems, "\n".join(problems)


# --- SYCL: the same staging, in command groups ----------------------------------------------------

@pytest.fixture
def sycl_devices(monkeypatch):
    """The devices a SYCL program runs on, one after the other (iterate): the toolchain's CPU,
    then, on the test double only, the double saying it is a GPU (one work-item per item, real
    work-groups of --block-size; STARC_SYCL_DOUBLE_GPU is read when the program runs)."""
    kind = starc.compile(str(PROGRAMS["bfs"].path), "sycl").backend.availability().detail

    def devices():
        yield "cpu"
        if "test double" in kind:
            monkeypatch.setenv("STARC_SYCL_DOUBLE_GPU", "1")
            yield "gpu"
            monkeypatch.delenv("STARC_SYCL_DOUBLE_GPU")
    return devices


@pytest.mark.sycl
@pytest.mark.parametrize("program", APPENDING_PROGRAMS + ("bfs",))
def test_sycl_staged_appends_match_the_reference(program, sycl_devices, hub_files):
    for device in sycl_devices():
        for block_size in SYCL_GROUP_SIZES:
            _matches_the_reference(program, "sycl", block_size, hub_files,
                                   "no SYCL toolchain", f"on SYCL ({device})")


def _sycl_kernels(program: str):
    """(name, lines) of each kernel function of the program's SYCL file."""
    text = _compiled(program, "sycl").compilation.generated.files[f"{program}.cpp"]
    for chunk in text.split("static void ")[1:]:
        yield chunk.split("(", 1)[0], chunk[:chunk.index("\n}")].splitlines()


@pytest.mark.sycl
@pytest.mark.parametrize("program", APPENDING_PROGRAMS)
def test_sycl_appends_take_one_global_atomic_per_group(program):
    """SYCL's plan stages the appends (``local``); every kernel that appends is a command group
    with the staged queue's local_accessors over ``starc_staged_groups``, and its only atomics
    on a worklist's length are the group's first item's, outside loops (an overflowing append's
    own slot is inside ``starc_stage_append``)."""
    compilation = _compiled(program, "sycl").compilation
    assert compilation.specialized.target.appends == "local"
    staged = [(name, lines) for name, lines in _sycl_kernels(program)
              if any("starc_staged_" in line for line in lines)]
    assert staged
    for name, lines in staged:
        text = "\n".join(lines)
        # in work-groups: the staged launch, or a GPU variant's split of its entries' edges,
        # which runs in work-groups of its own (starc_groups)
        grouped = "starc_staged_groups(q, " in text or \
            (name.endswith("_lockstep") and "parallel_for(starc_groups(" in text)
        assert grouped and "starc_parallel_for" not in text, name
        assert "sycl::local_accessor<int, 1> starc_staged_" in text, name
        assert "return;" not in text.split("starc_handler.parallel_for")[1], name
        assert _first_items_combines(program, name, lines,
                                     "static_cast<int>(starc_it.get_local_id(0)) == 0") >= 1


@pytest.mark.sycl
@pytest.mark.parametrize("program, capacity", (("sssp", 1), ("cc_in_rounds", 5)))
def test_sycl_appends_past_the_local_queue_take_their_own_slots(program, capacity, sycl_devices,
                                                                hub_files, tmp_path):
    """As OpenCL's: STARC_LOCAL_QUEUE shrunk to ``capacity`` before the program's includes; the
    hub's round overflows it and every entry past it takes a global slot of its own. (CI time:
    the capacity is a macro of the build, so each program runs one of OpenCL's two capacities,
    each capacity once; OpenCL, whose kernel file is read at run time, runs all four.)"""
    compiled, path = _runnable(program, "sycl", hub_files, "no SYCL toolchain")
    backend = compiled.backend
    generated = compiled.compilation.generated
    main = f"{program}.cpp"
    files = dict(generated.files, **{main: f"#define STARC_LOCAL_QUEUE {capacity}\n" +
                                     generated.files[main]})
    assert "#define STARC_LOCAL_QUEUE 2048" in generated.files["starc_sycl.hpp"]
    built = backend.build(dataclasses.replace(generated, files=files), tmp_path,
                          compiled.options)
    for device in sycl_devices():
        _run_matches_the_reference(built, program, path, tmp_path,
                                   f"SYCL ({device}), local queue of {capacity}")
