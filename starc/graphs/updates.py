"""Update streams (issue 31): the ``a u v [w]`` / ``d u v`` file format, its reader and writer,
a seeded generator, and applying a batch's deletions or additions to a Graph.

Format (docs/graphs.md, "Update streams"): one update a line, ``a SRC DST [WEIGHT]`` adds an
edge, ``d SRC DST`` deletes every edge SRC -> DST; 0-based ids of existing vertices; blank
lines and lines starting with ``#`` or ``%`` are skipped; either every addition has a weight
or none has. A bad line is a ``GraphFormatError`` (``path:line: what``), as in graph files.
The meaning of applying updates is docs/language-notes.md, "Issue 31: dynamic graphs".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from .csr import Graph
from .errors import GraphFormatError
from .readers import _check_weight, _chunks

__all__ = ["UpdateStream", "read_updates", "write_updates", "delete_edges", "add_edges",
           "generate_updates", "first_update_weight_line", "DELETE", "ADD"]

DELETE, ADD = 0, 1
_KINDS = {b"d": DELETE, b"a": ADD}


@dataclass(eq=False)
class UpdateStream:
    """Updates in stream order: ``kinds`` (DELETE / ADD), endpoints, and the additions'
    weights (float64, 0 for deletions; None when the additions carry none)."""

    kinds: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    weights: Optional[np.ndarray]
    weights_integral: bool = True
    name: str = ""
    #: the line (update) of the file each update comes from, ascending; None: one each.
    #: A symmetrised stream has two updates for one line, and batches count lines.
    origin: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return int(self.kinds.size)

    @property
    def line_count(self) -> int:
        """The updates of the file (what a batch size counts)."""
        return len(self) if self.origin is None else int(self.origin[-1]) + 1 if len(self) \
            else 0

    def batch(self, start: int, stop: int) -> "UpdateStream":
        """The updates of the file's updates ``start .. stop-1`` (one batch)."""
        if self.origin is not None:
            start, stop = np.searchsorted(self.origin, [start, stop])
        return self._select(slice(start, stop))

    def _select(self, which) -> "UpdateStream":
        weights = None if self.weights is None else self.weights[which]
        origin = None if self.origin is None else self.origin[which]
        return UpdateStream(self.kinds[which], self.src[which], self.dst[which], weights,
                            self.weights_integral, self.name, origin)

    def part(self, kind: int) -> "UpdateStream":
        """Only the deletions (DELETE) or the additions (ADD), in order."""
        return self._select(self.kinds == kind)

    def symmetrised(self) -> "UpdateStream":
        """Every update followed by its reverse ``v -> u`` (not for self-loops): the stream
        of an ``--undirected`` run."""
        count = len(self)
        twin = self.src != self.dst
        repeat = np.where(twin, 2, 1)
        index = np.repeat(np.arange(count), repeat)
        second = np.zeros(index.size, dtype=bool)
        second[np.cumsum(repeat)[twin] - 1] = True
        src = np.where(second, self.dst[index], self.src[index])
        dst = np.where(second, self.src[index], self.dst[index])
        weights = None if self.weights is None else self.weights[index]
        origin = index if self.origin is None else self.origin[index]
        return UpdateStream(self.kinds[index], src, dst, weights, self.weights_integral,
                            self.name, origin)


def read_updates(path, num_nodes: int) -> UpdateStream:
    """Read an update stream for a graph of ``num_nodes`` vertices (ids must be below)."""
    path = os.fspath(path)
    kinds: List[int] = []
    src: List[int] = []
    dst: List[int] = []
    weights: List[float] = []
    integral = True
    weighted: Optional[Tuple[bool, int]] = None   # (additions weighted, first addition line)
    for piece, lines_before in _chunks(path):
        for number, raw in enumerate(piece.split(b"\n"), start=lines_before + 1):
            tokens = raw.split()
            if not tokens or tokens[0][:1] in (b"#", b"%"):
                continue
            kind, u, v, weight = _parse_line(path, number, tokens, num_nodes)
            if kind == ADD:
                has = weight is not None
                if weighted is None:
                    weighted = (has, number)
                elif weighted[0] != has:
                    raise GraphFormatError(path, number, "weights on some additions only: this "
                                                         f"line has {'a' if has else 'no'} "
                                                         f"weight, line {weighted[1]} "
                                                         f"{'has none' if has else 'has one'}")
                integral = integral and (weight is None or float(weight).is_integer())
            kinds.append(kind)
            src.append(u)
            dst.append(v)
            weights.append(0.0 if weight is None else weight)
    has_weights = weighted is not None and weighted[0]
    return UpdateStream(np.array(kinds, dtype=np.int8), np.array(src, dtype=np.int64),
                        np.array(dst, dtype=np.int64),
                        np.array(weights, dtype=np.float64) if has_weights else None,
                        integral, path)


