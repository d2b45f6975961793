"""Scalars a launch carries back, packed so that the host reads them with one copy."""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from starc.analysis import plan as P
from starc.analysis.host_tree import map_blocks, walk_host

__all__ = ["pack_scalar_reads"]


def _runs(block: P.HostBlock) -> List[Tuple[int, int]]:
    """[start, end) of each run of two or more ``FromDevice``s right after a ``Launch``."""
    runs, stmts = [], block.stmts
    for i, stmt in enumerate(stmts):
        if not isinstance(stmt, P.Launch):
            continue
        end = i + 1
        while end < len(stmts) and isinstance(stmts[end], P.FromDevice):
            end += 1
        if end - (i + 1) >= 2:
            runs.append((i + 1, end))
    return runs


def pack_scalar_reads(plan: P.Plan) -> Tuple[P.Plan, Tuple[P.ScalarPack, ...]]:
    """``plan`` with every run of two or more ``FromDevice``s after a launch (a BFS level's
    ``bfs_awake`` and ``bfs_scout``, several scalar reductions of one kernel) made one
    ``FromDeviceMany``, and the packs its arrays live in. An array read in two such runs with
    different companions joins one pack with all of them: each run still reads its block once
    (the block is a few slots), and every array has one address for its kernels."""
    groups: List[List[P.DeviceArray]] = []
    home: Dict[str, int] = {}           # array name -> index in groups
    for stmt in walk_host(plan.host):
        if not isinstance(stmt, P.HostBlock):
            continue
        for start, end in _runs(stmt):
            arrays = [s.array for s in stmt.stmts[start:end]]
            found = sorted({home[a.name] for a in arrays if a.name in home})
            target = found[0] if found else len(groups)
            if not found:
                groups.append([])
            for other in found[1:]:     # merge: the later group's members join the first
                for a in groups[other]:
                    groups[target].append(a)
                    home[a.name] = target
                groups[other] = []
            for a in arrays:
                if a.name not in home:
                    groups[target].append(a)
                    home[a.name] = target
    if not groups:
        return plan, ()
    taken = {a.name for a in plan.arrays}
    packs: List[P.ScalarPack] = []
    by_group: Dict[int, P.ScalarPack] = {}
    for index, members in enumerate(groups):
        if not members:
            continue
        name, n = "scalars", 1
        while name in taken:
            n += 1
            name = f"scalars{n}"
        taken.add(name)
        by_group[index] = P.ScalarPack(name, tuple(members))
        packs.append(by_group[index])

    def rewrite(block: P.HostBlock) -> P.HostBlock:
        stmts = list(block.stmts)
        for start, end in reversed(_runs(block)):
            reads = stmts[start:end]
            pack = by_group[home[reads[0].array.name]]
            stmts[start:end] = [P.FromDeviceMany(pack, tuple(r.array for r in reads),
                                                 tuple(r.sym for r in reads), loc=reads[0].loc)]
        return P.HostBlock(tuple(map_blocks(s, rewrite) for s in stmts), loc=block.loc)
    return dataclasses.replace(plan, host=rewrite(plan.host)), tuple(packs)
