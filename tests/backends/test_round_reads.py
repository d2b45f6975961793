"""Device->host reads per round of every host loop (issue 29 item 3: at most one per round)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Tuple

import pytest

from starc import driver
from starc.analysis import plan as P
from starc.analysis.host_tree import LOOPS, host_exprs, walk_host
from starc.diagnostics import DiagnosticSink

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted([*(ROOT / "dsl").glob("*.sp"), *(ROOT / "dsl" / "dynamic").glob("*.sp"),
                   *(ROOT / "tests" / "e2e" / "programs").glob("*.sp")])
DEVICE_BACKENDS = ("cuda", "sycl", "opencl", "openacc")

#: The rounds that still read more than one value back, found by this test's audit (the same
#: on the four device backends): (program, loop, loop's line) -> reads on the round's worst path.
#: Each entry is asserted exactly, so a change that packs the round's values into one buffer
#: must remove it here. The scalars one launch carries back are one read already (a BFS level's
#: ``bfs_awake`` and ``bfs_scout``, frontier_reach_sum's ``total`` and ``deepest``: a
#: ``FromDeviceMany`` of their scalar pack). Worklist rounds (cc, sssp, sswp, ...): the round
#: after a dense round reads the append counter, and when it switches to sparse, builds the
#: queue and reads it again. sssp_dslV3 (a general fixedPoint): the error word's site, then the
#: flag.
KNOWN = {(name, "HostDoWhile", line): reads for name, line, reads in (
    ("cc", 11, 2), ("dyn_sssp", 12, 2), ("sssp", 10, 2),
    ("sswp", 10, 2), ("frontier_reach", 9, 2), ("frontier_reach_sum", 12, 3),
    ("sssp_dslV3", 12, 2))}

#: How each device backend prints the one copy of a scalar pack (``FromDeviceMany``): into its
#: host staging (CUDA, SYCL, OpenCL), or ``update self`` of the whole block (OpenACC).
PACK_READ = r"\bh_scalars\d*\.data\(\), d_scalars\d*\b|update self\(d_scalars\d*\["

ROUND_LOOPS = LOOPS + (P.HostWhile, P.HostDoWhile)


def _own_reads(stmt: P.HostStmt) -> int:
    """Reads one statement does itself: a scalar copied back, the error word's site (its
    value is read only when a check failed, and then the program stops), each ``DeviceRead``."""
    return (isinstance(stmt, (P.FromDevice, P.FromDeviceMany, P.CheckErrors))
            + sum(isinstance(x, P.DeviceRead) for x in host_exprs(stmt)))


def _worst_path(block: P.HostBlock, loops: List[Tuple[P.HostStmt, int]]) -> int:
    """Reads on the worst path through ``block`` (an ``if`` counts its costlier branch); a
    nested loop is a round loop of its own, recorded in ``loops``, not counted here."""
    reads = 0
    for stmt in block.stmts:
        if isinstance(stmt, P.HostBlock):
            reads += _worst_path(stmt, loops)
        elif isinstance(stmt, ROUND_LOOPS):
            loops.append((stmt, _own_reads(stmt) + _worst_path(stmt.body, loops)))
        elif isinstance(stmt, P.HostIf):
            branches = [_worst_path(b, loops) for b in (stmt.then, stmt.orelse) if b is not None]
            reads += _own_reads(stmt) + max(branches, default=0)
        else:
            reads += _own_reads(stmt)
    return reads


def round_reads(plan: P.Plan) -> List[Tuple[P.HostStmt, int]]:
    """(loop, reads per round on its worst path) for every host loop of a specialized plan."""
    loops: List[Tuple[P.HostStmt, int]] = []
    _worst_path(plan.host, loops)
    return loops


def _compile(path: Path, backend: str):
    comp = driver.compile_source(path.read_text(), str(path), DiagnosticSink(), backend=backend)
    assert comp.generated is not None, (path.name, backend)
    return comp


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_at_most_one_read_per_round(path, backend):
    comp = _compile(path, backend)
    # the plan's read sites are what the host code prints: one single-element read each
    # (the error word two: its site, and its value where a check failed; the host program
    # checks it once more after the last kernel)
    plan = comp.specialized
    packed = sum(isinstance(s, P.FromDeviceMany) for s in walk_host(plan.host))
    sites = sum(_own_reads(s) + isinstance(s, P.CheckErrors) for s in walk_host(plan.host))
    sites += 2 * (plan.error is not None) - packed
    text = "".join(comp.generated.files[f] for f in comp.generated.program_files)
    assert len(re.findall(r"\bstarc_read_element\s*[(<]", text)) == sites
    # a pack is read by one copy of its whole block
    assert len(re.findall(PACK_READ, text)) == packed
    for loop, reads in round_reads(plan):
        known = KNOWN.get((path.stem, type(loop).__name__, loop.loc.line))
        if known is not None:
            assert reads == known, (path.stem, backend, loop.loc.line)
        else:
            assert reads <= 1, (path.stem, backend, type(loop).__name__, loop.loc.line)


def test_bfs_top_down_step_reads_awake_and_scout_in_one_copy():
    """The audit counts what the CUDA host code does: a top-down level reads both counters
    with one cudaMemcpy of their block, then takes each from its slot of the host copy."""
    comp = _compile(ROOT / "dsl" / "bfs.sp", "cuda")
    text = comp.generated.files[comp.generated.program_files[0]]
    loop = text[text.index("do {"):text.index("} while (bfs_awake != 0);")]
    top_down = loop[loop.index("} else {"):]
    assert "starc_read_element" not in top_down
    # its two forms (over the queue of a small frontier, bfs_queue.py, or every vertex) alike
    at = top_down.index("Compute_BFS_bfs_fwd_6<<<")
    for form in (top_down[:at], top_down[at:]):
        assert len(re.findall(r"cudaMemcpy\(h_scalars\.data\(\), d_scalars, sizeof\(long "
                              r"long\) \* 2, cudaMemcpyDeviceToHost\)", form)) == 1
        assert re.findall(r"std::memcpy\(&(\w+), h_scalars\.data\(\) \+ (\d)", form) == [
            ("bfs_awake", "0"), ("bfs_scout", "1")]
    # the kernels' two counters are slots of that one block
    assert "d_bfs_awake_dev = reinterpret_cast<int*>(d_scalars + 0);" in text
    assert "d_bfs_scout_dev = reinterpret_cast<int*>(d_scalars + 1);" in text
