"""BFS parents loops whose value is the depth (analysis/depth_values.py) on every runnable
backend: where the rewrite fires (k + c * depth, wrapping ints and longs, in place or after the
traversal) the results equal networkx's levels run through the formula and the reference's;
near misses (the rewrite must not fire) keep their search and equal the reference's.

CI time: the backends build the two programs as one, BOTH (the near misses' traversals after
the formulas', each with its own properties), and each build runs every graph; a reference test
checks BOTH's results against each program's own."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest

from starc.graphs import write_mtx
from starc.results import compare_results

from e2e_cases import compile_for
from test_bfs_directions import graphs

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "reference"))
import reference_oracles as oracles  # noqa: E402  (the oracle module of tests/reference)


#: property -> (type, fill, k, parent's value + c as written, c): every parents loop of FIRES is
#: rewritten, and a reached vertex gets k + c * level, wrapped to the type
FORMULAS = {"level": ("int", -1, 0, "w.level + 1", 1), "twice": ("int", -1, 0, "w.twice + 2", 2),
            "five": ("int", 7, 5, "1 + w.five", 1),
            "far": ("long", -1, 3000000000, "w.far + 1500000000", 1500000000),
            "rim": ("int", 3, 2147483646, "w.rim + 1", 1), "down": ("int", 0, 7, "w.down - 3", -3),
            "inplace": ("int", -4, -2, "w.inplace + 1073741824", 1073741824)}
_BITS = {"int": 32, "long": 64}


def _fires() -> str:
    """One BFS per property of ``FORMULAS``; the last one's body also reads its vertex's value
    before the loop (so the loop is rewritten in place: ``before`` gets the old value)."""
    params = ", ".join(f"propNode<{t}> {p}" for p, (t, *_) in FORMULAS.items())
    fills = ", ".join(f"{p} = {fill}" for p, (_, fill, *_) in FORMULAS.items())
    lines = [f"function Depths(Graph g, {params}, propNode<int> before, node src) {{",
             f"    g.attachNodeProperty({fills}, before = 0);"]
    for prop, (_, _, k, value, _) in FORMULAS.items():
        first = ["        v.before = v.inplace;"] if prop == "inplace" else []
        lines += [f"    src.{prop} = {k};", "    iterateInBFS (v in g.nodes() from src) {",
                  *first, f"        for (w in g.neighbors(v)) {{ v.{prop} = {value}; }}", "    }"]
    return "\n".join(lines + ["}"]) + "\n"


# No parents loop here is rewritten (each BFS one reason, in order: another write in the body,
# a write between the source's value and the BFS, a source value that is no constant, another
# term, a read of the vertex's own value, a product, a second statement, a BFS filter, a
# floating sum, a loop under a condition, a reverse sweep that writes the property).
NEAR_MISSES = """function NearMisses(Graph g, propNode<int> body, propNode<int> between,
                    propNode<int> start, propNode<int> other, propNode<int> own,
                    propNode<int> times, propNode<int> more, propNode<int> count,
                    propNode<int> filtered, propNode<double> frac, propNode<int> cond,
                    propNode<int> back, node src) {
    g.attachNodeProperty(body = -1, between = -1, start = -1, other = -1, own = 0, times = -1,
                         more = -1, count = 0, filtered = -1, frac = -1.0, cond = -1, back = -1);
    src.body = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.body = w.body + 1; }
        v.body = v.body * 2;
    }
    src.between = 0;
    forall (v in g.nodes()) { v.between = v.between + 3; }
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.between = w.between + 1; }
    }
    src.start = g.count_outNbrs(src);
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.start = w.start + 1; }
    }
    src.other = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.other = w.other + g.count_outNbrs(w); }
    }
    src.own = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.own = v.own + 1; }
    }
    src.times = 1;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.times = w.times * 2; }
    }
    src.more = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.more = w.more + 1; v.count = v.count + 1; }
    }
    src.filtered = 0;
    iterateInBFS (v in g.nodes() from src).filter(v % 2 == 0) {
        for (w in g.neighbors(v)) { v.filtered = w.filtered + 1; }
    }
    src.frac = 0.0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.frac = w.frac + 0.1; }
    }
    src.cond = 0;
    iterateInBFS (v in g.nodes() from src) {
        if (v % 3 != 1) {
            for (w in g.neighbors(v)) { v.cond = w.cond + 1; }
        }
    }
    src.back = 0;
    iterateInBFS (v in g.nodes() from src) {
        for (w in g.neighbors(v)) { v.back = w.back + 1; }
    }
    iterateInReverse (v % 2 == 1) {
        v.back = v.back + 100;
    }
}
"""


def _both() -> str:
    """_fires() and NEAR_MISSES in one function, the near misses' statements after the
    formulas' (every property and local its own)."""
    params, bodies = [], []
    for text in (_fires(), NEAR_MISSES):
        head, body = text.split("{", 1)
        params += [p.strip() for p in head[head.index("(") + 1:head.rindex(")")].split(",")
                   if p.strip() not in ("Graph g", "node src")]
        bodies.append(body[:body.rindex("}")].rstrip() + "\n")
    return f"function Both(Graph g, {', '.join(params)}, node src) {{" + "".join(bodies) + "}\n"


