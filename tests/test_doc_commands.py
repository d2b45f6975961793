"""Every complete `starc ...` command that README.md and docs/*.md show is one the command
line accepts: a newcomer copies them as they are."""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

from starc.cli import COMMANDS, build_parser

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _complete(command: str) -> bool:
    """A command to copy, not a synopsis: it names a file (``g.el``, ``dsl/sssp.sp``) and has
    no placeholder (``...``, ``a|b``, ``[--opt]``, ``N``, ``PROG``)."""
    words = shlex.split(command)[1:]
    if any(mark in command for mark in ("...", "|", "[", "<")):
        return False
    if any(re.fullmatch(r"[A-Z][A-Z_]*", w) for w in words):
        return False
    return any("." in w and not w.startswith("-") for w in words)


def _commands(path: pathlib.Path):
    text = path.read_text()
    found = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                part = part.split("#")[0].strip()
                if part.startswith("starc "):
                    found.append(part)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found += [span.strip() for span in re.findall(r"`([^`\n]+)`", prose)
              if span.startswith("starc ")]
    return [c for c in found if _complete(c)]


CASES = [pytest.param(command, id=f"{path.name}:{command[:60]}")
         for path in DOCS for command in _commands(path)]


def test_the_docs_show_commands():
    assert len(CASES) >= 15
    assert any("graph gen updates" in p.values[0] for p in CASES)


@pytest.mark.parametrize("command", CASES)
def test_documented_command_parses(command, capsys):
    argv = shlex.split(command)[1:]
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        argv.insert(0, "compile")           # `starc FILE -b B`, as starc.cli.main does
    parser = build_parser()
    try:
        if argv[0] == "run":                 # program parameters follow the options
            parser.parse_known_args(argv)
        else:
            parser.parse_args(argv)
    except SystemExit as exc:
        assert exc.code == 0, capsys.readouterr().err
