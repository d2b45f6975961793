"""The small graphs and per-program parameters of the end-to-end matrix."""

from __future__ import annotations

import atexit
import dataclasses
import functools
import pathlib
import shutil
import tempfile
from typing import Callable, Dict, Optional, Tuple

import numpy as np

import starc
from starc.graphs import Graph, rmat, grid, write_edge_list, write_mtx

from label_rounds import cc_in_rounds

DSL = pathlib.Path(__file__).resolve().parents[2] / "dsl"


def compile_for(path, backend: str, ranks=None, schedule=None):
    """``starc.compile(path, backend)``, on ``ranks`` MPI processes where given: more than
    this machine's cores where the test asks (CI runs 4 ranks on 2 cores), which starc
    refuses unless told to oversubscribe; ``schedule`` forces the kernel schedule."""
    from starc.backends.base import BackendOptions
    options = BackendOptions(schedule=schedule)
    if ranks is None:
        return starc.compile(str(path), backend, options=options)
    return starc.compile(str(path), backend, ranks=ranks, oversubscribe=True, options=options)


@functools.lru_cache(maxsize=None)
def _written() -> pathlib.Path:
    """The folder of the programs given by text, removed when the run ends."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="starc-e2e-programs-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


@dataclasses.dataclass(frozen=True)
class ProgramCase:
    """How the matrix runs one dsl program: its parameters, whether it needs weights or a
    symmetric graph, and the float tolerance its results are compared with."""

    name: str
    params: Tuple[Tuple[str, str], ...] = ()
    weighted: bool = False
    undirected: bool = False
    rtol: float = 0.0
    atol: float = 0.0
    #: the program's text, where it is no file of dsl/ (written to a folder of the run's)
    text: Optional[Callable[[], str]] = None

    @property
    def path(self) -> pathlib.Path:
        if self.text is None:
            return DSL / f"{self.name}.sp"
        path = _written() / f"{self.name}.sp"
        if not path.exists():
            path.write_text(self.text())
        return path

    def params_for(self, num_nodes: int) -> Dict[str, str]:
        """The parameters, with vertex ids that do not exist in a tiny graph dropped from
        a source set (a single source is always vertex 0, so every graph has >= 1 vertex)."""
        out = {}
        for name, value in self.params:
            if name == "sourceSet":
                value = ",".join(v for v in value.split(",") if int(v) < num_nodes)
            out[name] = value
        return out


# Tolerances: integer programs compare exactly. PageRank sums float32 ranks in a different
# order on parallel backends (and its diff reduction too), so ranks may differ in the last
# bits; BC accumulates float32 path counts and dependencies in parallel per level.
PROGRAMS = {
    "sssp": ProgramCase("sssp", (("src", "0"),), weighted=True),
    "sswp": ProgramCase("sswp", (("src", "0"),), weighted=True),
    "bfs": ProgramCase("bfs", (("src", "0"),)),
    "cc": ProgramCase("cc"),
    "tc": ProgramCase("tc", undirected=True),
    "kcore": ProgramCase("kcore", (("k", "2"),), undirected=True),
    "pr": ProgramCase("pr", (("beta", "0.0001"), ("delta", "0.85"), ("maxIter", "50")),
                      rtol=1e-4, atol=1e-6),
    "bc": ProgramCase("bc", (("sourceSet", "0,1,3"),), rtol=1e-4, atol=1e-4),
}

#: dsl/cc.sp with its propagation kept as rounds on every backend (tests/label_rounds.py), for
#: the tests of the worklists' machinery, which every backend but MPI runs a union-find for in
#: cc.sp (not in the matrix: cc.sp's rounds run there on MPI)
CC_IN_ROUNDS = ProgramCase("cc_in_rounds", text=cc_in_rounds)
CASES = {**PROGRAMS, CC_IN_ROUNDS.name: CC_IN_ROUNDS}


def _edges(n, pairs, weights=None, name=""):
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    w = None if weights is None else np.array(weights, dtype=np.float64)
    return Graph.from_edges(n, src, dst, w, True, name)


def small_graphs() -> Dict[str, Graph]:
    """The graph shapes of the matrix: every edge case of the graph issue, all weighted
    (unweighted programs ignore weights) and with at least 4 vertices where the shape allows,
    so the parameters above are valid everywhere."""
    graphs = {
        "rmat": rmat(6, edge_factor=4, seed=3, weights=True),
        "grid": grid(4, 5, seed=1, weights=True),
        "no_edges": _edges(5, [], [], "no edges"),
        "one_vertex": _edges(1, [], [], "one vertex"),
        "self_loop_only": _edges(4, [(0, 0)], [3], "self-loop only"),
        "isolated": _edges(9, [(0, 1), (1, 2), (2, 0), (3, 4)], [5, 1, 2, 7], "isolated"),
        "self_loops_dups": _edges(5, [(0, 1), (0, 1), (1, 1), (1, 2), (2, 3), (3, 3),
                                      (0, 2), (2, 4)],
                                  [4, 2, 1, 3, 1, 9, 8, 2], "self-loops, duplicates"),
        "disconnected": _edges(8, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 4),
                                   (0, 2), (5, 7)],
                               [1, 2, 3, 4, 5, 6, 7, 8, 9], "two parts"),
        "star": _edges(6, [(0, i) for i in range(1, 6)] + [(i, 0) for i in range(1, 6)],
                       [1] * 10, "star"),
        # BFS from 0 where a vertex could wrongly count as the source's parent (the source has
        # none): a cycle back to it, a self-loop on it, reached and unreached in-neighbours.
        "cycle3": _edges(3, [(0, 1), (1, 2), (2, 0)], [2, 3, 4], "directed 3-cycle"),
        "self_loop_source": _edges(4, [(0, 0), (0, 1), (1, 2), (2, 3), (3, 3)], [5, 1, 2, 3, 4],
                                   "self-loop at the source"),
        "source_in_edges": _edges(5, [(0, 1), (0, 2), (1, 0), (2, 0), (2, 3), (3, 0), (3, 4),
                                      (4, 0)],
                                  [1, 2, 3, 4, 5, 6, 7, 8], "source with in-edges"),
        "unreached_in_nbr": _edges(6, [(0, 1), (1, 2), (2, 3), (4, 0), (5, 4), (4, 1), (3, 1)],
                                   [3, 1, 4, 1, 5, 9, 2], "unreached in-neighbour of the source"),
    }
    return graphs


def write_graph_files(directory: pathlib.Path) -> Dict[str, pathlib.Path]:
    """Write every small graph; a few as Matrix Market, the rest as edge lists."""
    files = {}
    for name, graph in small_graphs().items():
        # Matrix Market keeps the vertex count, so trailing isolated vertices survive.
        if name in ("grid", "no_edges", "one_vertex", "self_loop_only", "isolated"):
            path = directory / f"{name}.mtx"
            write_mtx(graph, path)
        else:
            path = directory / f"{name}.el"
            write_edge_list(graph, path)
        files[name] = path
    return files


def build_with_nvcc(path: pathlib.Path, outdir: pathlib.Path) -> None:
    """Generate CUDA for ``path`` and build it with nvcc's strict flags (sm_75): where nvcc
    is, a GPU need not be."""
    from starc.backends.base import BackendOptions
    from starc.backends.cuda.emitter import CUDABackend
    from starc.diagnostics import DiagnosticSink
    from starc.driver import compile_source
    sink = DiagnosticSink()
    compilation = compile_source(path.read_text(), str(path), sink, backend="cuda")
    assert compilation.generated is not None, [str(d) for d in sink.diagnostics]
    CUDABackend().build(compilation.generated, outdir, BackendOptions(extra={"gpu_arch": "sm_75"}))


def hub_graph(weighted: bool = False) -> Graph:
    """A star of 300 leaves (edges both ways: the centre's in-degree 300 exceeds a group of
    256) beside an R-MAT part whose own hubs exceed the small groups, and whose 129 vertices
    of in-degree 32 or more fill whole runs of the binned order among the light ones;
    ``weighted``: with integer weights 1 to 20 (sssp's)."""
    part = rmat(10, edge_factor=16, seed=5)
    leaves = np.arange(1, 301, dtype=np.int64)
    offset = 301
    src = np.concatenate([np.zeros(300, dtype=np.int64), leaves,
                          part.sources.astype(np.int64) + offset])
    dst = np.concatenate([leaves, np.zeros(300, dtype=np.int64),
                          part.targets.astype(np.int64) + offset])
    weights = np.random.default_rng(7).integers(1, 21, src.size) if weighted else None
    return Graph.from_edges(offset + part.num_nodes, src, dst, weights, True, "star and R-MAT")
