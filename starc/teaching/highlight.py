"""Syntax highlighting for the compare page, by Pygments, one balanced HTML fragment per line."""

from __future__ import annotations

from typing import List

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import CLexer, CppLexer, CudaLexer
from pygments.token import Keyword, Name

from starc.frontend.lexer import KEYWORDS

__all__ = ["DslLexer", "lexer_for", "highlight_lines", "style_css"]

#: keywords of the language that name a type, highlighted as types
_DSL_TYPES = {"int", "long", "float", "double", "bool", "node", "edge", "Graph", "dirGraph",
              "propNode", "propEdge", "SetN", "SetE"}
_DSL_CONSTANTS = {"True", "False", "true", "false", "INF", "INT_MAX"}


class DslLexer(CppLexer):
    """The DSL is C-like: C++'s lexer with the language's own keywords (one table:
    ``starc.frontend.lexer.KEYWORDS``) marked as keywords, types and constants."""

    name = "starc DSL"
    aliases = ["starc"]
    filenames = ["*.sp"]

    def get_tokens_unprocessed(self, text, stack=("root",)):
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token in Name and value in KEYWORDS:
                token = (Keyword.Type if value in _DSL_TYPES else
                         Keyword.Constant if value in _DSL_CONSTANTS else Keyword)
            yield index, token, value


def lexer_for(filename: str) -> Lexer:
    """The lexer of a generated file (OpenCL C kernels are C99) or of the DSL source."""
    options = dict(stripnl=False, ensurenl=False, tabsize=4)
    suffix = filename.rsplit(".", 1)[-1]
    lexer = {"sp": DslLexer, "cu": CudaLexer, "cuh": CudaLexer, "cl": CLexer,
             "c": CLexer, "h": CLexer}.get(suffix, CppLexer)
    return lexer(**options)


def highlight_lines(text: str, filename: str) -> List[str]:
    """``text`` highlighted, one HTML fragment per line of ``text``. Pygments' HTML formatter
    closes and reopens a token's span at each newline, so every fragment is balanced."""
    lines = text.split("\n")
    html = highlight(text, lexer_for(filename), HtmlFormatter(nowrap=True)).split("\n")
    # a trailing newline of the text gives a last empty line on both sides
    return (html + [""] * len(lines))[:len(lines)]


def style_css(light: str = "default", dark: str = "github-dark") -> str:
    """The token colours: ``light`` by default, ``dark`` under ``[data-theme=dark]`` and, with
    no theme chosen, when the system prefers dark (the page's toggle sets the attribute)."""
    def rules(style: str, prefix: str) -> str:
        return HtmlFormatter(style=style).get_style_defs(prefix)
    light_css = rules(light, ".code")
    dark_css = rules(dark, "[data-theme=dark] .code")
    auto_dark = rules(dark, ":root:not([data-theme=light]) .code")
    return (f"{light_css}\n{dark_css}\n"
            f"@media (prefers-color-scheme: dark) {{\n{auto_dark}\n}}\n")
