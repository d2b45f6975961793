"""Rows with slack on OpenCL, SYCL and OpenACC (issue 31, item 3): dsl/dynamic's programs give
the reference's results when the batches make rows outgrow their room and the slot space run
out (mostly additions), and under the forced schedules (``--schedule binned``, ``edges``), which
keep rows with slack where they apply to no kernel that walks edge ids and a compact CSR where
they do; and on hub rows whose deletions shift long spans (applied on the device from their
move records: span moves), with rows moved to fresh room and re-layouts in the same batches;
the plan lays the graph out in rows with slack on each of them, and CUDA's program of rows
with slack (its moves and kept staging included) compiles with nvcc.

CI time: the reference's results are computed once per program, stream and batch size and
compared with every backend's (and schedule's) run; the forced schedules cover backends x
schedules x programs (dyn_sssp, dyn_pr) pairwise (tests/pairwise.py's all_pairs: every backend
under each schedule, each program under each schedule and on each backend), one build a case;
the weights a kernel changes run each backend's build (floats or doubles, both types on OpenCL)
on both streams."""

from __future__ import annotations

import dataclasses
import functools
import pathlib
import random
import re
import subprocess
import sys

import pytest

import starc
from starc.backends.base import BackendOptions, BuiltProgram
from starc.graphs import grid, load_graph, rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from starc.results import compare_results

from nvcc_builds import cuda_build
from pairwise import all_pairs

DYNAMIC = pathlib.Path(__file__).resolve().parents[2] / "dsl" / "dynamic"
PR = {"beta": "0.000001", "delta": "0.85", "maxIter": "100"}

#: the backends whose kernels read rows with slack and run here, each where its toolchain is
SLACK_BACKENDS = [pytest.param("opencl", marks=pytest.mark.opencl),
                  pytest.param("sycl", marks=pytest.mark.sycl),
                  pytest.param("openacc", marks=pytest.mark.openacc)]


@pytest.fixture(scope="module")
def growing(tmp_path_factory):
    """name -> (graph, stream of twice its edges, nine in ten additions, undirected)."""
    folder = tmp_path_factory.mktemp("slack")
    made = {}
    for name, graph, undirected in [("rmat", rmat(7, 8, seed=11, weights=True), False),
                                    ("grid", grid(8, 9, seed=12, weights=True), True)]:
        path = folder / f"{name}.el"
        write_edge_list(graph, path)
        loaded = load_graph(str(path), undirected=undirected)
        updates = folder / f"{name}.updates"
        write_updates(updates, generate_updates(loaded, 2 * loaded.num_edges, delete_share=0.1,
                                                seed=13, weights=True))
        made[name] = (path, updates, undirected)
    return made


