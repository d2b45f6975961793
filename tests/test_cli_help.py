"""`starc ... --help` tells a newcomer what every argument is, and what it says about the
backends is what the backends do."""

from __future__ import annotations

import argparse
import pathlib
import re

import pytest

from starc.backends import device_backend_names, get_backend
from starc.cli import build_parser

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _parsers(parser, name="starc"):
    """(command line, parser) for the parser and every subcommand's, depth first."""
    yield name, parser
    for action in parser._actions:             # argparse keeps its subparsers here
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def _help(command: str, option: str) -> str:
    parser = dict(_parsers(build_parser()))[command]
    [action] = [a for a in parser._actions if option in a.option_strings]
    return " ".join(action.help.split())


PARSERS = list(_parsers(build_parser()))


@pytest.mark.parametrize("command, parser", PARSERS, ids=[name for name, _ in PARSERS])
def test_every_argument_says_what_it_is(command, parser):
    silent = [a.option_strings or a.dest for a in parser._actions
              if not a.help and not isinstance(a, argparse._SubParsersAction)]
    assert not silent, f"'{command} --help' shows no help for {silent}"


def test_block_size_help_gives_each_backends_default():
    text = _help("starc compile", "--block-size")
    named, size = re.search(r"\(([^;:()]+): (\d+);", text).groups()
    titles = {get_backend(b).capabilities.title: get_backend(b).default_block_size
              for b in device_backend_names()}
    assert {t.strip() for t in named.split(",")} == \
        {title for title, default in titles.items() if default == int(size)}, text
    for title, default in titles.items():
        if default is None:
            assert title in text.split(";", 1)[1], (title, text)


def test_schedule_help_names_where_auto_spreads_and_who_prints_vertex_only():
    text = _help("starc compile", "--schedule")
    lockstep = re.search(r"where lanes run in lockstep \(([^)]*)\)", text).group(1)
    for name in device_backend_names():
        caps = get_backend(name).capabilities
        if caps.schedules == {"vertex"}:
            assert f"{caps.title} prints vertex only" in text, (caps.title, text)
        assert (caps.title in lockstep) == (caps.lockstep or caps.lockstep_at_run_time), \
            (caps.title, text)


def test_the_cache_root_is_described_as_cachedir_finds_it(monkeypatch, tmp_path):
    """$STARC_CACHE_DIR, else $XDG_CACHE_HOME/starc, else ~/.cache/starc: the help and the
    README name the middle step too, which a desktop session sets."""
    from starc.cachedir import cache_root
    monkeypatch.delenv("STARC_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pathlib.Path(cache_root()) == tmp_path / "starc"
    words = "$STARC_CACHE_DIR, else $XDG_CACHE_HOME/starc, else ~/.cache/starc"
    assert words in _help("starc graph info", "--cache")
    readme = " ".join((ROOT / "README.md").read_text().split()).replace("`", "")
    assert f"builds into a cache ({words})" in readme
