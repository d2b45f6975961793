"""Render a backend's device prelude: its template plus the helpers all backends share.

Each backend's ``templates/prelude.*.mako`` holds what only that target has (CUDA's error
checks, SYCL's queue and USM operations, OpenCL's extension pragmas, the per-element locks)
and places the blocks rendered once for every backend from
``common/templates/device_helpers.mako``: the atomic helpers of the backend's atomic table,
the run-time check helpers and the sorted-adjacency searches (followed by randSP's
``starc_random`` where a kernel uses it, and the union-find's links and finds likewise).
``DECLARATIONS`` says how each
backend declares them (qualifiers, address spaces, the 64-bit type, indentation).
"""

from __future__ import annotations

import pathlib
import re
from typing import Dict, Iterable, Mapping, Optional, Set, Tuple

from starc.backends.common import atomic_helpers
from starc.backends.common.atomic_helpers import AtomicTable, Family
from starc.backends.common.templating import template_lookup
from starc.records import Record, record

__all__ = ["Declarations", "DECLARATIONS", "render_prelude", "shared_helpers"]

_BACKENDS = pathlib.Path(__file__).resolve().parent.parent


@record
class Declarations(Record):
    """How one backend declares the shared helpers."""

    device: str                 # qualifiers of a function only kernels call
    anywhere: str               # qualifiers of a function host code calls too
    long: str                   # the 64-bit integer type
    global_space: str = ""      # address-space qualifier of device arrays, with its space
    volatile_atomics: bool = False
    star_with_name: bool = False    # "int *p" (C style) rather than "int* p" (C++ style)
    indent: str = "  "

    def _pointer(self, pointee: str) -> str:
        return f"{pointee} *" if self.star_with_name else f"{pointee}* "

    def atomic_pointer(self, ctype: str) -> str:
        """The parameter type, up to the name, of memory updated atomically."""
        volatile = "volatile " if self.volatile_atomics else ""
        return self._pointer(f"{volatile}{self.global_space}{ctype}")

    def global_pointer(self, ctype: str, const: bool = False) -> str:
        return self._pointer(f"{self.global_space}{'const ' if const else ''}{ctype}")

    def local_pointer(self, ctype: str) -> str:
        return self._pointer(ctype)

    def atomic_signature(self, helper, update: bool = False) -> str:
        """The declaration of an atomic helper (``atomic_helpers.AtomicHelper``), or of its
        result-less update form, up to the body."""
        result, name = ("void", helper.update_name) if update else (helper.ctype, helper.name)
        return f"{self.device} {result} {name}({self.atomic_pointer(helper.ctype)}p, " \
               f"{helper.ctype} v)"

    @staticmethod
    def fits(*parts: str) -> bool:
        """Whether a line of these parts fits in the 100 columns of generated code (indented
        by four here, two in the C++ preludes)."""
        return sum(len(part) for part in parts) <= 100

    @property
    def integers(self):
        """(helper suffix, C type) of the integer types."""
        return (("int", "int"), ("long", self.long))


DECLARATIONS: Mapping[str, Declarations] = {
    "opencl": Declarations(device="inline", anywhere="inline", long="long",
                           global_space="__global ", volatile_atomics=True,
                           star_with_name=True, indent="    "),
    "cuda": Declarations(device="__device__ inline", anywhere="__host__ __device__ inline",
                         long="long long"),
    "sycl": Declarations(device="inline", anywhere="inline", long="long long"),
    # A function called inside an OpenACC compute region needs a routine directive (on the
    # line before it: the qualifier is printed at the start of the declaration).
    "openacc": Declarations(device="#pragma acc routine seq\ninline",
                            anywhere="#pragma acc routine seq\ninline", long="long long"),
    "mpi": Declarations(device="inline", anywhere="inline", long="long long"),
}


def _lookup():
    return template_lookup(str(_BACKENDS))


def _reindent(text: str, unit: str) -> str:
    """``text`` indented by ``unit`` per level (the shared template indents by four)."""
    if unit == "    ":
        return text
    return re.sub(r"^(?:    )+", lambda m: unit * (len(m.group(0)) // 4), text, flags=re.M)


def shared_helpers(backend: str, atomics: AtomicTable, used: Optional[Set[Family]] = None,
                   random: bool = True,
                   wrapping: Optional[Set[Tuple[str, str]]] = None,
                   union_find: bool = False) -> Dict[str, str]:
    """The shared blocks of ``backend``'s prelude, by the names its template uses:
    ``atomic_helpers`` (from its table ``atomics``, only the families in ``used``; all when
    None), ``run_time_checks``
    (ending with the wrapping arithmetic helpers ``wrapping`` names as (operation, type
    suffix), all when None: only kernels with ``WrappingArith`` need them), ``graph_queries``
    (ending with the random numbers when ``random``: only randSP needs them; then the
    union-find's links and finds when ``union_find``: ``analysis.union_find``)."""
    declarations = DECLARATIONS[backend]
    template = _lookup().get_template("/common/templates/device_helpers.mako")
    arguments = {"atomic_helpers": (atomic_helpers.families(atomics, used), declarations),
                 "run_time_checks": (declarations,), "graph_queries": (declarations,)}
    if random:
        arguments["random_numbers"] = (declarations,)
    if union_find:
        arguments["union_find"] = (declarations,)
    if wrapping is None or wrapping:
        arguments["wrapping_arithmetic"] = (wrapping, declarations)
    blocks = {name: _reindent(template.get_def(name).render(*args).strip("\n"),
                              declarations.indent)
              for name, args in arguments.items()}
    # Printed after a block of the template's: no template places them, none leaves a gap.
    if "wrapping_arithmetic" in blocks:
        blocks["run_time_checks"] += "\n\n" + blocks.pop("wrapping_arithmetic")
    if random:
        blocks["graph_queries"] += "\n\n" + blocks.pop("random_numbers")
    if union_find:
        blocks["graph_queries"] += "\n\n" + blocks.pop("union_find")
    return blocks


def render_prelude(backend: str, template: str, features: Optional[Iterable[str]] = None, *,
                   atomics: AtomicTable, **values) -> str:
    """``<backend>/templates/<template>`` rendered with the shared helpers, the atomic ones
    (from the backend's table ``atomics``) only for the families the kernels' ``features``
    use (every family when None), the random
    numbers only when a kernel uses them (feature ``random``), likewise the wrapping arithmetic
    (features ``wrapping:<operation>:<type suffix>``) and the union-find (feature
    ``union_find``, never for all: no prelude rendered for every kernel needs it)."""
    features = None if features is None else set(features)
    used = None if features is None else atomic_helpers.used_families(features)
    random = features is None or "random" in features
    union_find = features is not None and "union_find" in features
    wrapping = None if features is None else {tuple(f.split(":")[1:]) for f in features
                                              if f.startswith("wrapping:")}
    return _lookup().get_template(f"/{backend}/templates/{template}").render(
        **shared_helpers(backend, atomics, used, random, wrapping, union_find), **values)
