"""The cost of applying a batch of edge updates in a generated program (issue 31): merging a
batch's deletions and additions into the CSR (runtime/starc_updates.hpp) against building the
CSR from scratch from the same edges, both in one process, on an R-MAT graph.

    python bench/updates_apply.py [--scale 18] [--share 0.001] [--repeat 5] [--slack]
                                  [--unsorted] [--reverse-ids]

Prints the median of each and their ratio (the goal: a batch of 0.1% of the edges costs at
most 1/10 of a build), in wall-clock time and in the thread's CPU time (steadier on a shared
machine)."""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starc.backends.common.runtime_paths import RUNTIME_DIR  # noqa: E402
from starc.graphs import rmat, write_edge_list  # noqa: E402
from starc.graphs.updates import generate_updates, write_updates  # noqa: E402

DRIVER = r"""
#include "starc_runtime.hpp"
#include "starc_updates.hpp"
#include "starc_slack_rows.hpp"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <time.h>
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// the thread's CPU time: on a shared machine, what the step costs without the waits for a core
static double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main(int, char** argv) {
  starc::Graph g = starc::read_graph(argv[1], false);
  starc::UpdateStream s = starc::read_updates(argv[2], g.num_nodes);
  int repeat = std::atoi(argv[3]);
  bool keep_ids = std::atoi(argv[4]) != 0;   // the reverse CSR's edge ids
  bool slack = std::atoi(argv[5]) != 0;      // rows with slack (starc_slack_rows.hpp)
  bool sorted = std::atoi(argv[6]) != 0;     // slack rows kept sorted (else in any order)
  std::vector<double> build, apply, build_cpu, apply_cpu;
  for (int r = 0; r < repeat; ++r) {
    starc::detail::EdgeList edges;   // the graph's edges, as a reader leaves them
    edges.num_nodes = g.num_nodes;
    edges.src = g.sources;
    edges.dst = g.targets;
    edges.weights = g.weights;
    edges.has_weights = g.has_weights;
    double t0 = now(), c0 = cpu_now();
    starc::Graph fresh = starc::detail::build_csr(std::move(edges), g.path);
    build.push_back(now() - t0);
    build_cpu.push_back(cpu_now() - c0);
    starc::BatchPart gone = starc::batch_part(s, 0, s.line_count(), 'd');
    starc::BatchPart added = starc::batch_part(s, 0, s.line_count(), 'a');
    if (slack) {   // laid out once, as a program does before its first batch; an edge
                   // property carried and the changed slots to upload listed, as a program does
      starc::SlackRows rows;
      std::vector<double> property = fresh.weights;
      starc::make_slack_rows(fresh, rows, keep_ids, sorted).carry(property);
      t0 = now();
      c0 = cpu_now();
      starc::SlackChange deletion = starc::delete_edges(fresh, rows, gone.src, gone.dst);
      deletion.forward.carry(property);
      size_t changed = deletion.forward.slots().size() + deletion.reverse.slots().size();
      starc::SlackChange addition = starc::add_edges(fresh, rows, added.src, added.dst, added.weights);
      addition.forward.carry(property);
      changed += addition.forward.slots().size() + addition.reverse.slots().size();
      if (changed == 0) std::printf("no change?\n");
    } else {
      t0 = now();
      c0 = cpu_now();
      starc::delete_edges(fresh, gone.src, gone.dst, keep_ids);
      starc::add_edges(fresh, added.src, added.dst, added.weights, keep_ids);
    }
    apply.push_back(now() - t0);
    apply_cpu.push_back(cpu_now() - c0);
  }
  std::printf("%d %d %zu %.6f %.6f %.6f %.6f\n", g.num_nodes, g.num_edges, s.size(), median(build),
              median(apply), median(build_cpu), median(apply_cpu));
}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--share", type=float, default=0.001,
                        help="updates per edge in the batch (half deletions, half additions)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reverse-ids", action="store_true",
                        help="keep the reverse CSR's edge ids (a program whose device reads "
                             "them: dyn_sssp's Decremental)")
    parser.add_argument("--slack", action="store_true",
                        help="apply the batch to rows with slack (starc_slack_rows.hpp), an "
                             "edge property carried and the changed slots to upload listed")
    parser.add_argument("--unsorted", action="store_true",
                        help="with --slack: rows in any order (SlackRows::sorted false, which "
                             "keeps the reverse edge ids whatever --reverse-ids says)")
    args = parser.parse_args()
    gxx = shutil.which("g++")
    if gxx is None:
        sys.exit("g++ not found")
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        graph = rmat(args.scale, seed=1, weights=True)
        write_edge_list(graph, folder / "g.el")
        count = max(2, int(graph.num_edges * args.share))
        write_updates(folder / "u.txt", generate_updates(graph, count, seed=2, weights=True))
        (folder / "apply.cpp").write_text(DRIVER)
        subprocess.run([gxx, "-std=c++17", "-O3", "-march=native", f"-I{RUNTIME_DIR}", "-o",
                        str(folder / "apply"), str(folder / "apply.cpp")], check=True)
        out = subprocess.run([str(folder / "apply"), str(folder / "g.el"), str(folder / "u.txt"),
                              str(args.repeat), "1" if args.reverse_ids else "0",
                              "1" if args.slack else "0", "0" if args.unsorted else "1"],
                             capture_output=True, text=True, check=True)
        n, m, k, build, apply, build_cpu, apply_cpu = out.stdout.split()
        print(f"R-MAT {args.scale}: {n} vertices, {m} edges; a batch of {k} updates "
              f"({float(k) / int(m):.2%} of the edges, half deletions)")
        print(f"build the CSR from the edges: {float(build) * 1e3:.1f} ms (median of "
              f"{args.repeat})")
        where = ("slack rows in any order" if args.unsorted else "slack rows") if args.slack \
            else "the CSR"
        print(f"apply the batch to {where}: {float(apply) * 1e3:.1f} ms")
        print(f"apply / build: {float(apply) / float(build):.3f}")
        print(f"CPU time (the thread's): build {float(build_cpu) * 1e3:.1f} ms, apply "
              f"{float(apply_cpu) * 1e3:.1f} ms, apply / build "
              f"{float(apply_cpu) / float(build_cpu):.3f}")


if __name__ == "__main__":
    main()
