"""Command-line errors look alike whichever check finds them: 'starc: error[E0601]: ...',
status 2, before any work."""

from __future__ import annotations

import pathlib

import pytest

from starc.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
SSSP = str(ROOT / "dsl" / "sssp.sp")


@pytest.mark.parametrize("argv, message", [
    (["check", SSSP, "-W", "nope"], "unknown warning flag '-W nope'"),
    (["compile", SSSP], "a backend is needed: -b "),
    (["compile", SSSP, "-b", "reference"], "the reference executor generates no program"),
    (["build", SSSP, "-b", "reference"], "the reference executor needs no build"),
    (["explain", SSSP, "--warp-width", "0"], "--warp-width must be from 1 to 1024, got 0"),
])
def test_a_command_line_error_is_coded_e0601(capsys, argv, message):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"starc: error[E0601]: {message}"), err
    assert len(err.splitlines()) == 1
