"""The shared results format: printing, parsing and comparing."""

from __future__ import annotations

import numpy as np
import pytest

from starc.ir.types import Scalar
from starc.results import (Results, ResultsFormatError, compare_results, format_results,
                           parse_results)


def sample() -> Results:
    return Results(
        function="Compute_X", backend="reference", graph="g.el",
        props={"dist": np.array([0, 2147483647, -5], dtype=np.int32),
               "rank": np.array([0.1, np.inf, np.nan], dtype=np.float32),
               "exact": np.array([1 / 3, -0.0, 1e300], dtype=np.float64),
               "flag": np.array([True, False, True])},
        prop_types={"dist": Scalar.INT, "rank": Scalar.FLOAT, "exact": Scalar.DOUBLE,
                    "flag": Scalar.BOOL},
        ret=123456789012, ret_type=Scalar.LONG)


def test_format_exactly():
    text = format_results(sample())
    assert text.splitlines() == [
        "# starc results: Compute_X backend=reference graph=g.el",
        "dist 0 0", "dist 1 2147483647", "dist 2 -5",
        "rank 0 0.100000001", "rank 1 inf", "rank 2 nan",
        "exact 0 0.33333333333333331", "exact 1 -0", "exact 2 1.0000000000000001e+300",
        "flag 0 1", "flag 1 0", "flag 2 1",
        "return 123456789012"]


def test_round_trip_with_and_without_types():
    original = sample()
    text = format_results(original)
    typed = parse_results(text, original.prop_types, Scalar.LONG)
    assert compare_results(original, typed) == []
    assert typed.props["rank"].dtype == np.float32 and typed.props["flag"].dtype == np.bool_
    assert list(typed.props) == ["dist", "rank", "exact", "flag"]
    untyped = parse_results(text)
    assert untyped.props["dist"].dtype == np.int64
    assert untyped.ret == 123456789012
    assert compare_results(original, untyped) == []
    assert format_results(typed) == text


def test_no_props_and_float_return():
    r = Results("F", "cuda", "x.mtx", ret=0.5, ret_type=Scalar.FLOAT)
    text = format_results(r)
    assert text == "# starc results: F backend=cuda graph=x.mtx\nreturn 0.5\n"
    assert parse_results(text).ret == 0.5


def test_compare_reports_differences():
    a, b = sample(), sample()
    b.props["dist"] = np.array([0, 7, -5], dtype=np.int32)
    b.props["rank"] = np.array([0.1 + 1e-6, np.inf, np.nan], dtype=np.float32)
    b.ret = 1
    problems = compare_results(a, b)
    assert "dist[1]: expected 2147483647, got 7" in problems
    assert any(p.startswith("rank[0]: expected 0.100000001") for p in problems)
    assert "return: expected 123456789012, got 1" in problems
    problems = compare_results(a, b, rtol=1e-4)
    assert not any(p.startswith("rank") for p in problems)


def test_compare_limits_lines_and_checks_shape():
    a = Results("F", "x", "g", {"p": np.zeros(10, dtype=np.int32)}, {"p": Scalar.INT})
    b = Results("F", "y", "g", {"p": np.ones(10, dtype=np.int32)}, {"p": Scalar.INT})
    problems = compare_results(a, b, max_lines=3)
    assert len(problems) == 4 and "7 more vertices differ" in problems[-1]
    c = Results("F", "y", "g", {"p": np.ones(3, dtype=np.int32)}, {"p": Scalar.INT})
    assert compare_results(a, c) == ["property 'p': expected 10 vertices, got 3"]
    d = Results("F", "y", "g", {}, {})
    assert compare_results(a, d) == ["property 'p' missing"]


@pytest.mark.parametrize("text, message", [
    ("dist 0 1\n", "missing the '# starc results:' header"),
    ("# starc results: F backend=x graph=g\ndist 1 5\n", "expected vertex 0 of 'dist'"),
    ("# starc results: F backend=x graph=g\ndist 0\n", "expected '<property> <vertex> <value>'"),
    ("# starc results: F backend=x graph=g\ndist 0 abc\n", ":2: expected a number"),
    # stray lines (a compiler or runtime message on the program's stdout) are named, never
    # read as a property
    ("warning: unused variable 'x'\n# starc results: F backend=x graph=g\ndist 0 1\n",
     ":1: missing the '# starc results:' header line, got \"warning: unused variable 'x'\""),
    ("", ":1: missing the '# starc results:' header line \\(the output is empty\\)"),
    ("# starc results: F backend=x graph=g\ndist 0 1\nwarning: slow path\n",
     ":3: not a result line: 'warning: slow path'"),
    ("# starc results: F backend=x graph=g\n[acpp] 4 threads\ndist 0 1\n",
     ":2: not a result line: '\\[acpp\\] 4 threads'"),
    ("# starc results: F backend=x graph=g\n[acpp] using 4 threads\ndist 0 1\n",
     ":2: expected '<property> <vertex> <value>', got '\\[acpp\\] using 4 threads'"),
])
def test_parse_errors(text, message):
    with pytest.raises(ResultsFormatError, match=message):
        parse_results(text)


def test_parse_by_declared_type_rejects_bad_bool():
    with pytest.raises(ResultsFormatError, match="expected a bool value"):
        parse_results("# starc results: F backend=x graph=g\nflag 0 2\n", {"flag": Scalar.BOOL})
