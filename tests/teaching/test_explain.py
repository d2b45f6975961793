"""starc explain: the decisions of dsl programs per backend, the counts, and the command line."""

import json
import pathlib
import re

import pytest

from starc.analysis.batches import FUSED_WHY
from starc.backends import get_backend
from starc.backends.base import BackendOptions
from starc.cli import main
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_file
from starc.teaching.counts import backend_counts
from starc.teaching.decisions import decisions, targets
from starc.teaching.simt import kernel_rows
from starc.graphs import rmat
from starc.backends import device_backend_names as device_backends

from label_rounds import write_cc_in_rounds

ROOT = pathlib.Path(__file__).resolve().parents[2]
DSL = sorted((ROOT / "dsl").glob("*.sp"))
REFUSED = ROOT / "tests" / "e2e" / "programs" / "heldback" / "refused_anywhere_row.sp"
ALL = ["cuda", "opencl", "sycl", "openacc", "mpi"]


def _plan(path):
    sink = DiagnosticSink()
    comp = compile_file(str(path), sink, stop_after="plan")
    assert comp is not None and comp.plan is not None, [str(d) for d in sink.diagnostics]
    return comp


def _find(found, construct, line=None):
    hits = [d for d in found if d.construct == construct and (line is None or d.line == line)]
    assert hits, f"no {construct} decision at {line}: {[(d.construct, d.line) for d in found]}"
    return hits[0]


@pytest.fixture(scope="module")
def sssp():
    comp = _plan(ROOT / "dsl" / "sssp.sp")
    return comp, decisions(comp, ALL)


@pytest.fixture(scope="module")
def pagerank():
    comp = _plan(ROOT / "dsl" / "pr.sp")
    return comp, decisions(comp, ALL)


def test_min_multi_assign_per_backend(sssp):
    comp, found = sssp
    line = next(n for n, text in enumerate(comp.source.splitlines(), 1) if "Min(" in text)
    minmax = _find(found, "Min", line)
    assert minmax.dsl.startswith("<nbr.dist, nbr.modified> = <Min(")
    what = {b: c.what for b, c in minmax.choices.items()}
    assert what["cuda"].startswith("native atomic min on int: atomicMin")
    assert what["opencl"].startswith("native atomic min on int: atomic_min")
    # fetch_min where it returns the old value; AdaptiveCpp's returns the new one (issue 33)
    assert what["sycl"].startswith("native atomic min on int: starc_atomic<int>(*p).fetch_min (a "
                                   "compare-and-swap loop on AdaptiveCpp, whose fetch_min/"
                                   "fetch_max return the new value)")
    assert "atomic_ref" in minmax.choices["sycl"].why
    # g++ takes the compare-and-swap loop on GCC's builtin; nvc++ CUDA's atomicMin (issue 33)
    assert what["openacc"].startswith("native atomic min on int: atomicMin (a compare-and-swap "
                                      "loop on GCC's __atomic_compare_exchange except under nvc++)")
    assert "combined message with min" in what["mpi"] and "MPI_Alltoallv" in what["mpi"]
    assert "modified_nxt" in what["mpi"]          # the secondary travels with its primary


def test_forall_launch_shapes(sssp):
    comp, found = sssp
    forall = _find(found, "forall", 11)
    assert forall.end_line >= 14 and forall.dsl.startswith("forall (v in g.nodes().filter(")
    assert forall.choices["cuda"].what == (
        "kernel Compute_SSSP_forall_11<<<ceil(n/256), 256>>>, one thread per vertex")
    assert "NDRange" in forall.choices["opencl"].what
    assert "parallel_for" in forall.choices["sycl"].what
    assert "#pragma acc parallel loop" in forall.choices["openacc"].what
    assert "#pragma omp parallel for" in forall.choices["mpi"].what
    wider = decisions(comp, ["cuda"], options=_options(128))
    assert "<<<ceil(n/128), 128>>>" in _find(wider, "forall", 11).choices["cuda"].what
    # the runs of a CPU device are counted in vertices (not "vertexs")
    assert "a contiguous run of up to 64 vertices" in forall.choices["opencl"].what
    assert "claiming runs of 64 vertices" in forall.choices["sycl"].what


