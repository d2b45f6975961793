"""OpenACC generation: no data movement inside loops in any generated program, and golden text
of a reduction, a Min and the data region."""

from __future__ import annotations

import functools
import pathlib
import re
from typing import List, Tuple

import pytest

from starc.backends import get_backend
from starc.backends.common import atomic_helpers
from starc.backends.openacc.kernels import runtime_header
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source

pytestmark = pytest.mark.openacc

ROOT = pathlib.Path(__file__).resolve().parents[3]
DSL = ROOT / "dsl"
#: every DSL program of the repository: the dsl/ programs and those written for tests
SOURCES = sorted(DSL.glob("*.sp")) + sorted((ROOT / "tests").glob("**/programs/*.sp"))

#: a directive that moves data or changes what is present on the device
_DATA_DIRECTIVE = re.compile(r"#pragma acc\b.*\b(enter data|exit data|data|copy|copyin|copyout"
                             r"|create|delete|attach|detach)\b")
#: an update directive and its array sections: ``update self(a[i:1], b[0:n])``
_UPDATE = re.compile(r"#pragma acc update \w+\((.*)\)")
_SECTION = re.compile(r"\w+\[([^\]:]+):([^\]]+)\]")
#: a scalar pack's block: its section is a constant count of slots from 0
_SCALAR_PACK = re.compile(r"\bd_scalars\d*\[0:\d+\]")
_LOOP_HEAD = re.compile(r"^(\}\s*)?(for|while|do)\b")
# The --trials loop around the timed span repeats the whole algorithm, per-run data included:
# not a loop of the program's host code.
_TRIALS_LOOP = re.compile(r"for \(int \w+ = 0; \w+ < cl\.trials; ")


@functools.lru_cache(maxsize=None)
def generated(path: pathlib.Path) -> str:
    sink = DiagnosticSink()
    comp = compile_source(path.read_text(), str(path), sink, backend="openacc")
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    return comp.generated.files[comp.generated.main]


def moves_inside_loops(text: str) -> List[Tuple[int, str]]:
    """(line number, line) of every data directive or whole-array update (a section that is
    not one element, ``[i:1]``) that runs inside a loop of the program's host code."""
    found = []
    loops: List[bool] = []      # one entry per open brace: whether it opened a loop body
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#pragma acc") and any(loops):
            update = _UPDATE.match(stripped)
            if update is not None:
                # a scalar pack's block (a constant few slots, read once a round: issue 29
                # item 3) is not a whole-array move
                moved = _SCALAR_PACK.sub("", update.group(1))
                if any(length.strip() != "1" for _, length in _SECTION.findall(moved)):
                    found.append((number, stripped))
            elif _DATA_DIRECTIVE.search(stripped):
                found.append((number, stripped))
        if stripped.startswith("#"):
            continue
        code = re.sub(r'"(\\.|[^"\\])*"', '""', stripped.split("//")[0])
        for char in code:
            if char == "{":
                loops.append(bool(_LOOP_HEAD.match(code)) and not _TRIALS_LOOP.match(code))
            elif char == "}" and loops:
                loops.pop()
    return found


def test_the_scanner_sees_moves_in_loops_and_allows_single_elements():
    text = "\n".join([
        "int main() {",
        "    #pragma acc enter data create(a[0:n])",
        "    do {  // x.sp:3",
        "        #pragma acc update device(flag[0:1])",
        "        #pragma acc update self(a[v:1])",
        "        if (x) {",
        "            #pragma acc update self(a[0:n])",
        "        }",
        "    } while (starc_read_element(flag, 0) != 0);",
        "    for (int k = 0; k < 3; k++) {",
        "        #pragma acc enter data copyin(b[0:m])",
        "    }",
        "    #pragma acc update self(a[0:n])",
        "    for (int trial = 0; trial < cl.trials; ++trial) {",   # repeats the whole run
        "        #pragma acc enter data create(c[0:n])",
        "        while (x) {",
        "            #pragma acc update self(c[0:n])",
        "        }",
        "    }",
        "}"])
    assert [n for n, _ in moves_inside_loops(text)] == [7, 11, 17]


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_no_data_clause_or_whole_array_update_inside_a_loop(path):
    assert moves_inside_loops(generated(path)) == []


