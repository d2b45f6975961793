"""A cache directory that cannot be made or written (issue 34) is the user's setting: exit 2
naming it, before anything is built, and nothing written; what needs no cache still runs."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import starc
from starc.cachedir import cache_workdir, writable_cache_dir
from starc.cli import main
from starc.errors import UsageError

ROOT = pathlib.Path(__file__).resolve().parents[1]
SSSP = str(ROOT / "dsl" / "sssp.sp")
FIX = "; point STARC_CACHE_DIR at a directory you can write"


@pytest.fixture
def in_the_way(tmp_path):
    """A file where the cache directory should be."""
    path = tmp_path / "cache"
    path.write_text("not a directory")
    return path


def test_a_cache_directory_that_cannot_be_made_names_its_setting(monkeypatch, in_the_way):
    monkeypatch.setenv("STARC_CACHE_DIR", "/proc/nope")
    with pytest.raises(UsageError) as caught:
        cache_workdir("build-")
    assert str(caught.value) == ("cannot use the cache directory '/proc/nope' (set by "
                                 f"STARC_CACHE_DIR): No such file or directory{FIX}")
    monkeypatch.setenv("STARC_CACHE_DIR", str(in_the_way / "below"))
    with pytest.raises(UsageError, match="a file is in the way of the directory"):
        writable_cache_dir("graphs")
    # the default, from XDG_CACHE_HOME: the message says where it came from
    monkeypatch.delenv("STARC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(in_the_way))
    with pytest.raises(UsageError) as caught:
        writable_cache_dir()
    assert str(caught.value) == (f"cannot use the cache directory '{in_the_way}/starc' (from "
                                 "XDG_CACHE_HOME; STARC_CACHE_DIR chooses another): a file is "
                                 f"in the way of the directory{FIX}")
    assert in_the_way.read_text() == "not a directory"


@pytest.mark.openacc
def test_run_with_an_unusable_cache_is_a_usage_error(graph, tmp_path):
    """The issue's command: it ended in 'internal error: FileNotFoundError', exit 3."""
    env = dict(os.environ, STARC_CACHE_DIR="/proc/nope")
    proc = subprocess.run([sys.executable, "-m", "starc", "run", SSSP, "-b", "openacc",
                           "--graph", graph, "--src", "0"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == ("starc: error[E0601]: cannot use the cache directory '/proc/nope' "
                           f"(set by STARC_CACHE_DIR): No such file or directory{FIX}\n")


@pytest.mark.openacc
def test_the_python_api_raises_the_same_usage_error(graph, monkeypatch, in_the_way):
    program = starc.compile(SSSP, "openacc")
    monkeypatch.setenv("STARC_CACHE_DIR", str(in_the_way))
    with pytest.raises(UsageError, match=f"^cannot use the cache directory '{in_the_way}' "):
        program.run(graph, src=0)
    assert in_the_way.read_text() == "not a directory"         # nothing written


def test_what_needs_no_cache_runs_without_one(graph, monkeypatch, capfd):
    monkeypatch.setenv("STARC_CACHE_DIR", "/proc/nope")
    assert main(["run", SSSP, "-b", "reference", "--graph", graph, "--src", "0"]) == 0
    assert capfd.readouterr().out.splitlines()[1:] == ["dist 0 0", "dist 1 4", "dist 2 5"]


def test_graph_cache_in_an_unusable_directory(graph, monkeypatch, capfd, in_the_way):
    monkeypatch.setenv("STARC_CACHE_DIR", str(in_the_way))
    assert main(["graph", "info", graph, "--cache"]) == 2
    assert capfd.readouterr().err == (f"starc: error[E0601]: cannot use the cache directory "
                                      f"'{in_the_way}' (set by STARC_CACHE_DIR): a file is in "
                                      f"the way of the directory{FIX}\n")


def test_the_opencl_probe_uses_the_cache_too(monkeypatch):
    from starc.backends.opencl import toolchain
    monkeypatch.setenv("STARC_CACHE_DIR", "/proc/nope")
    with pytest.raises(UsageError, match="^cannot use the cache directory '/proc/nope'"):
        toolchain._probe_binary("g++")