@pytest.fixture(scope="module")
def hubs(tmp_path_factory):
    """(graph, stream, undirected): two hubs (0 -> every vertex, every vertex -> 1) among
    random edges, and batches of 60 lines that delete hub edges from the middle of the hub
    rows (each shifting a long span, forward and reverse) and add 40 edges to a few rows,
    the hubs' among them (rows outgrowing their room move to fresh slots), so that the slot
    space runs out and is laid out again in a batch with deletions."""
    folder, rng = tmp_path_factory.mktemp("hubs"), random.Random(21)
    n = 200
    edges = {(0, v) for v in range(2, n)} | {(v, 1) for v in range(2, n)}
    while len(edges) < 1000:
        u, v = rng.randrange(n), rng.randrange(n)
        edges.add((u, v))
    path = folder / "hubs.el"
    path.write_text("".join(f"{u} {v} {rng.randint(1, 20)}\n" for u, v in sorted(edges)))
    lines, out_hub, in_hub = [], list(range(2, n)), list(range(2, n))
    for _ in range(10):
        for hub_row, row in ((0, out_hub), (1, in_hub)):
            for _ in range(10):
                v = row.pop(len(row) // 2 + rng.randrange(-5, 5))
                lines.append(f"d 0 {v}" if hub_row == 0 else f"d {v} 1")
        for _ in range(40):
            u = rng.choice([0, 1, 3, 4, 5, rng.randrange(n)])
            lines.append(f"a {u} {rng.randrange(n)} {rng.randint(1, 20)}")
    updates = folder / "hubs.updates"
    updates.write_text("".join(line + "\n" for line in lines))
    return path, updates, False


@functools.lru_cache(maxsize=None)
def _reference(name, case, batch, params):
    """The reference's results of ``name`` on ``case`` (once for all backends)."""
    path, updates, undirected = case
    return starc.compile(str(DYNAMIC / f"{name}.sp"), "reference").run(
        path, undirected=undirected, updates=str(updates), batchSize=batch, **dict(params))


def _agree(name, case, batch, backend, schedule=None, rtol=0.0, atol=0.0, skip=(), **params):
    path, updates, undirected = case
    options = BackendOptions(schedule=schedule)
    runs = [_reference(name, case, batch, tuple(sorted(params.items()))),
            starc.compile(str(DYNAMIC / f"{name}.sp"), backend, options=options)
            .run(path, undirected=undirected, updates=str(updates), batchSize=batch, **params)]
    problems = compare_results(*_without(runs, skip), rtol=rtol, atol=atol)
    assert not problems, "\n".join(problems)


def _without(runs, skip):
    """``runs`` without the properties ``skip`` names (dyn_sssp's parents: ties)."""
    return [dataclasses.replace(run, props={k: v for k, v in run.props.items() if k not in skip})
            for run in runs]


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
@pytest.mark.parametrize("batch", [7, 150, 100000])
def test_growing_rows_give_the_references_sssp_and_pagerank(growing, batch, backend):
    _agree("dyn_sssp", growing["rmat"], batch, backend, skip=("parent",), src="0")
    _agree("dyn_pr", growing["rmat"], batch, backend, rtol=1e-4, atol=1e-6, **PR)


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
@pytest.mark.parametrize("batch", [60, 17])
def test_hub_rows_long_shifts_and_relayouts_give_the_references_results(hubs, batch, backend):
    """Deletions in the middle of hub rows (long spans moved, on the device where the plan
    applies the moves there), rows moved to fresh room and re-layouts in the same batches."""
    _agree("dyn_sssp", hubs, batch, backend, skip=("parent",), src="0")
    _agree("dyn_pr", hubs, batch, backend, rtol=1e-4, atol=1e-6, **PR)


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
def test_growing_rows_give_the_references_triangle_count(growing, backend):
    _agree("dyn_tc", growing["grid"], 40, backend)


#: a forall over the graph's edges after each batch: a kernel over edge ids by the program
EDGE_SUMS = """\
Dynamic EdgeSums(Graph g, propNode<int> total, updates<g> U, int batchSize) {
    g.attachNodeProperty(total = 0);
    Batch (U : batchSize) {
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        forall (e in g.edges()) {
            node s = e.source;
            node t = e.destination;
            s.total += t % 7 + 1;
        }
    }
}
"""


@pytest.mark.parametrize("backend", SLACK_BACKENDS)
def test_a_forall_over_edges_walks_the_live_slots(hubs, tmp_path, backend):
    program = tmp_path / "edge_sums.sp"
    program.write_text(EDGE_SUMS)
    path, updates, _ = hubs
    files = starc.compile(str(program), backend).compilation.generated.files
    assert any("starc::SlackRows" in text for text in files.values())   # not a compact CSR
    runs = [starc.compile(str(program), name).run(path, updates=str(updates), batchSize=17)
            for name in ("reference", backend)]
    problems = compare_results(*runs)
    assert not problems, "\n".join(problems)


#: a push over each vertex's out-edges after each batch (every batch's graph adds to the
#: totals): on a GPU its variant runs over edge ids, reading the edges' sources, which no other
#: kernel reads; with a degree the host reads (``{degree}``) the graph keeps a compact CSR
NEIGHBOUR_SUMS = """\
Dynamic NeighbourSums(Graph g, propNode<int> total, updates<g> U, int batchSize, node src) {{
    g.attachNodeProperty(total = 0);
    Batch (U : batchSize) {{
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
        int d = {degree};
        forall (v in g.nodes()) {{
            for (w in g.neighbors(v)) {{
                w.total += v % 7 + d;
            }}
        }}
    }}
}}
"""
SUMS = {"neighbour_sums": NEIGHBOUR_SUMS.format(degree="1"),
        "degree_sums": NEIGHBOUR_SUMS.format(degree="g.count_outNbrs(src)"),
        "edge_sums": EDGE_SUMS}

#: (backend, program): a build each, run on both kinds of device; degree_sums (a compact CSR)
#: and edge_sums (whose kernel reads the sources on every device) on OpenCL only (CI time)
DEVICE_KINDS = [pytest.param(*backend.values, name, marks=backend.marks)
                for backend in SLACK_BACKENDS[:2] for name in ("dyn_sssp", "neighbour_sums")] \
    + [pytest.param("opencl", name, marks=pytest.mark.opencl)
       for name in ("degree_sums", "edge_sums")]


def _unguarded(host: str, var: str):
    """The lines of ``host`` that allocate, copy, move, scatter or free the device array
    ``var`` outside a block of ``if (starc_lockstep) {``, and how many do in all."""
    lines, found = host.splitlines(), []
    for i, line in enumerate(lines):
        if re.match(rf"\s*({var} = )?starc_\w+(<\w+>)?\(.*\b{var}\b", line):
            depth = len(line) - len(line.lstrip())
            block = next(text for text in reversed(lines[:i])
                         if text.strip() and len(text) - len(text.lstrip()) < depth)
            found.append((block.strip() == "if (starc_lockstep) {", line.strip()))
    return [line for guarded, line in found if not guarded], len(found)


@pytest.mark.parametrize("backend, name", DEVICE_KINDS)
def test_the_sources_only_variants_read_are_kept_only_on_a_lockstep_device(
        hubs, tmp_path, monkeypatch, backend, name):
    """Where only the kernels' variants for a GPU read the edges' sources (``lockstep_only``),
    a CPU device neither holds them nor refreshes them after a graph update (in rows with
    slack the whole upload of a re-layout, the reallocation, the moves and the scattered
    slots; a compact CSR's upload and growth; a trial's restore), while a GPU's variants (run
    here by STARC_<BACKEND>_LOCKSTEP=1) read them refreshed as before (in rows with slack:
    walking the live slots, ``P.LiveSlot``); both give the reference's results through long
    shifts, rows moved to fresh room and re-layouts, and in a second trial (--trials 2: the
    input graph restored). Where a kernel of every device reads the sources (a forall over
    the edges), every device refreshes them."""
    path, updates, _ = hubs
    program, params = DYNAMIC / "dyn_sssp.sp", {"src": "0"}
    if name != "dyn_sssp":
        program, params = tmp_path / f"{name}.sp", {} if name == "edge_sums" else params
        program.write_text(SUMS[name])
    compiled = starc.compile(str(program), backend)
    plan, files = compiled.compilation.specialized, compiled.compilation.generated.files
    assert bool(plan.target.slack_rows) == (name != "degree_sums")
    assert next(a for a in plan.arrays if a.name == "sources").lockstep_only == \
        (name != "edge_sums")
    unguarded, refreshes = _unguarded(files[f"{program.stem}.cpp"], "d_sources")
    assert refreshes >= 8 and (not unguarded) == (name != "edge_sums"), unguarded
    if backend == "opencl" and name == "dyn_sssp":
        assert ">= 0 && offsets[sources[" in files["dyn_sssp.cl"]
    reference = starc.compile(str(program), "reference")
    for batch in (17, 60):
        expected = reference.run(path, updates=str(updates), batchSize=batch, **params)
        for lockstep in ("0", "1"):
            monkeypatch.setenv(f"STARC_{backend.upper()}_LOCKSTEP", lockstep)
            # (trials: the program's own --trials)
            actual = compiled.run(path, updates=str(updates), batchSize=batch, trials=2,
                                  **params)
            problems = compare_results(*_without((expected, actual), ("parent",)))
            assert not problems, f"batch {batch}, lockstep {lockstep}:\n" + "\n".join(problems)


#: (backend, schedule, program): pairwise, one build each (CI time)
FORCED = [pytest.param(backend.values[0], schedule, name, marks=backend.marks)
          for backend, schedule, name in all_pairs(SLACK_BACKENDS, ["binned", "edges"],
                                                   ["dyn_sssp", "dyn_pr"])]


@pytest.mark.parametrize("backend, schedule, name", FORCED)
def test_forced_schedules_give_the_references_results(growing, schedule, backend, name):
    if name == "dyn_sssp":
        _agree("dyn_sssp", growing["rmat"], 150, backend, schedule=schedule, skip=("parent",),
               src="0")
    else:
        _agree("dyn_pr", growing["rmat"], 150, backend, schedule=schedule, rtol=1e-4,
               atol=1e-6, **PR)


#: a kernel changes the (floating-point) weights in every batch: they are read back before
#: each update and scattered after it, at the slots the batch wrote, as doubles and floats
BUMPED = """\
Dynamic Bump(Graph g, propEdge<{type}> weight, propNode<{type}> total, updates<g> U,
             int batchSize) {{
    Batch (U : batchSize) {{
        forall (v in g.nodes()) {{
            for (w in g.neighbors(v)) {{
                edge e = g.get_edge(v, w);
                e.weight = e.weight + 1;
            }}
        }}
        g.updateCSRDel(U);
        g.updateCSRAdd(U);
    }}
    forall (v in g.nodes()) {{
        for (w in g.neighbors(v)) {{
            edge e = g.get_edge(v, w);
            v.total += e.weight;
        }}
    }}
}}
"""


#: (backend, weight type): every backend, both types on OpenCL (a move kernel pair per
#: element type) and one on each other backend (CI time: a build a case)
BUMPED_CASES = [pytest.param(*backend.values, type_name, marks=backend.marks)
                for backend, type_name in zip(SLACK_BACKENDS + SLACK_BACKENDS[:1],
                                              ["double", "float", "double", "float"])]


@pytest.mark.parametrize("backend, type_name", BUMPED_CASES)
def test_weights_a_kernel_changes_follow_their_slots(growing, hubs, tmp_path, type_name, backend):
    """On the growing stream and the hubs' (moved on the device with the batch's spans, where
    the plan applies them there: no read back)"""
    program = tmp_path / f"bump_{type_name}.sp"
    program.write_text(BUMPED.format(type=type_name))
    for stream, (path, updates, _) in (("growing", growing["rmat"]), ("hubs", hubs)):
        runs = [starc.compile(str(program), which).run(path, updates=str(updates), batchSize=150)
                for which in ("reference", backend)]
        problems = compare_results(*runs, rtol=1e-5)
        assert not problems, f"{stream}:\n" + "\n".join(problems)


@pytest.mark.cuda
@pytest.mark.parametrize("name", ["dyn_tc", "bump_double"])
def test_cudas_program_of_rows_with_slack_builds_with_nvcc(tmp_path, name):
    """CUDA reads rows with slack where its schedules allow (dyn_tc; dyn_sssp's edges and
    dyn_pr's binned schedules keep a compact CSR, ``test_batches``): the program's scatter and
    gather (of dyn_tc's marks, of the weights a kernel writes under ``--schedule vertex``)
    build under nvcc -arch=sm_75 with every warning an error (its runs, which need a GPU, are
    test_dynamic_programs'). dyn_tc's build is test_cuda_build's (tests/nvcc_builds.py: one
    build through the build cache)."""
    if name == "dyn_tc":
        program, schedule = DYNAMIC / "dyn_tc.sp", None
    else:
        program, schedule = tmp_path / "bump_double.sp", "vertex"
        program.write_text(BUMPED.format(type="double"))
    built = cuda_build(program, "sm_75", schedule)
    assert isinstance(built, BuiltProgram), str(built)
    out = built.directory
    text = (out / f"{program.stem}.cu").read_text()
    assert "starc::SlackRows" in text and "starc_scatter(" in text
    assert "starc_move(" in text and text.count("starc_scatter_staging ") == 1   # kept
    # both write an edge property on the device (dyn_tc its marks of updated pairs): moved on
    # the device, or read back at the moved slots where the runtime refuses the moves
    assert "starc_gather(" in text
    assert (out / program.stem).is_file()


@pytest.mark.parametrize("backend, kernel_file", [("opencl", "dyn_sssp.cl"), ("sycl", None),
                                                 ("openacc", None)])
def test_the_batch_staging_is_kept_and_the_moves_printed(tmp_path, backend, kernel_file):
    """The device staging of a batch's slots and moves is declared once, before the trials
    (its buffers kept and grown across batches), and each update applies its moves on the
    device (kernel pair per element type in OpenCL's kernel file) before scattering the rest."""
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "starc", str(DYNAMIC / "dyn_sssp.sp"), "-b",
                           backend, "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    host = next(p for p in out.iterdir() if p.suffix == ".cpp").read_text()
    assert host.count("starc_scatter_staging ") == 1
    assert host.index("starc_scatter_staging ") < host.index("for (int trial = 0;")
    # targets and weight, rev_sources and rev_edge_ids (Decremental's pull reads the in-edges'
    # weights), in each of the two updates; on OpenCL and SYCL the sources too, which their
    # kernels' variants for a GPU (over edge ids) read
    moved = 5 if backend in ("opencl", "sycl") else 4
    assert len(re.findall(r"starc_move(<int>)?\(", host)) == 2 * moved
    assert "written_besides_moves()" in host and "move_records(" in host
    if kernel_file:
        text = (out / kernel_file).read_text()
        assert "__kernel void starc_move_out_int(" in text
        assert "__kernel void starc_move_in_int(" in text