def test_golden_tc_reduction_clause():
    text = generated(DSL / "tc.sp")
    head = text.index("static void Compute_TC_forall_6(")
    kernel = text[head:text.index("\n}\n", head) + 3]
    assert kernel == """\
static void Compute_TC_forall_6(int n,
                                int m,
                                const int* offsets,
                                const int* targets,
                                long long* triangle_count_dev) {
    long long triangle_count_sum = 0;
#pragma acc parallel loop gang vector present(offsets[0:n + 1], targets[0:m], \\
        triangle_count_dev[0:1]) reduction(+:triangle_count_sum)
    for (int v = 0; v < n; v++) {
        int u_stop = starc_lower_bound(targets, offsets[v], offsets[v + 1], v);  // tc.sp:7
        int w_start = starc_upper_bound(targets, offsets[v], offsets[v + 1], v);  // tc.sp:8
        for (int e_u = offsets[v]; e_u < u_stop; e_u++) {
            int u = targets[e_u];
            int w_in_u_end = offsets[u + 1];
            int w_in_u_pos = starc_upper_bound(targets, offsets[u], w_in_u_end, v);  // tc.sp:9
            const int w_in_u_linear = starc_merge_linear(w_in_u_pos, w_in_u_end, offsets[v + 1] - w_start);
            for (int e_w = w_start; e_w < offsets[v + 1] && w_in_u_pos < w_in_u_end; e_w++) {
                int w = targets[e_w];
                starc_advance(targets, &w_in_u_pos, w_in_u_end, w, w_in_u_linear);
                if (w_in_u_pos == w_in_u_end) break;
                if (targets[w_in_u_pos] == w) {
                    triangle_count_sum += 1LL;  // tc.sp:10
                }
            }
        }
    }
#pragma acc parallel num_gangs(1) present(triangle_count_dev[0:1])
    {
        triangle_count_dev[0] += triangle_count_sum;
    }
}
"""


def test_golden_sssp_min_is_a_compare_and_swap_loop():
    """With GCC's builtins; nvc++ takes CUDA's atomicMin (test_openacc_nvidia_atomics)."""
    text = generated(DSL / "sssp.sp")
    assert "if (dist_new < dist[nbr] && starc_atomic_min_int(&dist[nbr], dist_new) > dist_new) {"\
        "  // sssp.sp:14" in text
    prelude = runtime_header({"atomic_min_int"})
    head = prelude.index("#pragma acc routine seq\ninline int starc_atomic_min_int(")
    assert prelude[head:prelude.index("\n}\n", head) + 3] == """\
#pragma acc routine seq
inline int starc_atomic_min_int(int* p, int v) {
#if !defined(STARC_OPENACC_CUDA_ATOMICS)
  int old = *p;
  while (v < old && !starc_compare_exchange_int(p, &old, v)) {
  }
  return old;
#else
  return atomicMin(p, v);
#endif
}
"""
    assert "__atomic_compare_exchange(p, expected, &desired" in prelude


def test_no_min_or_max_is_ever_an_atomic_write():
    prelude = runtime_header()      # every helper family
    assert "atomic write" not in prelude
    for family in atomic_helpers.families(get_backend("openacc").atomics):
        for helper in family.helpers:
            if helper.op in ("min", "max"):
                assert helper.loops, helper.name
            else:   # + - * & |: the OpenACC atomic construct, capturing the old value
                assert helper.native.pragma == "#pragma acc atomic capture", helper.name
                assert helper.update_pragma == "#pragma acc atomic update", helper.name


