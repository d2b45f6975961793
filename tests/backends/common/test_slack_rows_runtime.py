"""Rows with slack (``runtime/starc_slack_rows.hpp``): batches applied to a graph laid out in
slack rows give, read row by row, the graph starc/graphs/updates.py (the reference executor's)
gives, with edge properties carried to the new slots and the reverse edge ids pointing at the
right slots; on multigraphs with self-loops, duplicate additions, deletions of missing edges,
rows that outgrow their room and slot spaces that run out (re-laid out); and a device copy
refreshed from the move records (``SlotChange::move_records``) plus the other written slots
equals the host's slots after every change."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from starc.backends.common.runtime_paths import RUNTIME_DIR
from starc.graphs import rmat, write_edge_list
from starc.graphs.updates import generate_updates, write_updates
from test_updates_runtime import (GXX, _expected, _parsed, edges_strategy, update_strategy,
                                  write_example)

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ not found")

DRIVER = r"""
#include "starc_runtime.hpp"
#include "starc_slack_rows.hpp"
#include <cstdio>
#include <algorithm>
#include <cstring>
static void ints(const char* name, const std::vector<int>& a) {
  std::printf("%s", name);
  for (int x : a) std::printf(" %d", x);
  std::printf("\n");
}
template <class T>
static std::vector<T> compacted(const std::vector<T>& a, const std::vector<int>& starts, const std::vector<int>& ends) {
  std::vector<T> out;
  for (size_t v = 0; v < ends.size(); ++v)
    for (int e = starts[v]; e < ends[v]; ++e) out.push_back(a[static_cast<size_t>(e)]);
  return out;
}
// Each row's slots in the reference's order: by key, then by `order` (an input edge's id, an
// added edge's place after every input edge in update order), so that rows left in any
// order (`SlackRows::sorted` false) read as the sorted ones; `keys` the row's key per slot.
static std::vector<int> canonical_slots(const std::vector<int>& starts, const std::vector<int>& ends,
                                        const std::vector<int>& keys, const std::vector<long long>& order) {
  std::vector<int> out;
  for (size_t v = 0; v < ends.size(); ++v) {
    size_t first = out.size();
    for (int e = starts[v]; e < ends[v]; ++e) out.push_back(e);
    std::sort(out.begin() + static_cast<long>(first), out.end(), [&](int a, int b) {
      size_t x = static_cast<size_t>(a), y = static_cast<size_t>(b);
      return keys[x] != keys[y] ? keys[x] < keys[y] : order[x] < order[y];
    });
  }
  return out;
}
template <class T>
static std::vector<T> at(const std::vector<T>& a, const std::vector<int>& slots) {
  std::vector<T> out;
  for (int e : slots) out.push_back(a[static_cast<size_t>(e)]);
  return out;
}
static std::vector<int> compact_offsets(const std::vector<int>& starts, const std::vector<int>& ends) {
  std::vector<int> out(1, 0);
  for (size_t v = 0; v < ends.size(); ++v) out.push_back(out.back() + ends[v] - starts[v]);
  return out;
}
// Every slot whose value changed lies in the change's ranges (what a device refresh copies),
// unless the change re-laid every row out (a whole refresh).
template <class T>
static bool covered(const std::vector<T>& before, const std::vector<T>& after, const starc::SlotChange& change) {
  if (change.whole()) return true;
  std::vector<int> slots = change.slots();
  for (size_t i = 0; i < after.size(); ++i) {
    if (i < before.size() && before[i] == after[i]) continue;
    if (!std::binary_search(slots.begin(), slots.end(), static_cast<int>(i))) return false;
  }
  return true;
}
// A property known only at the slots the moves read (sources(): what a device copy gives
// back), carried, is right at every slot the change wrote (slots(): what it uploads).
static bool sources_suffice(const std::vector<int>& before, const std::vector<int>& carried,
                            const starc::SlotChange& change) {
  if (change.whole()) return true;
  std::vector<int> partial(before.size(), -7);
  for (int slot : change.sources()) partial[static_cast<size_t>(slot)] = before[static_cast<size_t>(slot)];
  change.carry(partial, -1);
  for (int slot : change.slots())
    if (partial[static_cast<size_t>(slot)] != carried[static_cast<size_t>(slot)]) return false;
  return true;
}
// A device copy equal to `before` refreshed as the generated programs do: the move records
// applied from a scratch copy (all spans gathered, then written), then the other written
// slots scattered from the host's values; or, where move_records() refuses, every written
// slot scattered. It must equal the host's `after` at every slot. `moved` counts the
// changes that took the records.
static int device_moves_done = 0, device_moves_refused = 0;
template <class T>
static bool device_moves_agree(const std::vector<T>& before, const std::vector<T>& after,
                               const starc::SlotChange& change) {
  if (change.whole() || after.empty()) return true;   // (an array the graph does not keep)
  std::vector<T> device = before;
  std::vector<int> records, scattered;
  int moved = 0;
  if (change.move_records(records, moved)) {
    std::vector<T> scratch(static_cast<size_t>(moved));
    for (size_t r = 0; r < records.size(); r += 4)
      for (int i = 0; i < records[r + 2]; ++i)
        scratch[static_cast<size_t>(records[r + 3] + i)] = device[static_cast<size_t>(records[r] + i)];
    for (size_t r = 0; r < records.size(); r += 4)
      for (int i = 0; i < records[r + 2]; ++i)
        device[static_cast<size_t>(records[r + 1] + i)] = scratch[static_cast<size_t>(records[r + 3] + i)];
    scattered = change.written_besides_moves();
    device_moves_done += !records.empty();
  } else {
    scattered = change.slots();
    ++device_moves_refused;
  }
  for (int slot : scattered) device[static_cast<size_t>(slot)] = after[static_cast<size_t>(slot)];
  return device == after;
}
static bool all_moved(const starc::Graph& before, const starc::Graph& after, const starc::SlackChange& change) {
  return device_moves_agree(before.targets, after.targets, change.forward) &&
         device_moves_agree(before.sources, after.sources, change.forward) &&
         device_moves_agree(before.weights, after.weights, change.forward) &&
         device_moves_agree(before.rev_sources, after.rev_sources, change.reverse) &&
         device_moves_agree(before.rev_edge_ids, after.rev_edge_ids, change.reverse);
}
// Moves that chain (the second reads what the first wrote; a third writes over the second's
// destination) are refused, and their slots scattered instead; moves apart are kept.
static int chained_moves() {
  starc::SlotChange chain, apart;
  chain.moves = {{0, 4, 4}, {4, 8, 4}};
  apart.moves = {{2, 0, 2}, {5, 3, 3}, {12, 20, 4}};
  starc::SlotChange overwrite;
  overwrite.moves = {{0, 10, 4}, {20, 12, 4}};
  std::vector<int> records;
  int moved = 0;
  if (chain.move_records(records, moved) || !records.empty() || moved != 0) return 11;
  if (overwrite.move_records(records, moved)) return 12;
  if (!apart.move_records(records, moved) || moved != 9 || records.size() != 12 || records[7] != 2) return 13;
  std::vector<int> before(24);
  for (int i = 0; i < 24; ++i) before[static_cast<size_t>(i)] = 100 + i;
  for (const starc::SlotChange* change : {&chain, &apart, &overwrite}) {
    std::vector<int> after = before;
    change->carry(after, -1);
    if (!device_moves_agree(before, after, *change)) return 14;
  }
  std::printf("refused %d\n", device_moves_refused);
  return device_moves_refused == 2 ? 0 : 15;
}
// Device copies of the row starts and ends refreshed as the generated programs do (the rows
// of bound_rows() scattered, the slot count in use written apart) equal the host's.
static bool bounds_agree(const std::vector<int>& starts_before, const std::vector<int>& ends_before,
                         const std::vector<int>& starts, const std::vector<int>& ends, const starc::SlotChange& change) {
  if (change.whole()) return true;
  std::vector<int> device_starts = starts_before, device_ends = ends_before;
  for (int v : change.bound_rows()) {
    device_starts[static_cast<size_t>(v)] = starts[static_cast<size_t>(v)];
    device_ends[static_cast<size_t>(v)] = ends[static_cast<size_t>(v)];
  }
  device_starts.back() = starts.back();
  return device_starts == starts && device_ends == ends;
}
static bool all_bounds(const starc::Graph& before, const starc::SlackRows& rows_before, const starc::Graph& g,
                       const starc::SlackRows& rows, const starc::SlackChange& change) {
  return bounds_agree(before.offsets, rows_before.ends, g.offsets, rows.ends, change.forward) &&
         bounds_agree(before.rev_offsets, rows_before.rev_ends, g.rev_offsets, rows.rev_ends, change.reverse);
}
static bool all_covered(const starc::Graph& before, const starc::Graph& after, const starc::SlackChange& change) {
  return covered(before.targets, after.targets, change.forward) && covered(before.sources, after.sources, change.forward) &&
         covered(before.weights, after.weights, change.forward) &&
         covered(before.rev_sources, after.rev_sources, change.reverse) &&
         covered(before.rev_edge_ids, after.rev_edge_ids, change.reverse);
}
int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "chained") == 0) return chained_moves();
  try {
    bool undirected = std::strcmp(argv[3], "1") == 0;
    starc::Graph g = starc::read_graph(argv[1], undirected);
    starc::UpdateStream s = starc::read_updates(argv[2], g.num_nodes);
    if (undirected) s = starc::symmetrised(s);
    long long size = std::atoll(argv[4]);
    bool keep_ids = argc < 6 || std::strcmp(argv[5], "1") == 0;
    bool sorted = argc < 7 || std::strcmp(argv[6], "1") == 0;
    // edge properties carried through every change: each edge's id in the file's graph (-1
    // for an added one), and a copy of the weights (an added edge: its update's weight)
    std::vector<int> origin(static_cast<size_t>(g.num_edges));
    for (int e = 0; e < g.num_edges; ++e) origin[static_cast<size_t>(e)] = e;
    std::vector<double> weights = g.weights;
    // each edge's place in the reference's order of equal edges (canonical_slots)
    std::vector<long long> order(origin.begin(), origin.end());
    long long next_added = g.num_edges;
    starc::SlackRows rows;
    starc::SlotChange laid = starc::make_slack_rows(g, rows, keep_ids, sorted);
    laid.carry(origin, -1);
    laid.carry(order, -1LL);
    // the slots the deletions moved, against the edges they deleted (both directions)
    long long deletion_moved = 0, deleted = 0;
    if (g.has_weights) laid.carry(weights);
    int relaid = 0, moved_rows = 0;
    for (long long first = 0; first < s.line_count(); first += size) {
      starc::BatchPart gone = starc::batch_part(s, first, first + size, 'd');
      starc::Graph before = g;
      starc::SlackRows rows_before = rows;
      starc::SlackChange deletion = starc::delete_edges(g, rows, gone.src, gone.dst);
      if (!all_bounds(before, rows_before, g, rows, deletion)) return 8;
      deleted += 2LL * (before.num_edges - g.num_edges);
      for (const auto* side : {&deletion.forward, &deletion.reverse})
        for (const auto& m : side->moves) deletion_moved += m.length;
      deletion.forward.carry(order, -1LL);
      if (!all_covered(before, g, deletion)) return 5;
      if (!all_moved(before, g, deletion)) return 7;
      std::vector<int> origin_before = origin;
      deletion.forward.carry(origin, -1);
      if (!sources_suffice(origin_before, origin, deletion.forward)) return 6;
      if (g.has_weights) deletion.forward.carry(weights);
      starc::BatchPart added = starc::batch_part(s, first, first + size, 'a');
      int used = g.offsets.back();
      before = g;
      rows_before = rows;
      starc::SlackChange change = starc::add_edges(g, rows, added.src, added.dst, added.weights);
      if (!all_bounds(before, rows_before, g, rows, change)) return 8;
      if (!all_covered(before, g, change)) return 5;
      if (!all_moved(before, g, change)) return 7;
      relaid += change.forward.whole();
      moved_rows += !change.forward.whole() && g.offsets.back() > used;
      origin_before = origin;
      change.forward.carry(origin, -1);
      std::vector<long long> added_order;
      for (size_t i = 0; i < added.src.size(); ++i) added_order.push_back(next_added++);
      change.forward.carry(order, -1LL, &added_order);
      if (!sources_suffice(origin_before, origin, change.forward)) return 6;
      if (g.has_weights) {
        std::vector<double> given = added.weights;
        given.resize(added.src.size(), 0.0);   // additions without weights: 0
        change.forward.carry(weights, 0.0, &given);
      }
      std::vector<int> ids(g.targets.size(), -1), added_ids;
      std::vector<int> in_order = canonical_slots(g.offsets, rows.ends, g.targets, order);
      for (size_t i = 0; i < in_order.size(); ++i) ids[static_cast<size_t>(in_order[i])] = static_cast<int>(i);
      for (int slot : change.forward.added) added_ids.push_back(ids[static_cast<size_t>(slot)]);
      ints("added", added_ids);
      if (static_cast<int>(compacted(g.targets, g.offsets, rows.ends).size()) != g.num_edges) return 3;
      // every slot array (a program's device arrays of edge extent) is `capacity` long
      size_t slots = static_cast<size_t>(rows.capacity);
      if (rows.rev_capacity != rows.capacity || g.targets.size() != slots || g.sources.size() != slots ||
          g.rev_sources.size() != slots || origin.size() != slots || (keep_ids && g.rev_edge_ids.size() != slots))
        return 4;
    }
    // read in the reference's order: the forward rows by (target, order), the reverse rows
    // by (source, the forward edge's place) where they keep edge ids, else by source
    std::vector<int> in_order = canonical_slots(g.offsets, rows.ends, g.targets, order);
    std::vector<int> ids(g.targets.size(), -1);
    for (size_t i = 0; i < in_order.size(); ++i) ids[static_cast<size_t>(in_order[i])] = static_cast<int>(i);
    std::vector<long long> rev_order(g.rev_sources.size(), 0);
    if (keep_ids)
      for (size_t q = 0; q < rev_order.size(); ++q)
        if (g.rev_edge_ids[q] >= 0) rev_order[q] = ids[static_cast<size_t>(g.rev_edge_ids[q])];
    std::vector<int> rev_in_order = canonical_slots(g.rev_offsets, rows.rev_ends, g.rev_sources, rev_order);
    ints("origin", at(origin, in_order));
    ints("offsets", compact_offsets(g.offsets, rows.ends));
    ints("targets", at(g.targets, in_order));
    ints("sources", at(g.sources, in_order));
    ints("rev_offsets", compact_offsets(g.rev_offsets, rows.rev_ends));
    ints("rev_sources", at(g.rev_sources, rev_in_order));
    std::vector<int> rev_ids;
    if (keep_ids)
      for (int slot : at(g.rev_edge_ids, rev_in_order)) rev_ids.push_back(ids[static_cast<size_t>(slot)]);
    ints("rev_edge_ids", rev_ids);
    std::printf("weights");
    if (g.has_weights)
      for (double w : at(g.weights, in_order)) std::printf(" %.17g", w);
    std::printf("\ncarried_weights");
    if (g.has_weights)
      for (double w : at(weights, in_order)) std::printf(" %.17g", w);
    std::printf("\ndeletion_moved %lld\ndeleted %lld\nrelaid %d\nmoved_rows %d\ndevice_moves %d\nrefused %d\n",
                deletion_moved, deleted, relaid, moved_rows, device_moves_done, device_moves_refused);
  } catch (const starc::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
"""


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slack")
    (folder / "driver.cpp").write_text(DRIVER)
    subprocess.run([GXX, "-std=c++17", "-O1", "-g", "-fsanitize=address,undefined",
                    "-Wall", "-Wextra", "-Werror", f"-I{RUNTIME_DIR}",
                    "-o", str(folder / "driver"), str(folder / "driver.cpp")], check=True)
    return folder / "driver"


def _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids,
                 sorted_rows=True):
    """The slack rows read row by row against the reference's graph (rows left in any order,
    ``sorted_rows`` false, read in the reference's order: the same edges per row, with their
    properties and reverse ids); returns the driver's counts of re-layouts, of rows moved to
    fresh room, and of the slots the deletions moved against the edges they deleted."""
    done = subprocess.run([str(driver), str(graph_path), str(updates_path),
                           "1" if undirected else "0", str(batch_size), "1" if keep_ids else "0",
                           "1" if sorted_rows else "0"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = _parsed(done.stdout)
    counts = {name: int(values[0]) for name, values in got[-6:]}
    got = got[:-6]
    if not sorted_rows:     # each hole filled by one slot from the row's back
        assert counts["deletion_moved"] <= counts["deleted"], counts
    # the batches' own moves never chain: the device applies every one from its records
    assert counts["refused"] == 0, counts
    want = [(name, values) for name, values in
            _expected(graph_path, updates_path, undirected, batch_size, keep_ids)
            if name not in ("deleted", "kept", "binned_order")]
    if not keep_ids:    # dropped when the rows are laid out, before any batch
        want = [(name, [] if name == "rev_edge_ids" else values) for name, values in want]
    assert [name for name, _ in got] == [name for name, _ in want]
    for (name, values), (_, expected) in zip(got, want):
        assert np.array_equal(values, np.asarray(expected, dtype=np.float64)), name
    return counts


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=edges_strategy, updates=update_strategy, undirected=st.booleans(),
       weighted=st.booleans(), batch_size=st.integers(1, 12), keep_ids=st.booleans(),
       sorted_rows=st.booleans())
def test_batches_on_slack_rows_give_the_references_graph(
        driver, tmp_path, edges, updates, undirected, weighted, batch_size, keep_ids,
        sorted_rows):
    graph_path, updates_path = write_example(tmp_path, edges, updates, weighted)
    _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids,
                 sorted_rows)


def _rmat_case(tmp_path, scale, edge_factor, updates, delete_share, seed):
    """An R-MAT graph and a stream of its updates, written to ``tmp_path``: their paths."""
    graph = rmat(scale, edge_factor=edge_factor, seed=seed, weights=True)
    graph_path, updates_path = tmp_path / "g.el", tmp_path / "u.txt"
    write_edge_list(graph, graph_path)
    write_updates(updates_path, generate_updates(graph, updates, delete_share=delete_share,
                                                 seed=seed + 1, weights=True))
    return graph_path, updates_path


def test_rows_outgrow_their_room_and_the_slot_space_is_laid_out_again(driver, tmp_path):
    # mostly additions, so that rows overflow and the slot space runs out more than once
    graph_path, updates_path = _rmat_case(tmp_path, 8, 4, 2500, 0.2, 3)
    for undirected, batch_size, keep_ids, sorted_rows in (
            (False, 100, True, True), (True, 333, True, True), (False, 250, False, True),
            (False, 100, True, False), (True, 333, False, False)):
        counts = _assert_same(driver, graph_path, updates_path, undirected, batch_size, keep_ids,
                              sorted_rows)
        assert counts["relaid"] >= 2 and counts["moved_rows"] >= 1, counts
        assert counts["device_moves"] >= 1, counts


def test_unsorted_rows_move_one_slot_per_deleted_edge(driver, tmp_path):
    """Rows in any order: a deletion fills its hole from the row's back, so a batch moves at
    most one slot per deleted edge, where sorted rows shift the spans between their holes
    and the row's end (hub rows of an R-MAT graph: many per deleted edge)."""
    graph_path, updates_path = _rmat_case(tmp_path, 10, 16, 800, 0.5, 5)
    moved = {}
    for sorted_rows in (True, False):
        counts = _assert_same(driver, graph_path, updates_path, False, 200, True, sorted_rows)
        moved[sorted_rows] = counts["deletion_moved"]
        assert counts["deleted"] > 0, counts
    assert moved[False] <= counts["deleted"] < moved[True] / 4, moved


def test_moves_that_chain_are_refused_and_scattered_instead(driver):
    """move_records() refuses a change whose move reads or writes a slot an earlier move
    wrote (the device's scratch copy would read the old value); the program then scatters
    every written slot, and both paths give the host's slots."""
    done = subprocess.run([str(driver), "chained"], capture_output=True, text=True)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert done.stdout.split() == ["refused", "2"]