def _options(block):
    from starc.backends.base import BackendOptions
    return BackendOptions(block_size=block)


def test_fixedpoint_per_backend(sssp):
    _, found = sssp
    fixed = _find(found, "fixedPoint", 10)
    for backend in ("cuda", "opencl", "sycl", "openacc"):   # data-driven (analysis/frontier)
        assert "worklist" in fixed.choices[backend].what
        assert "modified_nxt" in fixed.choices[backend].what
    assert "cudaMemcpy" in fixed.choices["cuda"].what
    assert "MPI_Allreduce" in fixed.choices["mpi"].what
    assert "finished_flag" in fixed.choices["mpi"].what
    assert "topology-driven" in fixed.choices["mpi"].what


def test_worklist_appends_per_backend(sssp):
    _, found = sssp
    appends = _find(found, "worklist appends", 10)
    assert appends.choices["cuda"].what.startswith("one atomicAdd per warp (starc_warp_append)")
    assert "divergent code" in appends.choices["cuda"].why
    assert appends.choices["opencl"].what.startswith("one atomic per work-group")
    assert "local memory" in appends.choices["opencl"].what
    assert "reaches the kernel's end" in appends.choices["opencl"].why
    assert appends.choices["sycl"].what.startswith("one atomic per work-group")
    assert "local_accessor" in appends.choices["sycl"].what
    assert "reaches the kernel's end" in appends.choices["sycl"].why
    assert appends.choices["openacc"].what.startswith("one atomic per gang")
    assert "private(...) on the gang loop" in appends.choices["openacc"].what
    assert "OpenACC's gangs can each run a chunk of items" in appends.choices["openacc"].why
    assert appends.choices["mpi"].what.startswith("no appends")


def test_scalar_reduction_per_backend(pagerank):
    _, found = pagerank
    plus = _find(found, "+= on a scalar")
    assert plus.dsl.startswith("diff +=")
    assert plus.choices["sycl"].what.startswith("sycl::reduction(")
    assert "sycl::plus<float>" in plus.choices["sycl"].what
    assert plus.choices["openacc"].what.startswith("reduction(+:diff_sum) clause")
    assert plus.choices["cuda"].what.startswith("a private accumulator per work item, then one "
                                                "native atomic add on float: atomicAdd")
    # CUDA folds the privates of a warp's threads first (generated: starc_warp_reduce)
    assert plus.choices["cuda"].what.endswith("so one atomic per warp group")
    assert "warp" not in plus.choices["opencl"].what
    # a work-group folds its privates by a tree in local memory, then one atomic (issue 29)
    assert plus.choices["opencl"].what.endswith("one atomic per work-group")
    # OpenCL C 1.2 has no float atomics: the combine is a compare-and-swap loop on the bits
    assert "compare-and-swap loop for add on float, with atomic_cmpxchg" \
        in plus.choices["opencl"].what
    assert "combined with MPI_SUM across ranks" in plus.choices["mpi"].what
    assert "MPI_Allreduce" in plus.choices["mpi"].what


def test_sycl_binned_reduction_is_folded_per_work_group():
    """SYCL's binned pr has no sycl::reduction in its grouped kernel: explain says the group
    folds the privates by a tree in a local_accessor, then one atomic (issue 29)."""
    found = decisions(_plan(ROOT / "dsl" / "pr.sp"), ["sycl"], BackendOptions(schedule="binned"))
    plus = _find(found, "+= on a scalar").choices["sycl"]
    assert plus.what.startswith("a private accumulator per work item, then one ")
    assert "a tree in a local_accessor (not sycl::reduce_over_group" in plus.what
    assert plus.what.endswith("one atomic per work-group")
    assert "and one per group once the group has folded its privates" in plus.why


