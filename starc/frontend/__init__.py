"""Front end: source text to syntax tree (PLY lexer and parser) and back (unparser)."""

from starc.frontend.parser import parse
from starc.frontend.unparse import unparse

__all__ = ["parse", "unparse"]