def test_golden_sssp_data_region():
    text = generated(DSL / "sssp.sp")
    # The graph and its weights go to the device before the clock starts (the --time
    # contract); the per-run arrays are allocated inside the timed span, in every trial.
    head = text.index("        int* d_weight = nullptr;")
    assert text[head:text.index("            starc_timer.stop();", head)] == """\
        int* d_weight = nullptr;
        d_weight = new int[std::max(g.num_edges, 1)];
        #pragma acc enter data create(d_weight[0:std::max(g.num_edges, 1)])
        std::copy(h_weight.data(), h_weight.data() + g.num_edges, d_weight);
        #pragma acc update device(d_weight[0:g.num_edges])

        // Timed (the --time contract, docs/architecture.md): the algorithm, from the graph resident
        // and the kernels ready to the results back in host memory; --trials N runs it N times
        // (as GAPBS's -n), one starc-time line each, and keeps the last run's results.
        for (int trial = 0; trial < cl.trials; ++trial) {
            int* d_dist = nullptr;
            d_dist = new int[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_dist[0:std::max(g.num_nodes, 1)])
            unsigned char* d_modified = nullptr;
            d_modified = new unsigned char[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_modified[0:std::max(g.num_nodes, 1)])
            unsigned char* d_modified_nxt = nullptr;
            d_modified_nxt = new unsigned char[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_modified_nxt[0:std::max(g.num_nodes, 1)])
            int* d_modified_frontier = nullptr;
            d_modified_frontier = new int[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_modified_frontier[0:std::max(g.num_nodes, 1)])
            int* d_modified_frontier_nxt = nullptr;
            d_modified_frontier_nxt = new int[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_modified_frontier_nxt[0:std::max(g.num_nodes, 1)])
            int* d_modified_queued = nullptr;
            d_modified_queued = new int[std::max(g.num_nodes, 1)];
            #pragma acc enter data create(d_modified_queued[0:std::max(g.num_nodes, 1)])
            int* d_modified_frontier_size = nullptr;
            d_modified_frontier_size = new int[2];
            #pragma acc enter data create(d_modified_frontier_size[0:2])
            int* d_modified_window = nullptr;
            d_modified_window = new int[3];
            #pragma acc enter data create(d_modified_window[0:3])
            starc::Timer starc_timer;
            starc_timer.start();
            starc_fill(d_dist, INT_MAX, g.num_nodes);
            starc_fill(d_modified, false, g.num_nodes);
            d_modified[src] = true;
            #pragma acc update device(d_modified[src:1])
            d_dist[src] = 0;
            #pragma acc update device(d_dist[src:1])
            starc_fill(d_modified_queued, -1, g.num_nodes);
            starc_fill(d_modified_frontier_size, 0, 2);
            int frontier_round = 0;  // sssp.sp:10
            d_modified_frontier[0] = src;
            #pragma acc update device(d_modified_frontier[0:1])
            int frontier_count = 1;  // sssp.sp:10
            starc_fill(d_modified_nxt, false, g.num_nodes);
            int window_delta = starc::window_delta(h_weight, g.num_edges, g.num_nodes, 8);  // sssp.sp:10
            starc_fill(d_modified_window, INT_MAX, 3);
            do {  // sssp.sp:10
                frontier_round += 1;
                if (frontier_count > g.num_nodes / 20) {  // sssp.sp:10
                    d_modified_frontier_size[1 - frontier_round % 2] = 0;
                    #pragma acc update device(d_modified_frontier_size[1 - frontier_round % 2:1])
                    starc_fill(d_modified_window, INT_MAX, 3);
                    Compute_SSSP_forall_11_dense(g.num_nodes, g.num_edges, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier_size, frontier_round);
                } else {
                    Compute_SSSP_forall_11_sparse(g.num_nodes, g.num_edges, frontier_count, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier, d_modified_frontier_nxt, d_modified_queued, d_modified_frontier_size, d_modified_window, frontier_round, window_delta);
                }
                std::swap(d_modified, d_modified_nxt);
                std::swap(d_modified_frontier, d_modified_frontier_nxt);
                if (frontier_count > g.num_nodes / 20) {  // sssp.sp:10
                    starc_fill(d_modified_nxt, false, g.num_nodes);
                    frontier_count = starc_read_element(d_modified_frontier_size, frontier_round % 2);
                    if (frontier_count != 0 && frontier_count <= g.num_nodes / 20) {  // sssp.sp:10
                        frontier_round += 1;
                        d_modified_frontier_size[1 - frontier_round % 2] = 0;
                        #pragma acc update device(d_modified_frontier_size[1 - frontier_round % 2:1])
                        modified_frontier_build(g.num_nodes, d_modified, d_modified_frontier, d_modified_frontier_size, frontier_round);
                        frontier_count = starc_read_element(d_modified_frontier_size, frontier_round % 2);
                    }
                } else {
                    frontier_count = starc_read_element(d_modified_frontier_size, frontier_round % 2);
                }
            } while (frontier_count != 0);
            #pragma acc update self(d_dist[0:g.num_nodes])
            std::copy(d_dist, d_dist + g.num_nodes, h_dist.data());
"""
    tail = text[text.index("            starc_timer.stop();"):]
    assert "#pragma acc exit data delete(d_dist[0:std::max(g.num_nodes, 1)])\n" \
           "            delete[] d_dist;" in tail
