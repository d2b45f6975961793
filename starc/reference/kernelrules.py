"""The legality rules of vectorised kernels (documented in ``starc.reference.vectorize``).

A mixin of ``kernelcompiler.KernelCompiler``: after the body is compiled, ``check`` looks at
every recorded access and decides whether the kernel is legal and which strategy it needs.
"""

from __future__ import annotations

from typing import Dict

__all__ = ["KernelRules"]

_OWN_KINDS = {"own", "acc"}


class KernelRules:
    @property
    def accumulations(self):
        if not hasattr(self, "_accumulations"):
            self._accumulations = []
        return self._accumulations

    def check(self) -> bool:
        reads: Dict[tuple, set] = {}
        writes: Dict[tuple, set] = {}
        for a in self.accesses:
            if a.key[0] != "p" and a.key[0] != "o":
                continue
            (reads if a.kind == "read" else writes).setdefault(a.key, set()).add(
                (a.kind, a.index))
        allowed_reads = {"own", "nbr"} if self.mode == "bfs" else {"own"}
        primaries = set()
        for key, kinds_indices in writes.items():
            kinds = {k for k, _ in kinds_indices}
            read_indices = {i for _, i in reads.get(key, set())}
            if key[0] == "o":
                if kinds != {"sred"} or read_indices:
                    return False
                continue
            if kinds <= _OWN_KINDS:
                if not read_indices <= allowed_reads:
                    return False
            elif kinds == {"red"}:
                if read_indices:
                    if self.mode != "forall" or not read_indices <= {"own"}:
                        return False
                    self.h_storages.add(key[1])
            elif kinds == {"racy"}:
                if read_indices:
                    return False
            elif kinds == {"mm"}:
                if not read_indices <= {"own"}:
                    return False
                primaries.add(key[1])
            elif kinds == {"mmsec"}:
                if read_indices:
                    return False
            else:
                return False
        if self.mm_stmts:
            if len(primaries) != 1 or self.h_storages:
                return False
            depths = {m[0] for m in self.mm_stmts}
            secs = {m[3] for m in self.mm_stmts}
            funcs = {m[4] for m in self.mm_stmts}
            loops = [m[1] for m in self.mm_stmts]
            if len(depths) != 1 or len(secs) != 1 or len(funcs) != 1 or \
                    len(set(loops)) != len(loops):
                return False
            self.mm = True
            self.mm_primary = primaries.pop()
            self.mm_secondaries = secs.pop()
            self.mm_func = funcs.pop()
            self.filter_reads_primary = ("p", self.mm_primary) in self._filter_reads
        # an accumulation target is not otherwise touched inside the loop feeding it
        for key, loop_id, stmt in self.accumulations:
            for a in self.accesses:
                if a.key == key and a.stmt != stmt and loop_id in a.path and \
                        a.index in ("own", "local"):
                    return False
        return True

