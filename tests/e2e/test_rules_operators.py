"""Every compound operator the language accepts on a node property, on its own element and
through a neighbour (the atomic path), gives the reference's answer on every backend; the
ones it does not accept (Min/Max or arithmetic on bool) are rejected at their line.

CI time: every type's operators are in one program (a property per type, operator and form),
so each backend builds it once rather than once per type (nvcc still builds one per type:
it is much slower on the one big kernel than on five small ones)."""

from __future__ import annotations


import pytest

import starc
from starc.backends.base import BackendOptions
from starc.backends.cuda.emitter import CUDABackend
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source
from starc.results import compare_results

# Per type: the attach value, the update value, and the operators allowed on it.
TYPES = {
    "int": ("3", "v + 2", ["+=", "-=", "*=", "/=", "&=", "|=", "++", "--"]),
    "long": ("3", "v + 2", ["+=", "-=", "*=", "/=", "&=", "|=", "++", "--"]),
    "float": ("1.5", "2.0", ["+=", "-=", "*=", "/=", "++", "--"]),
    "double": ("1.5", "2.0", ["+=", "-=", "*=", "/=", "++", "--"]),
    "bool": ("True", "v > 1", ["&=", "|="]),
}
MINMAX = {"int": "v + 2", "long": "v + 2", "float": "v * 0.5", "double": "v * 0.5"}

# a cycle, a chord, a self-loop, a duplicate edge: several writers per element
EDGES = "0 1\n1 2\n2 0\n0 2\n2 2\n2 3\n2 3\n3 1\n"


def _update(target: str, op: str, value: str) -> str:
    return f"{target}{op};" if op in ("++", "--") else f"{target} {op} {value};"


def program(type_names=tuple(TYPES)) -> str:
    """One property per (type, operator, form), named ``<type>_o<i>`` (on the own element) and
    ``<type>_n<i>`` (through a neighbour); /= is a plain write, so only on the own element."""
    props, own, nbr = [], [], []
    for type_name in type_names:
        init, value, ops = TYPES[type_name]
        names = []
        for i, op in enumerate(ops):
            o, n = f"{type_name}_o{i}", f"{type_name}_n{i}"
            names += [o, n]
            own.append(_update(f"v.{o}", op, value))
            if op != "/=":
                nbr.append(_update(f"w.{n}", op, value))
        if type_name in MINMAX:
            mn, mx, ms = (f"{type_name}_{p}" for p in ("mn", "mx", "ms"))
            names += [mn, mx, ms]
            nbr.append(f"w.{mn} = Min(w.{mn}, {MINMAX[type_name]});")
            nbr.append(f"<w.{mx}, w.{ms}> = <Max(w.{mx}, {MINMAX[type_name]}), {init}>;")
        props += [(type_name, name, init) for name in names]
    params = ", ".join(f"propNode<{t}> {p}" for t, p, _ in props)
    attach = ", ".join(f"{p} = {init}" for _, p, init in props)
    return (f"function F(Graph g, {params}) {{\n    g.attachNodeProperty({attach});\n"
            f"    forall (v in g.nodes()) {{\n        " + "\n        ".join(own) +
            "\n        forall (w in g.neighbors(v)) {\n            " +
            "\n            ".join(nbr) + "\n        }\n    }\n}\n")


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    path = tmp_path_factory.mktemp("ops") / "g.el"
    path.write_text(EDGES)
    return path


def _write(tmp_path):
    path = tmp_path / "ops.sp"
    path.write_text(program())
    return path


@pytest.mark.parametrize("backend", [pytest.param("opencl", marks=pytest.mark.opencl),
                                     pytest.param("sycl", marks=pytest.mark.sycl),
                                     pytest.param("openacc", marks=pytest.mark.openacc),
                                     pytest.param("mpi", marks=pytest.mark.mpi)])
def test_compound_operators_match_the_reference(backend, graph, tmp_path):
    path = _write(tmp_path)
    expected = starc.compile(str(path), "reference").run(graph)
    actual = starc.compile(str(path), backend).run(graph)
    problems = compare_results(expected, actual, rtol=1e-6, atol=1e-6)
    assert not problems, f"on {backend}:\n" + "\n".join(problems)


@pytest.mark.cuda
@pytest.mark.parametrize("type_name", list(TYPES))
def test_compound_operators_compile_with_nvcc(type_name, tmp_path):
    """One type a build: nvcc takes far longer on the one kernel of every type's operators
    (~3x the five one-type builds together) than on five small ones."""
    sink = DiagnosticSink()
    comp = compile_source(program((type_name,)), "ops.sp", sink, backend="cuda")
    assert comp.generated is not None, [str(d) for d in sink.diagnostics]
    CUDABackend().build(comp.generated, tmp_path / "build",
                        BackendOptions(extra={"gpu_arch": "sm_75"}))


def _errors(text: str):
    sink = DiagnosticSink()
    comp = compile_source(text, "bad.sp", sink, backend="opencl")
    assert comp is None or comp.generated is None
    return [d.header() for d in sink.diagnostics if d.is_error]


@pytest.mark.parametrize("stmt, message", [
    ("w.b = Min(w.b, v > 1);", "bad.sp:4:40: error[E0402]: 'Min' needs a numeric"),
    ("<w.b, w.c> = <Max(w.b, v > 1), 1>;", "bad.sp:4:40: error[E0402]: 'Max' needs a numeric"),
    ("w.c = Min(w.b, v > 1);", "bad.sp:4:46: error[E0304]: 'Min' needs numeric operands"),
    ("v.b /= v > 1;", "bad.sp:4:40: error[E0402]: '/=' needs a numeric"),
])
def test_minmax_and_division_on_bool_are_rejected_at_their_line(stmt, message):
    text = ("function F(Graph g, propNode<bool> b, propNode<int> c) {\n"
            "    g.attachNodeProperty(b = True, c = 0);\n"
            "    forall (v in g.nodes()) {\n"
            f"        forall (w in g.neighbors(v)) {{ {stmt} }}\n    }}\n}}\n")
    errors = _errors(text)
    assert len(errors) == 1 and errors[0].startswith(message), errors
