"""The interface every backend implements, and the result types of generate and build."""

from __future__ import annotations

import dataclasses
import pathlib
import re
from typing import TYPE_CHECKING, Dict, List, Optional

from starc.errors import BackendError, UsageError  # BackendError re-exported: backends raise it
from starc.records import Record, record

__all__ = ["Availability", "GeneratedProgram", "BuiltProgram", "BackendOption", "BackendOptions",
           "Launch", "Backend", "BackendError"]

# The source maps are imported where a program is made: they import the whole plan, and the
# registry (so every command line, `starc check` too) imports this module.
if TYPE_CHECKING:
    from starc.backends.common.sourcemap import Span


@record
class Availability(Record):
    """Whether the backend can build (and run) here: ``detail`` names the toolchain/device
    found, or the reason it is unavailable."""

    can_build: bool
    can_run: bool
    detail: str


@record
class BackendOption(Record):
    """A command-line option one backend declares (in its package's ``OPTIONS``, listed by
    the registry): ``starc build prog.sp -b cuda --gpu-arch sm_90``. ``pattern``, when given,
    is what a value must match in full; ``expects`` says it in words for the error."""

    flag: str
    help: str
    default: Optional[str] = None
    pattern: Optional[str] = None
    expects: str = ""
    #: the value is a command line (a program and its arguments, quoted as in a shell)
    command: bool = False

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def check(self, value: Optional[str]) -> Optional[str]:
        """The error message for a bad ``value``, or None."""
        if value is not None and self.command:
            import shlex
            try:
                if not shlex.split(value):
                    return f"{self.flag} expects a command, got an empty value"
            except ValueError as error:
                return f"{self.flag} expects a command quoted as in a shell, got {value!r} " \
                       f"({str(error).lower()})"
        if value is None or self.pattern is None or re.fullmatch(self.pattern, value):
            return None
        wanted = self.expects or f"a value matching {self.pattern!r}"
        return f"{self.flag} expects {wanted}, got {value!r}"


@dataclasses.dataclass
class BackendOptions:
    """Options from the command line that backends understand: the shared ``--block-size``
    and, in ``extra`` by ``BackendOption.dest``, those a backend declares itself."""

    block_size: Optional[int] = None     # None: the backend's default (CUDA, OpenCL: 256)
    #: the kernel schedule ``--schedule`` forces (``analysis.schedules``); None: ``auto``
    schedule: Optional[str] = None
    extra: Dict[str, str] = dataclasses.field(default_factory=dict)

    def value(self, option: BackendOption) -> Optional[str]:
        """The value given for ``option``, else its default."""
        return self.extra.get(option.dest, option.default)


@record
class Launch(Record):
    """How the user asked to start a program that runs on several processes (MPI):
    ``ranks`` (None: the backend's default), ``oversubscribe`` (more ranks than slots),
    ``hostfile`` (the hosts, as mpirun's --hostfile) and ``command`` (a launcher that
    replaces mpirun and decides the ranks itself, e.g. "srun -n 64")."""

    ranks: object = None          # as given: the launcher checks it is a positive integer
    oversubscribe: bool = False
    hostfile: Optional[str] = None
    command: Optional[str] = None

    def given(self) -> List[str]:
        """The options set, as the command line spells them."""
        return [flag for flag, value in (("--np", self.ranks is not None),
                                         ("--oversubscribe", self.oversubscribe),
                                         ("--hostfile", self.hostfile is not None),
                                         ("--launcher", self.command is not None)) if value]


@dataclasses.dataclass
class GeneratedProgram:
    """Files written by ``generate``: name -> text. ``main`` is the file a user builds/runs;
    ``build_hint`` the one-line build command also written in its header comment."""

    backend: str
    function: str
    files: Dict[str, str]
    main: str
    build_hint: str = ""
    #: file -> {generated line (from 1): the DSL span it comes from}; made from the markers
    #: the shared printers put in the text (``common/sourcemap.py``), which are taken out here
    sourcemap: Dict[str, Dict[int, Span]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        from starc.backends.common.sourcemap import strip
        for name, text in list(self.files.items()):
            self.files[name], spans = strip(text)
            if spans:
                self.sourcemap[name] = spans

    @property
    def program_files(self) -> List[str]:
        """The files generated for this program (``main`` first, then every file with a line
        from the DSL), without the runtime headers every program of the backend shares."""
        return [self.main] + [f for f in self.files if f != self.main and f in self.sourcemap]

    def write(self, outdir: pathlib.Path) -> List[pathlib.Path]:
        """Write every file atomically (temp file + rename) so nothing half-written remains."""
        outdir.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in self.files.items():
            path = outdir / name
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text)
            tmp.replace(path)
            written.append(path)
        return written


