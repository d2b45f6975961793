"""Time parsing every dsl/*.sp program: ``python bench/bench_parse.py [-n REPEAT]``."""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from starc.frontend import parse  # noqa: E402  (after the path set-up above)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", "--repeat", type=int, default=50,
                        help="parses per file (default 50)")
    parser.add_argument("files", nargs="*", help="programs to parse (default dsl/*.sp)")
    args = parser.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "dsl", "*.sp")))
    if not files:
        print("no programs found")
        return 0

    start = time.perf_counter()
    parse("function warm_up() { }")          # builds the lexer and LALR tables once
    print(f"{'table build':<24} {1000 * (time.perf_counter() - start):9.2f} ms (once)")

    total = 0.0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        start = time.perf_counter()
        for _ in range(args.repeat):
            parse(text, path)
        elapsed = (time.perf_counter() - start) / args.repeat
        total += elapsed
        lines = text.count("\n") + 1
        print(f"{os.path.basename(path):<24} {1000 * elapsed:9.3f} ms/parse  ({lines} lines)")
    print(f"{'total':<24} {1000 * total:9.3f} ms for {len(files)} files "
          f"(mean of {args.repeat} runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
