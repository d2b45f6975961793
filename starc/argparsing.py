"""ExactArgumentParser: every starc command line matches option names exactly and reports
a command-line error in two lines."""

from __future__ import annotations

import argparse

__all__ = ["ExactArgumentParser"]


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