def test_plain_store_to_own_vertex(pagerank):
    _, found = pagerank
    store = _find(found, "= on a property")
    assert store.dsl == "v.pageRank_nxt = val;"
    assert {c.what for c in store.choices.values()} == {
        "no atomic: each work item writes only its own vertex"}


def test_counts_for_sssp(sssp):
    comp, _ = sssp
    found = targets(comp.plan, ALL)
    counts = backend_counts(found)
    assert set(counts) == set(ALL)
    assert counts["cuda"]["atomics: min"] >= 1
    assert counts["sycl"]["atomics: min"] >= 1         # fetch_min (a loop on AdaptiveCpp)
    assert counts["openacc"]["atomics: min"] >= 1 and counts["mpi"]["CAS loops: min"] >= 1
    assert counts["mpi"]["messages"] >= 1 and counts["mpi"]["transfers"] == 0
    # the worklist's build kernel and the forall's dense and sparse variants (the sparse one
    # clears its entries' flags: no clear kernel); MPI runs the forall as written
    # (topology-driven)
    assert counts["cuda"]["kernels"] == 3 and counts["cuda"]["transfers"] >= 4
    assert counts["mpi"]["kernels"] == 1
    for name, target in found.items():
        program = target.generated
        assert counts[name]["lines"] == sum(len(program.files[f].splitlines())
                                            for f in program.program_files)
    assert list(counts["cuda"])[:3] == ["lines", "kernels", "transfers"]


def test_counts_of_a_refused_backend_are_empty():
    comp = _plan(REFUSED)
    found = targets(comp.plan, ["cuda", "mpi"])
    counts = backend_counts(found)
    assert counts["mpi"] == {} and counts["cuda"]["kernels"] >= 1


def test_mpi_combine_operators_match_the_runtime():
    """mpi_operator (what explain says) and SuperstepScalars::mpi_op (what runs) agree."""
    from starc.backends.mpi.host import _COMBINE, mpi_operator
    header = (ROOT / "starc" / "backends" / "mpi" / "runtime" / "starc_mpi_scalars.hpp")
    runtime = {}
    for cases, op in re.findall(r"((?:case Combine::\w+: )+)(?:op = |return )(MPI_\w+);",
                                 header.read_text()):
        for case in re.findall(r"Combine::(\w+)", cases):
            runtime[case] = op
    assert runtime, "SuperstepScalars::mpi_op not found"
    for how, combine in _COMBINE.items():
        if combine != "Store":
            assert mpi_operator(how) == runtime[combine], how


# --- the command line -----------------------------------------------------------------------------

def test_cli_text_mentions_every_backend(capsys):
    assert main(["explain", str(ROOT / "dsl" / "sssp.sp")]) == 0
    out = capsys.readouterr().out
    assert "sssp.sp:11  forall (v in g.nodes().filter(modified == True))" in out
    for backend in device_backends():
        assert re.search(rf"^  {backend} +\S", out, re.M), backend
    assert all(len(line) <= 100 for line in out.splitlines() if line.startswith(" "))


