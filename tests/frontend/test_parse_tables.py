"""The shipped tables (starc/frontend/parse_tables.py) are the lexer's and the grammar's, and
are used: neither PLY's LALR construction nor its lexer-rule checks run at start-up."""

from __future__ import annotations

import ply.lex
import ply.yacc
import pytest

from starc.frontend import parse_tables
from starc.frontend.lexer import Lexer, rules_signature
from starc.frontend.parser import Parser, build_tables, grammar_signature

REGENERATE = "stale tables: run python tools/generate_parse_tables.py"


def test_shipped_parser_tables_match_the_grammar():
    assert parse_tables._lr_signature == grammar_signature(), REGENERATE


def test_shipped_parser_tables_are_the_ones_ply_builds():
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


def _checked_build(lexer: Lexer):
    """PLY's lexer built from the rules and checked, as without tables."""
    return ply.lex.lex(module=lexer, optimize=False, errorlog=ply.lex.NullLogger())


def test_shipped_lexer_tables_are_the_ones_ply_builds():
    lexer = Lexer(lambda *error: None)
    assert parse_tables._lexsignature == rules_signature(lexer), REGENERATE
    built = _checked_build(lexer)
    shipped = {state: [text for text, _ in rules]
               for state, rules in parse_tables._lexstatere.items()}
    assert shipped == built.lexstateretext, REGENERATE
    assert parse_tables._lextokens == built.lextokens, REGENERATE
    assert parse_tables._lexliterals == built.lexliterals, REGENERATE
    assert parse_tables._lexstateignore == built.lexstateignore, REGENERATE


def test_the_lexer_loads_them_and_lexes_alike():
    text = "int x = 3.5; /* c */ y += 0x1; a ||b # @ Heap"
    lexer = Lexer(lambda *error: None)
    assert lexer.lexer.lexoptimize      # built from the tables, its rules not re-checked
    fresh = Lexer(lambda *error: None)
    fresh.lexer = _checked_build(fresh)
    for tokens in (lexer, fresh):
        tokens.input(text)
    assert [(t.type, t.value, t.lexpos) for t in iter(lexer.token, None)] == \
        [(t.type, t.value, t.lexpos) for t in iter(fresh.token, None)]


def test_changed_rules_do_not_use_stale_tables():
    """A lexer whose rules differ from the tables' is built from its rules."""

    class Changed(Lexer):
        t_EQ = r"==="

    lexer = Changed(lambda *error: None)
    assert not lexer.lexer.lexoptimize
    lexer.input("a === b")
    assert [t.type for t in iter(lexer.token, None)] == ["ID", "EQ", "ID"]