@dataclasses.dataclass
class BuiltProgram:
    """A program ready to run: ``argv_prefix`` + [graph, options...] runs it."""

    backend: str
    function: str
    directory: pathlib.Path
    argv_prefix: List[str]


class Backend:
    """Base class: a backend turns a plan (``starc.analysis.plan.Plan``) into a program."""

    name: str = ""
    description: str = ""
    #: whether built programs accept --stats (communication counters on stderr)
    has_stats: bool = False

    # What `starc explain` tells students about this backend (starc/teaching), kept here so
    # each spelling has one place per backend.
    #: the backend's name in prose ("CUDA")
    title: str = ""
    #: work items per work-group when --block-size is not given (None: the runtime's choice)
    default_block_size: Optional[int] = None
    #: how one kernel runs: a format of ``kernel``, ``items`` ("n" vertices or "m" edges),
    #: ``item`` ("vertex" or "edge"), ``plural`` ("vertices") and ``block`` (the work-group
    #: size, "N" where the runtime chooses), and why
    launch_shape: str = ""
    launch_why: str = ""
    #: how a program of a target that learns its device kind at run time picks a kernel's
    #: variant for lockstep devices (``Kernel.lockstep_variant``), for ``explain``
    variant_choice: str = ""
    #: how the host copies an array to the device and back ("": one memory, no copies)
    copy_to_device: str = ""
    copy_to_host: str = ""
    #: how the host writes one element of a device array, where not as ``copy_to_device``
    write_element: str = ""
    #: the target's capabilities (``analysis.capabilities``): what the specialize stage reads
    capabilities = None
    #: the backend's atomic table (an ``atomic_helpers.AtomicTable``, its ``kernels.ATOMICS``):
    #: how it spells each atomic choice, for ``starc explain``
    atomics = None

    def native_reduction(self, kernel, reduction) -> str:
        """How a native reduction object carries ``reduction`` (a ``ScalarReduction`` of
        ``kernel`` whose ``strategy`` is ``native``), in the backend's spelling, for ``starc
        explain``."""
        return ""

    def group_combine(self, reduction) -> str:
        """How the privates of a ``reduction`` whose ``strategy`` is ``group`` fold before their
        atomic, in words for ``starc explain``."""
        return ""

    def group_append(self) -> str:
        """How the work items of a group that append to a worklist together take their slots
        with one atomic (``QueueAppend.form`` ``group``), in words for ``starc explain``."""
        return ""

    def availability(self) -> Availability:
        raise NotImplementedError

    def specialize(self, plan, options: Optional[BackendOptions] = None):
        """``plan`` (neutral) specialized for this backend (``analysis.specialize``), with the
        kernel schedule ``options`` force, if any."""
        from starc.analysis.specialize import specialize
        return specialize(plan, self.capabilities, options.schedule if options else None)

    def generate(self, plan, options: BackendOptions) -> GeneratedProgram:
        """The program's files for the neutral ``plan``: specialized, then printed."""
        return self.print_program(self.specialize(plan, options), options)

    def print_program(self, plan, options: BackendOptions) -> GeneratedProgram:
        """The program's files for a specialized ``plan`` (``plan.target`` set): it prints
        what the plan says and decides nothing."""
        raise NotImplementedError

    def build(self, generated: GeneratedProgram, outdir: pathlib.Path,
              options: BackendOptions) -> BuiltProgram:
        """Write and compile; raise ``BackendError`` with the compiler's message on failure."""
        raise NotImplementedError

    def launcher(self, options: BackendOptions, launch: Launch = Launch()) -> List[str]:
        """The command put before a built program's ``argv_prefix`` to run it (MPI:
        ``mpirun -np N ...``); [] runs it directly. ``launch`` is what the user asked for,
        which only a backend that runs several processes accepts."""
        given = launch.given()
        if "--np" in given:
            raise UsageError(f"the {self.name} backend runs one process: a number of "
                             "processes (--np, ranks=) is for the mpi backend")
        if given:
            raise UsageError(f"the {self.name} backend runs one process: {given[0]} is for "
                             "the mpi backend")
        return []

    def ranks(self, options: BackendOptions, launch: Launch = Launch()) -> Optional[int]:
        """How many processes ``launcher`` starts; None for one process, or where a launcher
        the user gave decides."""
        return None
