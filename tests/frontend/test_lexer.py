"""Lexer: every literal and comment form, operators, keywords, aliases, positions, errors."""

from __future__ import annotations

import pytest

from starc.frontend.lexer import KEYWORDS, RESERVED_WORDS, tokenize


def kinds(text):
    return [(kind, value) for kind, value, _, _ in tokenize(text)]


def lex_errors(text):
    errors = []
    tokenize(text, lambda *args: errors.append(args))
    return errors


@pytest.mark.parametrize("text,kind", [
    ("123", "INT_CONST"), ("0", "INT_CONST"),
    ("1.5", "FLOAT_CONST"), ("1.", "FLOAT_CONST"), (".5", "FLOAT_CONST"),
    ("1e-6", "FLOAT_CONST"), ("2.5e3", "FLOAT_CONST"), ("1E+10", "FLOAT_CONST"),
])
def test_number_literals(text, kind):
    assert kinds(text) == [(kind, text)]
    assert lex_errors(text) == []


@pytest.mark.parametrize("text,kind", [
    ("True", "TRUE"), ("False", "FALSE"), ("INF", "INF"),
    ("true", "TRUE"), ("false", "FALSE"), ("INT_MAX", "INF"),
])
def test_constant_words_keep_their_spelling(text, kind):
    assert kinds(text) == [(kind, text)]


def test_minus_is_never_part_of_a_literal():
    assert kinds("a-1") == [("ID", "a"), ("-", "-"), ("INT_CONST", "1")]
    assert kinds("-x") == [("-", "-"), ("ID", "x")]
    assert kinds("1e-6-2") == [("FLOAT_CONST", "1e-6"), ("-", "-"), ("INT_CONST", "2")]


def test_percent_and_all_operators():
    text = "+ - * / % ! < <= > >= == != && || = += -= *= /= &= |= ++ -- . , ; : ( ) { } [ ]"
    values = [value for _, value in kinds(text)]
    assert values == text.split()
    assert kinds("a%b")[1] == ("%", "%")


def test_keywords_and_type_names():
    for word, kind in KEYWORDS.items():
        assert kinds(word) == [(kind, word)]
    assert kinds("int long float double bool node edge Graph dirGraph propNode propEdge SetN SetE") \
        == [(k.upper(), k) for k in "int long float double bool node edge Graph dirGraph "
            "propNode propEdge SetN SetE".split()]


def test_reserved_words_are_one_token():
    for word in RESERVED_WORDS:
        assert kinds(word) == [("RESERVED", word)]


def test_identifiers_and_alias_names():
    assert kinds("neighbours nodes_to _x9 Minimum") == [
        ("ID", "neighbours"), ("ID", "nodes_to"), ("ID", "_x9"), ("ID", "Minimum")]


def test_line_comment_and_block_comment():
    assert kinds("a // comment\nb") == [("ID", "a"), ("ID", "b")]
    assert kinds("a /* x\n y */ b") == [("ID", "a"), ("ID", "b")]
    assert kinds("a/**/b") == [("ID", "a"), ("ID", "b")]


def test_comment_at_end_of_file_without_newline():
    assert kinds("x; // last") == [("ID", "x"), (";", ";")]
    assert lex_errors("x; // last") == []


def test_positions_count_lines_through_comments():
    tokens = tokenize("a\n/* one\ntwo */  b // c\n\n\tc")
    assert [(v, line, col) for _, v, line, col in tokens] == [
        ("a", 1, 1), ("b", 3, 9), ("c", 5, 2)]


def test_invalid_character_reported_and_lexing_continues():
    errors = lex_errors("a = 1;\n  b @ c $ d;")
    assert errors == [("E0101", "invalid character '@'", 2, 5),
                      ("E0101", "invalid character '$'", 2, 9)]
    assert [v for _, v in kinds("b @ c $ d")] == ["b", "c", "d"]


def test_single_ampersand_and_bar_are_invalid():
    assert [e[1] for e in lex_errors("a & b | c")] == [
        "invalid character '&'", "invalid character '|'"]


def test_unterminated_block_comment_reported_at_its_start():
    assert lex_errors("x;\n  /* never closed\n") == [("E0102", "unterminated comment", 2, 3)]


def test_malformed_number():
    assert lex_errors("x = 1e;") == [("E0106", "malformed number '1e'", 1, 5)]
    assert lex_errors("x = 12abc;")[0][:2] == ("E0106", "malformed number '12abc'")
