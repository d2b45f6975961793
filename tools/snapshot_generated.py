"""Write the generated code of every .sp program under the given roots for every device
backend into one directory tree, so a refactor can be diffed against the code it replaced:

    python tools/snapshot_generated.py /tmp/before
    ... refactor ...
    python tools/snapshot_generated.py /tmp/after && diff -ru /tmp/before /tmp/after

Programs a backend rejects get an ``ERROR`` file with the message, so a change in what is
accepted shows up in the diff too."""

from __future__ import annotations

import argparse
import pathlib
import sys

from starc.backends import backend_names
from starc.backends.base import BackendOptions
from starc.diagnostics import DiagnosticSink
from starc.driver import compile_source, functions_of

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_ROOTS = ("dsl", "tests")


def snapshot(outdir: pathlib.Path, roots) -> int:
    count = 0
    for root in roots:
        for path in sorted((ROOT / root).rglob("*.sp")):
            source = path.read_text()
            rel = path.relative_to(ROOT).with_suffix("")
            for backend in backend_names():
                if backend == "reference":
                    continue
                sink = DiagnosticSink()
                comp = compile_source(source, str(path.relative_to(ROOT)), sink,
                                      backend=backend, options=BackendOptions())
                target = outdir / rel / backend
                target.mkdir(parents=True, exist_ok=True)
                if comp.generated is None:
                    lines = [d.message for d in sink.diagnostics if d.is_error]
                    if not functions_of(comp):
                        lines = lines or ["(did not parse)"]
                    (target / "ERROR").write_text("\n".join(lines) + "\n")
                    continue
                for name, text in comp.generated.files.items():
                    (target / name).write_text(text)
                count += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=pathlib.Path)
    parser.add_argument("roots", nargs="*", default=DEFAULT_ROOTS,
                        help="folders searched for .sp files (default: dsl tests)")
    args = parser.parse_args(argv)
    print(f"{snapshot(args.outdir, args.roots)} programs generated into {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