def first_update_weight_line(path: str, bad) -> Optional[Tuple[int, str]]:
    """(line number, token) of the first addition's weight for which ``bad(value)`` holds;
    None when there is none or the file cannot be read again. For messages about weights a
    program cannot take: the stream keeps no line numbers."""
    try:
        for piece, lines_before in _chunks(path):
            for number, raw in enumerate(piece.split(b"\n"), start=lines_before + 1):
                tokens = raw.split()
                if len(tokens) == 4 and tokens[0] == b"a" and bad(float(tokens[3])):
                    return number, tokens[3].decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    return None


def _parse_line(path: str, number: int, tokens, num_nodes: int):
    kind = _KINDS.get(tokens[0])
    if kind is None:
        token = tokens[0].decode("utf-8", "replace")
        raise GraphFormatError(path, number, f"an update starts with 'a' (add) or 'd' "
                                             f"(delete), not {token!r}")
    allowed = (3, 4) if kind == ADD else (3,)
    if len(tokens) not in allowed:
        wanted = "a SRC DST [WEIGHT]" if kind == ADD else "d SRC DST (a deletion has no weight)"
        raise GraphFormatError(path, number, f"expected '{wanted}', found {len(tokens)} "
                                             "fields")
    ids = []
    for role, raw in (("source", tokens[1]), ("target", tokens[2])):
        token = raw.decode("utf-8", "replace")
        try:
            value = int(raw)
        except ValueError:
            raise GraphFormatError(path, number, f"{role} id {token!r} is not an integer") \
                from None
        if not 0 <= value < num_nodes:
            top = f"0..{num_nodes - 1}" if num_nodes else "none: the graph has no vertices"
            raise GraphFormatError(path, number, f"{role} id {value} is not a vertex of the "
                                                 f"graph ({top}); updates do not add vertices")
        ids.append(value)
    weight = None
    if len(tokens) == 4:
        _check_weight(path, number, tokens[3], "any")
        weight = float(tokens[3])
    return kind, ids[0], ids[1], weight


def write_updates(path, stream: UpdateStream) -> None:
    """Write ``stream`` in the text format (integral weights without a decimal point)."""
    lines = []
    for i in range(len(stream)):
        kind = "a" if stream.kinds[i] == ADD else "d"
        line = f"{kind} {stream.src[i]} {stream.dst[i]}"
        if kind == "a" and stream.weights is not None:
            w = float(stream.weights[i])
            line += f" {int(w)}" if stream.weights_integral else f" {w!r}"
        lines.append(line)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))


# -- applying updates -----------------------------------------------------------------------

def _edge_keys(graph: Graph) -> np.ndarray:
    """``source * n + target`` per edge: ascending, since the CSR is sorted by both."""
    return graph.sources.astype(np.int64) * max(graph.num_nodes, 1) + graph.targets


def delete_edges(graph: Graph, src, dst) -> Tuple[Graph, np.ndarray]:
    """``graph`` without every edge ``src[i] -> dst[i]`` (missing ones change nothing), and
    the new id of each old edge (-1 for a deleted one)."""
    keys = _edge_keys(graph)
    gone_keys = np.asarray(src, dtype=np.int64) * max(graph.num_nodes, 1) + np.asarray(dst)
    # each deleted key's run of equal edges, found by binary search in the sorted keys
    first = np.searchsorted(keys, gone_keys, side="left")
    last = np.searchsorted(keys, gone_keys, side="right")
    marks = np.zeros(keys.size + 1, dtype=np.int64)
    np.add.at(marks, first, 1)
    np.add.at(marks, last, -1)
    keep = np.cumsum(marks[:-1]) == 0
    new_ids = np.where(keep, np.cumsum(keep) - 1, -1)
    weights = None if graph.weights is None else graph.weights[keep]
    result = Graph.from_edges(graph.num_nodes, graph.sources[keep], graph.targets[keep],
                              weights, graph.weights_integral, graph.name)
    return result, new_ids


