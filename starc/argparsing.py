"""ExactArgumentParser: every starc command line matches option names exactly and reports
a command-line error in two lines."""

from __future__ import annotations

import argparse
import difflib
import math
from typing import Callable, Optional

__all__ = ["ExactArgumentParser", "whole_number", "finite_number", "nearest_option"]


class ExactArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser without prefix matching (``allow_abbrev``): with it,
    ``starc run ... --s 4`` (a program parameter) would silently become
    ``--sycl-compiler 4``, and ``--d 0`` in a generated program ``--device 0``. Subcommand
    parsers are created with the parent's class, so they inherit this."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """The error and where to look, not the whole usage (which wraps over many lines):
        status 2, as every command-line error."""
        self.exit(2, f"{self.prog}: error: {message}\n(see '{self.prog} --help')\n")


def whole_number(low: int = 0, high: Optional[int] = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` (to ``high``), so a bad value is reported
    with the option's name as typed, not as the Python parameter it becomes."""
    def parse(text: str) -> int:
        value = int(text) if text.strip().lstrip("+-").isdecimal() else None
        if value is None or value < low or (high is not None and value > high):
            within = f"{low}..{high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"expected a whole number, {within}, "
                                             f"got '{text}'")
        return value
    return parse


def finite_number(low: float = 0.0, high: Optional[float] = None) -> Callable[[str], float]:
    """An argparse ``type``: a finite number from ``low`` (to ``high``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            within = f"{low:g}..{high:g}" if high is not None else f"{low:g} or more"
            raise argparse.ArgumentTypeError(f"expected a number, {within}, got '{text}'")
        return value
    return parse


def nearest_option(token: str, known) -> Optional[str]:
    """The option of ``known`` (``--name`` spellings) that ``token`` (``--nmae`` or
    ``--nmae=value``) most likely misspells, or None: exact matching stays the rule, this
    only words the error that follows."""
    name = token.split("=", 1)[0]
    if not name.startswith("--") or name in known:
        return None
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    if not close:          # a case slip: --Src for --src
        close = [k for k in sorted(known) if k.lower() == name.lower()][:1]
    return close[0] if close else None
