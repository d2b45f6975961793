"""The shipped LALR tables (starc/frontend/parse_tables.py) are the grammar's and are used."""

from __future__ import annotations

import ply.yacc
import pytest

from starc.frontend import parse_tables
from starc.frontend.parser import Parser, build_tables, grammar_signature

REGENERATE = "stale parse tables: run python tools/generate_parse_tables.py"


def test_shipped_tables_match_the_grammar():
    assert parse_tables._lr_signature == grammar_signature(), REGENERATE


def test_shipped_tables_are_the_ones_ply_builds():
    """Not only the signature: the very tables PLY builds from the grammar now."""
    built = build_tables().yacc
    assert parse_tables._lr_action == built.action, REGENERATE
    assert parse_tables._lr_goto == built.goto, REGENERATE
    assert [p[:4] for p in parse_tables._lr_productions] == \
        [(p.str, p.name, p.len, p.func) for p in built.productions], REGENERATE


def test_the_parser_loads_them_instead_of_building(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("PLY rebuilt the LALR tables")

    monkeypatch.setattr(ply.yacc, "LRGeneratedTable", refuse)
    parser = Parser()
    program = parser.run("function f(Graph g) { int x = 1; }", "t.sp")
    assert program.functions[0].name == "f"
    with pytest.raises(AssertionError):
        build_tables()          # the check above would notice a rebuild