def add_edges(graph: Graph, src, dst, weights=None,
              weights_integral: bool = True) -> Tuple[Graph, np.ndarray, np.ndarray]:
    """``graph`` with one more edge ``src[i] -> dst[i]`` each (after any equal edges it
    has: ids stay stable), the new id of each old edge, and the ids of the added ones."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    order = np.lexsort((dst, src))                   # the few new edges, sorted (stably)
    new_keys = (src * max(graph.num_nodes, 1) + dst)[order]
    # where each new edge goes: after the equal old ones; merged in one pass
    at = np.searchsorted(_edge_keys(graph), new_keys, side="right")
    added = np.empty(src.size, dtype=np.int64)
    added[order] = at + np.arange(src.size)
    old_ids = np.arange(graph.num_edges) + np.searchsorted(at, np.arange(graph.num_edges),
                                                           side="right")
    all_weights = None
    integral = graph.weights_integral
    if graph.weights is not None:
        extra = np.zeros(src.size) if weights is None else np.asarray(weights, np.float64)
        all_weights = np.insert(graph.weights, at, extra[order])
        integral = integral and weights_integral
    result = Graph.from_edges(graph.num_nodes, np.insert(graph.sources, at, src[order]),
                              np.insert(graph.targets, at, dst[order]), all_weights, integral,
                              graph.name)
    return result, old_ids, added


# -- generating updates ---------------------------------------------------------------------

def generate_updates(graph: Graph, count: int, delete_share: float = 0.5, seed: int = 0,
                     weights: bool = False) -> UpdateStream:
    """``count`` seeded updates of ``graph``: ``round(count * delete_share)`` deletions of
    distinct existing edges and the rest additions of edges the graph does not have (weights
    uniform in 1..100 with ``weights``), shuffled together. A ValueError when the graph has
    too few edges, or too few absent ones, for the shares asked for."""
    if count < 0:
        raise ValueError(f"--count must be >= 0, got {count}")
    if not 0.0 <= delete_share <= 1.0:
        raise ValueError(f"--delete-share must be in 0..1, got {delete_share}")
    rng = np.random.default_rng(seed)
    n = graph.num_nodes
    deletions = int(round(count * delete_share))
    additions = count - deletions
    keys = np.unique(graph.sources.astype(np.int64) * max(n, 1) + graph.targets)
    if deletions > keys.size:
        raise ValueError(f"{deletions} deletions asked for, but the graph has only "
                         f"{keys.size} distinct edges")
    if additions > n * n - keys.size:
        raise ValueError(f"{additions} additions asked for, but the graph lacks only "
                         f"{n * n - keys.size} edges")
    deleted = rng.choice(keys, size=deletions, replace=False) if deletions else keys[:0]
    added = np.zeros(0, dtype=np.int64)
    while added.size < additions:      # draw pairs, keep new distinct ones, until enough
        draw = rng.integers(0, n * n, size=2 * (additions - added.size) + 8, dtype=np.int64)
        fresh = draw[~np.isin(draw, keys) & ~np.isin(draw, added)]
        _, first = np.unique(fresh, return_index=True)
        added = np.concatenate([added, fresh[np.sort(first)]])[:additions]
    all_keys = np.concatenate([deleted, added])
    kinds = np.concatenate([np.full(deletions, DELETE, np.int8), np.full(additions, ADD, np.int8)])
    order = rng.permutation(count)
    all_keys, kinds = all_keys[order], kinds[order]
    values = None
    if weights:
        values = np.where(kinds == ADD, rng.integers(1, 101, size=count), 0).astype(np.float64)
    return UpdateStream(kinds, all_keys // max(n, 1), all_keys % max(n, 1), values, True)
