"""OpenACC's binned schedule: a `parallel loop gang` per vertex whose neighbour loops are
`#pragma acc loop vector` (a `reduction` clause per fold), and what auto keeps on the host."""

from __future__ import annotations

import functools
import pathlib
import subprocess

import pytest

from starc.backends.base import BackendOptions
from starc.backends.openacc import toolchain
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

from label_rounds import cc_in_rounds

pytestmark = pytest.mark.openacc

DSL = pathlib.Path(__file__).resolve().parents[3] / "dsl"
OFFLOADS, WHY_NOT = toolchain.nvptx_offload("g++")


@functools.lru_cache(maxsize=None)
def _compiled(program: str, schedule=None):
    """``program`` from dsl/, or ``cc_in_rounds`` (tests/label_rounds.py), for OpenACC."""
    sink = DiagnosticSink()
    path = DSL / f"{program}.sp"
    text = cc_in_rounds() if program == "cc_in_rounds" else path.read_text()
    comp = compile_source(text, str(path), sink, backend="openacc",
                          options=BackendOptions(schedule=schedule))
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp


def _kernel(program: str, name: str, schedule="binned") -> str:
    text = _compiled(program, schedule).generated.files[f"{program}.cpp"]
    head = text.index(f"static void {name}(")
    return text[head:text.index("\n}\n", head) + 3]


def test_golden_pr_pull_is_a_vector_loop_with_a_reduction_clause():
    kernel = _kernel("pr", "Compute_PR_forall_13")
    assert kernel[kernel.index("    float diff_sum"):] == """\
    float diff_sum = 0;
#pragma acc parallel loop gang present(rev_offsets[0:n + 1], rev_sources[0:m], pageRank[0:n], \\
        pageRank_nxt[0:n], diff_dev[0:1], pageRank_term[0:n]) reduction(+:diff_sum)
    for (int v = 0; v < n; v++) {
        float sum = 0.0f;
        #pragma acc loop vector reduction(+:sum)
        for (int nbr_in = rev_offsets[v]; nbr_in < rev_offsets[v + 1]; nbr_in++) {
            int nbr = rev_sources[nbr_in];
            sum = sum + pageRank_term[nbr];
        }
        float val = (1.0f - delta) / numNodes + delta * sum;
        if (val > pageRank[v]) {
            diff_sum += val - pageRank[v];  // pr.sp:20
        } else {
            diff_sum += pageRank[v] - val;  // pr.sp:22
        }
        pageRank_nxt[v] = val;
    }
#pragma acc parallel num_gangs(1) present(diff_dev[0:1])
    {
        diff_dev[0] += diff_sum;
    }
}
"""


def test_bc_reverse_sweep_folds_into_a_local_under_a_reduction_clause():
    kernel = _kernel("bc", "Compute_BC_bfs_rev_17")
    assert "#pragma acc parallel loop gang present(" in kernel
    lines = [line.strip() for line in kernel.splitlines()]
    at = lines.index("#pragma acc loop vector reduction(+:delta_fold)")
    assert lines[at - 1] == "double delta_fold = 0.0;" and lines[at + 1].startswith("for (")
    assert any(line.endswith("+ delta_fold;") for line in lines[at:])


def test_push_loops_are_vector_loops_without_a_clause():
    """cc's round (kept as rounds: tests/label_rounds.py) pushes over out- then in-edges: each
    loop its own `loop vector`; tc's count (the gang loop's reduction) gets the clause on the
    vector loop too, right above it."""
    [dense] = [k for k in _compiled("cc_in_rounds", "binned").specialized.kernels
               if k.name.endswith("_dense")]
    assert [v.var for v in dense.vector_loops] == [s.var for s in dense.body.stmts]
    kernel = _kernel("cc_in_rounds", dense.name)
    assert kernel.count("#pragma acc loop vector\n") == 2
    tc = [line.strip() for line in _kernel("tc", "Compute_TC_forall_6").splitlines()]
    at = tc.index("#pragma acc loop vector reduction(+:triangle_count_sum)")
    assert tc[at + 1].startswith("for (int e_u = offsets[v]; e_u < u_stop;")


def test_auto_keeps_one_lane_per_vertex_and_says_how_binned_differs():
    """g++ -fopenacc without offload runs on the CPU: auto keeps the vertex schedule."""
    comp = _compiled("pr")
    assert not any(k.vector_loops for k in comp.specialized.kernels)
    text = comp.generated.files["pr.cpp"]
    assert "#pragma acc loop vector" not in text and "parallel loop gang vector" in text
    [pull] = [k for k in comp.specialized.kernels if k.name == "Compute_PR_forall_13"]
    assert "--schedule binned spreads each vertex's edges over its gang's vector lanes" \
        in pull.schedule_why


def test_a_loop_no_gang_may_share_falls_back_with_the_reason():
    """bfs's bottom-up step only searches (it stops at the first parent): one lane per vertex,
    and why; its forward step's push loop, with the step's counts, is a vector loop."""
    comp = _compiled("bfs", "binned")
    kernels = {k.name: k for k in comp.specialized.kernels}
    up, forward = kernels["Compute_BFS_bfs_up_6"], kernels["Compute_BFS_bfs_fwd_6"]
    assert not up.vector_loops and up.schedule == "vertex"
    assert up.schedule_why.startswith("--schedule binned asked, but its loops only search")
    assert up.schedule_why.endswith(": one work item per vertex")
    assert forward.vector_loops
    text = comp.generated.files["bfs.cpp"]
    # the step over every vertex, up to the next function (the bottom-up step): one vector
    # loop, the push loop (the queue's kernels have their own: bfs_queue.py)
    step = text[text.index("static void Compute_BFS_bfs_fwd_6("):
                text.index("static void Compute_BFS_bfs_up_6(")]
    assert step.count("#pragma acc loop vector") == 1
    assert "#pragma acc loop vector reduction(+:bfs_awake_sum) reduction(+:bfs_scout_sum)" in step


@pytest.mark.skipif(not OFFLOADS, reason=f"g++ {WHY_NOT}")
@pytest.mark.parametrize("program", ("pr", "bc", "cc", "tc"))
def test_the_offload_compiler_assigns_vector_parallelism(program, tmp_path):
    """g++'s nvptx offload build takes the gang loop and the vector loops as printed."""
    for name, text in _compiled(program, "binned").generated.files.items():
        (tmp_path / name).write_text(text)
    command = toolchain.build_command(program, target="nvptx") + ["-fopt-info-optimized-omp"]
    built = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    source = (tmp_path / f"{program}.cpp").read_text().splitlines()
    vector_lines = [n for n, line in enumerate(source, 1) if "#pragma acc loop vector" in line]
    notes = {line.split(": optimized: ")[0].rsplit(":", 1)[0]: line.split(": optimized: ")[1]
             for line in built.stderr.splitlines() if ": optimized: " in line}
    assert vector_lines
    for number in vector_lines:      # the note names the directive's line
        assert notes.get(f"{program}.cpp:{number}") == \
            "assigned OpenACC vector loop parallelism", built.stderr
    assert "assigned OpenACC gang loop parallelism" in notes.values()