def test_cli_json_parses(capsys):
    assert main(["explain", str(ROOT / "dsl" / "sssp.sp"), "-b", "cuda,mpi",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["backends"] == ["cuda", "mpi"]
    mins = [d for d in data["decisions"] if d["construct"] == "Min"]
    assert set(mins[0]["choices"]) == {"cuda", "mpi"}
    assert mins[0]["choices"]["cuda"]["what"].startswith("native atomic min")


def test_cli_unknown_backend_is_a_usage_error(capsys):
    assert main(["explain", str(ROOT / "dsl" / "sssp.sp"), "-b", "cuda,vulkan"]) == 2
    err = capsys.readouterr().err
    assert "unknown backend 'vulkan'" in err and "opencl, cuda, sycl, openacc, mpi" in err


def test_cli_syntax_error_is_located(tmp_path, capsys):
    bad = tmp_path / "bad.sp"
    bad.write_text("function F(Graph g) {\n    int x = ;\n}\n")
    assert main(["explain", str(bad)]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"{re.escape(str(bad))}:2:\d+: error", err), err


def test_cli_shows_the_mpi_refusal(capsys):
    assert main(["explain", str(REFUSED)]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())           # the report wraps at 100 columns
    assert "mpi: cannot run this program: the MPI backend cannot distribute this program: " \
           "g.is_an_edge of a vertex" in flat
    assert "(at refused_anywhere_row.sp:6:13)" in flat
    assert re.search(r"^  cuda +kernel ", out, re.M)      # the others are still explained


@pytest.mark.parametrize("path", DSL, ids=[p.stem for p in DSL])
def test_every_dsl_program_is_explained(path, capsys):
    assert main(["explain", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["decisions"], path.name
    assert any(d["construct"] in ("forall", "iterateInBFS body") for d in data["decisions"])
    for decision in data["decisions"]:
        assert set(decision["choices"]) == set(device_backends())
        assert all(c["what"] and c["why"] for c in decision["choices"].values())
        assert decision["line"] <= decision["end_line"]


def test_backend_titles_are_set():
    for name in device_backends():
        backend = get_backend(name)
        assert backend.title and backend.launch_shape and backend.launch_why, name


def _searched_bfs(tmp_path):
    """dsl/bfs.sp with the source's level from a parameter: no proven depth, so the parents
    loop keeps its search (analysis/depth_values.py)."""
    path = tmp_path / "bfs_searched.sp"
    path.write_text((ROOT / "dsl" / "bfs.sp").read_text().replace(
        "node src)", "node src, int start)").replace("src.level = 0;", "src.level = start;"))
    return path


def test_bfs_says_when_a_parents_loop_stops_at_the_last_parent(tmp_path):
    def text(path):
        comp = _plan(path)
        choice = _find(decisions(comp, ["opencl"]), "iterateInBFS").choices["opencl"]
        return choice.what
    searched, bc = _searched_bfs(tmp_path), ROOT / "dsl" / "bc.sp"
    assert "searches the in-edges from the last and stops at the first parent" in text(searched)
    assert "stops at the first parent" not in text(bc)     # bc sums over every parent
    # the B1 runs where the bottom-up step finds the vertex; bc's does not
    assert "one search per vertex, not two" in text(searched)
    assert "Compute_BFS_bfs_pending_6 runs the frontier's body first" in text(searched)
    assert "one search per vertex" not in text(bc)


def test_bfs_says_its_levels_are_the_depth_and_why_a_variant_keeps_its_search(tmp_path):
    def parents_loop(path):
        comp = _plan(path)
        return _find(decisions(comp, ["opencl", "mpi"]), "iterateInBFS parents loop")
    found = parents_loop(ROOT / "dsl" / "bfs.sp")
    for backend in ("opencl", "mpi"):
        choice = found.choices[backend]
        assert choice.what.startswith("v.level = 0 + 1 * depth, no parent search")
        assert choice.why.startswith("the parents all have level 0 + 1 * (depth-1)")
    comp = _plan(ROOT / "dsl" / "bfs.sp")
    bfs = _find(decisions(comp, ["opencl"]), "iterateInBFS").choices["opencl"].what
    assert "Compute_BFS_bfs_values_6 sets the values" in bfs and "pending" not in bfs
    kept = parents_loop(_searched_bfs(tmp_path)).choices["opencl"]
    assert kept.what == "v.level from a parent's, searched"
    assert kept.why == "src.level is not set to a constant before the BFS"


def test_the_min_says_how_a_worklist_backend_sets_the_flag(sssp):
    comp, found = sssp
    line = next(n for n, text in enumerate(comp.source.splitlines(), 1) if "Min(" in text)
    what = {b: c.what for b, c in _find(found, "Min", line).choices.items()}
    for backend in ("cuda", "opencl", "sycl", "openacc"):
        assert "stamped and queued once in a sparse one" in what[backend], backend
    # MPI keeps every round over all vertices: a plain flag
    assert "the fixedPoint flag" in what["mpi"] and "queued" not in what["mpi"]


def test_a_dynamic_program_shows_its_update_phase_on_every_backend():
    """dsl/dynamic/dyn_sssp.sp (issue 31): each graph update says what the host (MPI: each
    rank) does per batch."""
    comp = _plan(ROOT / "dsl" / "dynamic" / "dyn_sssp.sp")
    found = decisions(comp, ALL)
    lines = comp.source.splitlines()
    delete = next(n for n, text in enumerate(lines, 1) if "updateCSRDel" in text)
    update = _find(found, "graph update", delete)
    for backend in ("cuda", "opencl", "sycl", "openacc"):
        what, why = update.choices[backend].what, update.choices[backend].why
        # rows with slack: only its rows move (CUDA's edges kernels too: they walk the slots
        # in use, each testing its own)
        assert what.startswith("the host applies the batch's deletions to its rows with "
                               "slack in place (starc_slack_rows.hpp): only the rows it "
                               "touches move"), what
        # span moves (the plan's ApplyUpdates.span_moves): the moved spans by records
        moved = "the spans the batch moved are moved from their records" in what
        assert moved == get_backend(backend).capabilities.span_moves, (backend, what)
        # no kernel reads dyn_sssp's rows as sorted (analysis.row_order)
        assert "the rows are left in any order: no kernel reads a row as sorted" in what
        assert "O(k log k + their degrees)" in why, why
        # the input weights: no kernel writes them, so their host copy is current
        assert "edge properties weight carried from the host's copy (nothing on the device " \
               "writes them: no read back)" in what, what
        assert "weight read back" not in what, what
        # the edges' sources: only the GPU variants of OpenCL and SYCL read them, so a CPU
        # device does not refresh them (CUDA's kernels read them on every device)
        gpu_only = "sources refreshed on a GPU device only" in what
        assert gpu_only == (backend in ("opencl", "sycl")), (backend, what)
        assert gpu_only == ("only the kernels' variants for a GPU read sources" in why)
    # MPI: each rank changes its own rows and lays its part out again
    assert update.choices["mpi"].what.startswith("each rank applies the batch's deletions to "
                                                 "the rows it owns"), update.choices["mpi"]
    assert "ghosts that new edges reach added" in update.choices["mpi"].why
    on_delete = next(n for n, text in enumerate(lines, 1) if "OnDelete" in text)
    assert any(d.line == on_delete and "one work item per update" in d.choices["opencl"].what
               for d in found), [(d.construct, d.line) for d in found if d.line == on_delete]
    # a loop over the updates has no vertex schedule to speak of (it said "schedule vertex:
    # one item per vertex, its edges in a loop" on CUDA)
    (loop,) = [d for d in found if d.line == on_delete and d.construct == "forall"]
    for backend in ("cuda", "opencl", "sycl", "openacc"):
        assert "schedule" not in loop.choices[backend].what, loop.choices[backend].what
        assert "per vertex" not in loop.choices[backend].what, loop.choices[backend].what


def test_the_lane_model_leaves_out_the_loops_over_updates():
    """dyn_tc's update loops read their endpoints' rows, but their items are updates: the SIMT
    model (per-vertex degrees) has nothing to say about them, so they get no row."""
    comp = _plan(ROOT / "dsl" / "dynamic" / "dyn_tc.sp")
    graph = rmat(6, 8, seed=1)
    rows = kernel_rows(comp.plan, {}, graph)
    assert rows and not any("updates" in row["kernel"] for row in rows), rows


def test_adjacent_graph_updates_say_they_are_one_update_and_why():
    """dsl/dynamic/dyn_tc.sp's updateCSRDel and updateCSRAdd are adjacent: on MPI one update
    (batches.FUSED_WHY), on OpenCL's rows with slack two."""
    comp = _plan(ROOT / "dsl" / "dynamic" / "dyn_tc.sp")
    found = decisions(comp, ["mpi", "opencl"])
    lines = comp.source.splitlines()
    for method, other in (("updateCSRDel", "additions"), ("updateCSRAdd", "deletions")):
        line = next(n for n, text in enumerate(lines, 1) if method in text)
        update = _find(found, "graph update", line)
        mpi = update.choices["mpi"]
        assert f"one update with the batch's {other}, applied deletions first" in mpi.what
        assert mpi.why == FUSED_WHY
        assert "one update" not in update.choices["opencl"].what


def test_opencl_says_both_schedules_of_a_kernel_with_a_gpu_variant(pagerank):
    """pr's pull loop on OpenCL: binned on a GPU device, one item per vertex elsewhere, each
    with its reason and how the program picks (specialize.lockstep_variants)."""
    _, found = pagerank
    opencl = _find(found, "forall", 13).choices["opencl"]
    assert "; on a GPU device: schedule binned, as Compute_PR_forall_13_lockstep: " in opencl.what
    assert "; on other devices: schedule vertex: one item per vertex" in opencl.what
    assert "; on a GPU device: the loop folds its edges into 'sum': a vertex of degree" \
        in opencl.why
    assert "; on other devices: one work item per vertex: the loop folds" in opencl.why
    assert "CL_DEVICE_TYPE" in opencl.why and "STARC_OPENCL_LOCKSTEP=1 or 0" in opencl.why
    assert "on a GPU device" not in _find(found, "forall", 13).choices["cuda"].what


def test_a_union_find_in_the_loops_place_says_which_kernels_and_why():
    """cc.sp's propagation (analysis/union_find.py): on the backends that splice the
    union-find, explain names its four kernels in order and what they do; MPI names its
    runtime's least labels and why."""
    fixed = _find(decisions(_plan(ROOT / "dsl" / "cc.sp"), ALL), "fixedPoint")
    sampled = ("sample", "choose", "link")
    named = {"opencl": sampled + ("link_every",), "sycl": sampled + ("link_every",),
             "cuda": ("link_every",), "openacc": sampled}
    for backend, order in named.items():
        choice = fixed.choices[backend]
        kernels = ", ".join(f"Compute_CC_forall_12_{k}" for k in order + ("label",))
        assert choice.what.startswith(f"no rounds: a union-find in the loop's place ({kernels}:")
        assert ("links its first out-neighbour's tree" in choice.what) == (backend != "cuda")
        assert ("every out-edge links its two trees" in choice.what) == (backend != "openacc")
        assert "each vertex's label its root" in choice.what
        assert "one pass of a union-find" in choice.why
    mpi = fixed.choices["mpi"]
    assert mpi.what.startswith("no rounds: the runtime's least labels in the loop's place "
                               "(starc_mpi::least_component_labels:")
    assert "the ranks agree on the hub's tree's least label" in mpi.why


def test_a_dense_round_that_skips_pushed_vertices_says_so(tmp_path):
    """cc's dense rounds (kept as rounds: tests/label_rounds.py) on OpenCL and SYCL skip what
    they already pushed (pushed_values): explain says so there, and not where the kernel also
    runs on a GPU or by supersteps."""
    comp = _plan(write_cc_in_rounds(tmp_path))
    fixed = _find(decisions(comp, ALL), "fixedPoint")
    for backend in ("opencl", "sycl"):
        assert "skips a flagged vertex whose values are those it last ran with (it made " \
            "every push" in fixed.choices[backend].what, backend
    for backend in ("cuda", "openacc", "mpi"):
        assert "skips a flagged vertex" not in fixed.choices[backend].what, backend


def test_bfs_on_mpi_says_each_rank_walks_its_own_queue():
    comp = _plan(ROOT / "dsl" / "bfs.sp")
    choices = _find(decisions(comp, ["opencl", "mpi"]), "iterateInBFS").choices
    mpi, opencl = choices["mpi"].what, choices["opencl"].what
    assert "over each rank's queue of its own reached vertices" in mpi
    assert "the owner appends the vertex where it wins" in mpi
    assert "each rank's queue" not in opencl and "an order of the reached vertices" in opencl
