"""ExactArgumentParser: every starc command line matches option names exactly and reports
a command-line error in two lines."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Optional

__all__ = ["ExactArgumentParser", "nearest_option"]


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

    def _print_message(self, message: str, file=None) -> None:
        """argparse's, without its silence on a failed write: ``--help`` into a full disk
        or a closed pipe must end as every other failed write to stdout does (starc.cli)."""
        if message:
            (file or sys.stderr).write(message)


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
    if not close:          # an abbreviation of one option: --undir, --gr (argparse-style)
        close = [k for k in sorted(known) if k.startswith(name)]
        close = close if len(close) == 1 and len(name) > 3 else []
    return close[0] if close else None
