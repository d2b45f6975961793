"""CUDA worklist appends aggregated per warp (issue 29 item 2): the plan's decision, the printed
call, the prelude helper's lane arithmetic run on the host against a sequential oracle, and
(with a GPU) results against the reference where the worklist rounds run."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

import starc
from cuda_helpers import DSL, between, compile_path, main_text
from starc.backends.cuda.kernels import runtime_header
from starc.results import compare_results

pytestmark = pytest.mark.cuda


def test_golden_sssp_worklist_appends_one_atomic_per_warp():
    text = main_text(DSL / "sssp.sp", schedule="vertex")
    build = between(text, "__global__ void modified_frontier_build(", "\n}\n")
    assert build.endswith("""\
    if (!modified[v]) return;
    modified_frontier[starc_warp_append(&modified_frontier_size[frontier_round % 2])] = v;  // sssp.sp:10""")
    sparse = between(text, "__global__ void Compute_SSSP_forall_11_sparse(", "\n}\n")
    assert "modified_frontier_nxt[starc_warp_append(" \
        "&modified_frontier_size[frontier_round % 2])] = nbr;" in sparse
    # no append or count is one atomic per thread any more
    assert "starc_atomic_add_int(" not in text
    dense = between(text, "__global__ void Compute_SSSP_forall_11_dense(", "\n}\n")
    assert "starc_warp_count(&modified_frontier_size[frontier_round % 2]);" in dense
    header = compile_path(DSL / "sssp.sp", "vertex").generated.files["starc_cuda.cuh"]
    assert "__device__ inline int starc_warp_append(int* length) {" in header


def test_the_helper_is_only_in_programs_that_append():
    header = compile_path(DSL / "pr.sp").generated.files["starc_cuda.cuh"]
    assert "starc_warp_append(int* length)" not in header


#: the host stand-ins for the intrinsics the helper calls: each lane a thread, a shuffle a
#: barrier among the lanes of its mask, every atomicAdd counted
_EMULATION = r"""
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct WarpCall { unsigned active; std::barrier<>* sync; int values[32]; };
thread_local WarpCall* current;
thread_local int lane;
std::atomic<int> atomics{0};

unsigned __activemask() { return current->active; }
int __popc(unsigned x) { return __builtin_popcount(x); }
int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
unsigned starc_lanes_below() { return (1u << lane) - 1u; }
int atomicAdd(int* p, int v) { ++atomics; return std::atomic_ref<int>(*p).fetch_add(v); }
int __shfl_sync(unsigned mask, int value, int source) {
  if (mask != current->active || !(mask >> source & 1u)) std::abort();
  current->values[lane] = value;
  current->sync->arrive_and_wait();
  int got = current->values[source];
  current->sync->arrive_and_wait();
  return got;
}
#define __device__

HELPER

int main() {
  std::vector<unsigned> masks;
  unsigned mask;
  while (std::scanf("%x", &mask) == 1) masks.push_back(mask);
  int length = 0, counted = 0;
  std::vector<WarpCall> calls(masks.size());
  std::vector<std::barrier<>*> syncs;
  std::vector<int> slots(masks.size() * 32, -1);
  std::vector<std::thread> lanes;
  for (size_t k = 0; k < masks.size(); ++k) {   // every warp's call at once: they race
    calls[k].active = masks[k];
    calls[k].sync = new std::barrier<>(__builtin_popcount(masks[k]));
    for (int l = 0; l < 32; ++l)
      if (masks[k] >> l & 1u)
        lanes.emplace_back([&, k, l] {
          current = &calls[k];
          lane = l;
          slots[k * 32 + l] = starc_warp_append(&length);
          starc_warp_count(&counted);
        });
  }
  for (auto& t : lanes) t.join();
  std::printf("%d %d %d\n", length, counted, atomics.load());
  for (size_t k = 0; k < masks.size(); ++k)
    for (int l = 0; l < 32; ++l)
      if (masks[k] >> l & 1u) std::printf("%zu %d %d\n", k, l, slots[k * 32 + l]);
}
"""


def _helper_text() -> str:
    """The prelude's two helpers, as printed (their intrinsics left to the emulation)."""
    header = runtime_header({"group_append"})
    return "\n".join(between(header, f"__device__ inline {head}(", "\n}\n") + "\n}\n"
                     for head in ("int starc_warp_append", "void starc_warp_count"))


def test_warp_append_slots_match_a_sequential_oracle(tmp_path):
    """The prelude's own starc_warp_append, its intrinsics emulated by host threads: warps with
    divergent masks appending at once get distinct, gap-free slots, contiguous per warp in
    lane order, with one atomic per warp; starc_warp_count adds one per thread, likewise."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    source = tmp_path / "append.cpp"
    source.write_text(_EMULATION.replace("HELPER", _helper_text()))
    binary = tmp_path / "append"
    subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-Wall", "-Werror",
                    "-o", str(binary), str(source)], check=True, capture_output=True, text=True)
    rng = random.Random(29)
    masks = [0xFFFFFFFF, 0x1, 0x80000000, 0xAAAAAAAA, 0x0000F00F] + \
        [rng.getrandbits(32) or 1 for _ in range(11)]
    proc = subprocess.run([str(binary)], input=" ".join(f"{m:x}" for m in masks),
                          capture_output=True, text=True, timeout=60, check=True)
    first, *rows = proc.stdout.splitlines()
    length, counted, atomics = map(int, first.split())
    got = {}
    for row in rows:
        k, lane, slot = map(int, row.split())
        got.setdefault(k, {})[lane] = slot
    # the oracle: each warp's active lanes, in lane order, take a run of consecutive slots;
    # the runs of all warps tile 0..total-1
    total = sum(bin(m).count("1") for m in masks)
    assert length == total and counted == total and atomics == 2 * len(masks)
    assert sorted(s for lanes in got.values() for s in lanes.values()) == list(range(total))
    for k, mask in enumerate(masks):
        active = [lane for lane in range(32) if mask >> lane & 1]
        base = got[k][active[0]]
        assert [got[k][lane] for lane in active] == list(range(base, base + len(active)))


def _random_graph(path, nodes=3000, edges=9000, seed=29):
    """A sparse random weighted graph: a round from one source starts with one active vertex
    (a worklist round, under n/20), grows past n/20 (dense) and thins out again."""
    rng = random.Random(seed)
    lines = [f"{i} {i + 1} {rng.randint(1, 9)}" for i in range(0, nodes - 1, 7)]
    lines += [f"{rng.randrange(nodes)} {rng.randrange(nodes)} {rng.randint(1, 9)}"
              for _ in range(edges)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.gpu
@pytest.mark.parametrize("name, params", [("sssp", {"src": "0"}), ("bfs", {"src": "0"}),
                                          ("cc", {})])
def test_worklist_results_match_the_reference(name, params, tmp_path):
    graph = _random_graph(tmp_path / "random.el")
    path = str(DSL / f"{name}.sp")
    expected = starc.compile(path, "reference").run(graph, **params)
    actual = starc.compile(path, "cuda").run(graph, **params)
    problems = compare_results(expected, actual)
    assert not problems, "\n".join(problems)
