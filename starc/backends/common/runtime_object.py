"""The runtime's entry points compiled once per toolchain and flags (starc_entry.hpp), so that
building a program compiles only its own code: about half the time of a build."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
import shutil
from typing import List, Optional, Sequence, Tuple

from starc import toolchains
from starc.backends.common.runtime_paths import RUNTIME_DIR
from starc.cachedir import cache_root, cache_workdir
from starc.errors import UsageError

__all__ = ["RuntimeEntries", "SEPARATE"]

#: What a program built against the compiled entries is compiled with (starc_entry.hpp).
SEPARATE = "-DSTARC_RUNTIME_SEPARATE"

_SOURCE = "starc_runtime.cpp"
_OBJECT = "starc_runtime.o"


@dataclasses.dataclass(frozen=True)
class RuntimeEntries:
    """The headers whose STARC_ENTRY functions one backend's programs call: the translation
    unit that defines them includes ``includes``, found among the ``*.hpp`` of the shared
    runtime and of ``dirs`` (the backend's own runtime folder)."""

    includes: Tuple[str, ...] = ("starc_runtime.hpp",)
    dirs: Tuple[pathlib.Path, ...] = ()

    def source(self) -> str:
        lines = ["// starc's runtime entry points (starc_entry.hpp), compiled once and linked",
                 "#define STARC_RUNTIME_SEPARATE", "#define STARC_RUNTIME_IMPLEMENTATION"]
        return "\n".join(lines + [f'#include "{name}"' for name in self.includes]) + "\n"

    def headers(self) -> List[pathlib.Path]:
        return sorted(p for d in (RUNTIME_DIR, *self.dirs) for p in d.glob("*.hpp"))

    def link(self, argv: Sequence[str]) -> List[str]:
        """``argv`` (a program's build command: compiler and flags, ``-o PROGRAM SOURCE``,
        then libraries) built against the compiled entries, or as it is where they cannot be
        compiled (then the program's own build reports what is wrong)."""
        argv = list(argv)
        out = argv.index("-o")
        try:
            built = self._object(argv[:out])
        except (OSError, UsageError):          # an unusable cache: build the program whole
            built = None
        if built is None:
            return argv
        return argv[:out] + [SEPARATE] + argv[out:out + 3] + [str(built)] + argv[out + 3:]

    def _object(self, compiler: List[str]) -> Optional[pathlib.Path]:
        """The entries' object file for ``compiler`` (its words and flags), from starc's build
        cache or compiled into it; None where it does not compile."""
        headers = self.headers()
        # the compiler's own file too: an upgrade under the same name compiles it again
        found = shutil.which(compiler[0])
        stamp = (os.stat(found).st_size, os.stat(found).st_mtime_ns) if found else None
        key = hashlib.sha256(json.dumps(
            [compiler, stamp, self.source(), [(p.name, p.read_text()) for p in headers]]).encode())
        cached = cache_root() / f"runtime-{key.hexdigest()[:24]}"
        if (cached / _OBJECT).exists():
            return cached / _OBJECT
        work = cache_workdir("runtime-")
        try:
            for header in headers:
                shutil.copyfile(header, work / header.name)
            (work / _SOURCE).write_text(self.source())
            ok, _log = toolchains.run_compiler([*compiler, "-c", "-o", _OBJECT, _SOURCE],
                                               cwd=work)
            if not ok:
                return None
            try:
                os.replace(work, cached)
            except OSError:         # another process (a test worker) compiled it meanwhile
                pass
            return cached / _OBJECT if (cached / _OBJECT).exists() else None
        finally:
            shutil.rmtree(work, ignore_errors=True)