PROGRAMS = {"fires": _fires(), "near_misses": NEAR_MISSES, "both": _both()}
#: what the backends build
ON_BACKENDS = ("both",)

BACKENDS = {"opencl": [pytest.mark.opencl], "sycl": [pytest.mark.sycl],
            "openacc": [pytest.mark.openacc], "mpi": [pytest.mark.mpi],
            "cuda": [pytest.mark.cuda, pytest.mark.gpu]}
GRAPHS = ("rmat", "hubs", "path")


@functools.lru_cache(maxsize=None)
def _source(program: str, directory: str) -> pathlib.Path:
    path = pathlib.Path(directory) / f"{program}.sp"
    path.write_text(PROGRAMS[program])
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The programs and the graphs (.mtx keeps the vertex count of isolated vertices)."""
    folder = tmp_path_factory.mktemp("depth_values")
    paths = {name: _source(name, str(folder)) for name in PROGRAMS}
    for name in GRAPHS:
        graph, _ = graphs()[name]
        write_mtx(graph, folder / f"{name}.mtx")
        paths[name] = folder / f"{name}.mtx"
    return paths


@functools.lru_cache(maxsize=None)
def _compiled(path: pathlib.Path, backend: str, ranks=None):
    return compile_for(path, backend, ranks)


def _wrapped(values: np.ndarray, bits: int) -> np.ndarray:
    mask = (1 << bits) - 1
    return np.array([(int(x) & mask) - ((int(x) & mask) >> (bits - 1) << bits) for x in values],
                    dtype=np.int64)


def test_the_reference_gives_the_depth_formulas(files):
    """The oracle itself against networkx: what the rewrite claims the loops compute."""
    for name in GRAPHS:
        graph, src = graphs()[name]
        level = oracles.bfs_levels(graph, src)
        reached = level >= 0
        results = _compiled(files["fires"], "reference").run(files[name], src=src)
        for prop, (type_, fill, k, _, c) in FORMULAS.items():
            expected = np.where(reached, _wrapped(k + c * level, _BITS[type_]), fill)
            assert results.props[prop].tolist() == expected.tolist(), (name, prop)
        # read before the in-place store: the fill, the source's own value at the source
        before = np.where(reached, -4, 0)
        before[src] = -2
        assert results.props["before"].tolist() == before.tolist(), name


def test_both_programs_together_give_each_ones_results(files):
    """BOTH decides every parents loop as the program it comes from does (the formulas are
    rewritten, the near misses keep their search: OpenCL's plan, built only at a first run),
    and its reference run gives each program's results."""
    def decisions(program):
        plan = _compiled(files[program], "opencl").compilation.plan
        return sorted((d.prop, d.replaced) for d in plan.parent_values)
    assert decisions("both") == sorted(decisions("fires") + decisions("near_misses"))
    assert {replaced for _, replaced in decisions("fires")} == {True}
    assert {replaced for _, replaced in decisions("near_misses")} == {False}
    for name in GRAPHS:
        _, src = graphs()[name]
        together = _compiled(files["both"], "reference").run(files[name], src=src)
        for program in ("fires", "near_misses"):
            alone = _compiled(files[program], "reference").run(files[name], src=src)
            for prop, values in alone.props.items():
                assert together.props[prop].tolist() == values.tolist(), (name, program, prop)


def _cases():
    for backend, marks in BACKENDS.items():
        for program in ON_BACKENDS:
            yield pytest.param(backend, program, GRAPHS, None, marks=marks,
                               id=f"{backend}-{program}")
    for ranks in (1, 3, 4):
        for program in ON_BACKENDS:
            yield pytest.param("mpi", program, ("rmat",), ranks, marks=[pytest.mark.mpi],
                               id=f"mpi{ranks}-{program}-rmat")


@pytest.mark.parametrize("backend, program, graph_names, ranks", list(_cases()))
def test_backends_match_the_reference(backend, program, graph_names, ranks, files):
    """One build, each graph."""
    for graph in graph_names:
        _, src = graphs()[graph]
        expected = _compiled(files[program], "reference").run(files[graph], src=src)
        actual = _compiled(files[program], backend, ranks).run(files[graph], src=src)
        problems = compare_results(expected, actual)
        assert not problems, f"{program} on {graph} ({backend}, {ranks} ranks):\n" + \
            "\n".join(problems)
