"""The atomic helper families of the device preludes: operator x type, native or CAS, per backend.

Every backend's prelude defines ``starc_atomic_<op>_<type>(p, v)``, which updates ``*p`` and
returns the old value, for every family in ``FAMILIES``. Each backend package keeps its own
``AtomicTable`` (``ATOMICS`` in ``<backend>/kernels.py``, next to the ``CAPABILITIES`` that
``atomic_capabilities`` derives from it, and the ``Backend.atomics`` that ``starc explain``
reads): which families map to a native instruction (and how it is spelled) and how the backend
compares and swaps each type; every other family is a compare-and-swap loop, the same loop on
every backend (``common/templates/device_helpers.mako``). As in loopy, the capability decides:
a backend that gains a native instruction changes one table entry, not a hand-copied loop. This
module keeps what the tables share: their records, the directive-model table OpenACC and MPI
build, and the helper families a prelude renders from a table.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["OPERATORS", "ELEMENT_TYPES", "FAMILIES", "CPP_TYPES", "INTEGER_TYPES", "Native",
           "CompareExchange", "AtomicTable", "same_call", "CUDA_INTEGER_EXCHANGE", "directive_atomics", "AtomicHelper",
           "TypeFamily", "families", "used_families", "extensions", "atomic_capabilities"]

_INT, _LONG, _FLOAT, _DOUBLE = Scalar.INT, Scalar.LONG, Scalar.FLOAT, Scalar.DOUBLE
Family = Tuple[str, Scalar]

#: The operators of the helper API, in the order each prelude defines them.
OPERATORS = ("add", "sub", "mul", "and", "or", "min", "max")

#: The element types of the helper API and their helper-name suffix, the same on every backend
#: whatever the C type is called there (``starc_atomic_add_long`` takes a ``long long*`` in C++).
ELEMENT_TYPES: Mapping[Scalar, str] = {_INT: "int", _LONG: "long", _FLOAT: "float",
                                       _DOUBLE: "double"}

_BITWISE = ("and", "or")
_INTEGERS = (_INT, _LONG)

#: Every helper family: bitwise operators on integers only.
FAMILIES: FrozenSet[Family] = frozenset(
    (op, t) for t in ELEMENT_TYPES for op in OPERATORS if op not in _BITWISE or t in _INTEGERS)


@record
class Native(Record):
    """A native instruction: ``call``, an expression of the helper's ``p`` and ``v``, performs
    the update and gives the old value."""

    call: str
    #: OpenCL device extensions the instruction needs
    requires: Tuple[str, ...] = ()
    #: a preprocessor condition under which the instruction is missing and the helper falls
    #: back to the compare-and-swap loop, and that condition in words for ``starc explain``
    #: (the condition itself where empty)
    fallback_if: Optional[str] = None
    fallback_words: str = ""
    #: a directive making ``statement`` (an update of ``*p`` by ``v``) atomic, where the
    #: instruction is a directive rather than a call (OpenACC's ``atomic capture``): the
    #: helper captures the old value with it and ``call`` is unused
    pragma: Optional[str] = None
    statement: Optional[str] = None


@record
class CompareExchange(Record):
    """How a backend compares and swaps one element type, as
    ``starc_compare_exchange_<type>(p, &expected, desired)``: either one ``call`` returning
    whether it stored (SYCL's ``atomic_ref``), or an ``exchange`` instruction on an integer
    type ``bits`` that returns the value it found, with formats converting values to bits
    and back and ``p`` to a pointer to bits (identity where the type is the bits). Under the
    preprocessor condition ``alternative_if`` the helper does as ``alternative`` says instead
    (OpenACC under nvc++: CUDA's atomicCAS, where GCC's builtin is the other compilers')."""

    call: Optional[str] = None
    exchange: Optional[str] = None
    bits: Optional[str] = None
    value_to_bits: str = "{}"
    bits_to_value: str = "{}"
    bits_pointer: str = "{}"
    requires: Tuple[str, ...] = ()
    alternative: Optional["CompareExchange"] = None
    alternative_if: Optional[str] = None

    @property
    def converts(self) -> bool:
        """Whether a value must be converted to the bits the instruction exchanges."""
        return self.value_to_bits != "{}"

    def to_bits(self, value: str) -> str:
        return self.value_to_bits.format(value)

    def to_value(self, bits: str) -> str:
        return self.bits_to_value.format(bits)

    def pointer(self, p: str) -> str:
        return self.bits_pointer.format(p)


@record
class AtomicTable(Record):
    """One backend's atomics: C type names, native instructions by family (every other family
    is a compare-and-swap loop), how each type is compared and swapped, how a loop reads the
    first old value (a format of the C type), and result-less updates by family."""

    c_types: Mapping[Scalar, str]
    native: Mapping[Family, Native]
    compare_exchange: Mapping[Scalar, CompareExchange]
    load: str = "*p"
    updates: Mapping[Family, str] = dataclasses.field(default_factory=dict)
    #: the directive preceding each statement of ``updates`` (OpenACC's ``atomic update``)
    update_pragma: Optional[str] = None
    #: in words, for ``starc explain``: what the atomics are built on, and why an operator
    #: is a compare-and-swap loop where that is not simply a missing instruction
    about: str = ""
    why_loop: Mapping[str, str] = dataclasses.field(default_factory=dict)


#: the C++ name of each element type (CUDA, SYCL, OpenACC, OpenMP)
CPP_TYPES: Mapping[Scalar, str] = {_INT: "int", _LONG: "long long", _FLOAT: "float",
                                   _DOUBLE: "double"}
#: the integer element types (bitwise operators, 64-bit integer extensions)
INTEGER_TYPES = _INTEGERS
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|"}
#: the arithmetic families OpenACC's atomic construct updates (bitwise ones on integers only)
_OPENACC_UPDATES = [(op, t) for op in _SYMBOLS for t in CPP_TYPES
                    if op in ("add", "sub", "mul") or t in _INTEGERS]


def same_call(ops: Iterable[str], types: Iterable[Scalar], call: str, **native) -> Dict:
    """``call`` formatted with each operator (``op``, ``Op``) and C++ type (``t``)."""
    return {(op, t): Native(call.format(op=op, Op=op.capitalize(), t=CPP_TYPES[t]), **native)
            for op in ops for t in types}


#: CUDA's compare-and-swap of the C++ integer types (CUDA's table and OpenACC's under nvc++)
_ULL = "unsigned long long"
CUDA_INTEGER_EXCHANGE = {
    _INT: CompareExchange(exchange="atomicCAS", bits="int"),
    _LONG: CompareExchange(exchange="atomicCAS", bits=_ULL, value_to_bits=f"({_ULL}){{}}",
                           bits_to_value="(long long){}", bits_pointer=f"({_ULL}*){{}}")}
#: ... and of all four, floats as their bits in unsigned integers (``starc_bit_cast`` is the
#: OpenACC prelude's: CUDA's __float_as_int is not there on nvc++'s host side)
_CUDA_EXCHANGE = {
    **CUDA_INTEGER_EXCHANGE,
    _FLOAT: CompareExchange(exchange="atomicCAS", bits="unsigned int",
                            value_to_bits="starc_bit_cast<unsigned int>({})",
                            bits_to_value="starc_bit_cast<float>({})",
                            bits_pointer="(unsigned int*){}"),
    _DOUBLE: CompareExchange(exchange="atomicCAS", bits=_ULL,
                             value_to_bits=f"starc_bit_cast<{_ULL}>({{}})",
                             bits_to_value="starc_bit_cast<double>({})",
                             bits_pointer=f"({_ULL}*){{}}")}


def directive_atomics(model: str, name: str, cuda_macro: Optional[str] = None) -> AtomicTable:
    """Atomics of a directive model (``acc``, ``omp``): ``atomic capture``/``atomic update``
    for + - * & |, and Min/Max as the shared compare-and-swap loop on GCC's __atomic builtins
    (GCC's nvptx offloading compiles them to device atomics) -- never ``atomic write``, which
    would race. OpenACC has no compare-and-swap, and its min/max are not atomic operators.

    nvc++ -acc rejects GCC's builtins in device code: where the macro ``cuda_macro`` is
    defined (OpenACC's prelude defines it under nvc++) the compare-and-swap is CUDA's
    atomicCAS and Min/Max on int CUDA's atomicMin/atomicMax, as in Kokkos's desul (its
    OpenACC atomics under ``__NVCOMPILER``); 64-bit and floating-point Min/Max stay loops (on
    atomicCAS). OpenACC's table (``openacc/kernels.py``) and MPI's OpenMP one
    (``mpi/kernels.py``, host threads only: no ``cuda_macro``) are built here."""
    gcc = "__atomic_compare_exchange(p, expected, &desired, false, __ATOMIC_RELAXED, " \
          "__ATOMIC_RELAXED)"
    native = {(op, t): Native("", pragma=f"#pragma {model} atomic capture",
                              statement=f"*p {_SYMBOLS[op]}= v")
              for op, t in _OPENACC_UPDATES}
    loop_on = "GCC's __atomic_compare_exchange"
    about = f"{name}'s atomic construct for + - * & |; GCC's __atomic builtins otherwise"
    cuda_if = f"defined({cuda_macro})" if cuda_macro else None
    if cuda_macro is not None:
        native.update(same_call(("min", "max"), [_INT], "atomic{Op}(p, v)",
                                fallback_if=f"!{cuda_if}", fallback_words="on GCC's __atomic_compare_exchange except under nvc++"))
        loop_on += " (CUDA's atomicCAS under nvc++)"
        about = (f"{name}'s atomic construct for + - * & |; otherwise GCC's __atomic builtins, "
                 "or under nvc++ CUDA's atomicCAS, atomicMin and atomicMax")
    return AtomicTable(
        c_types=CPP_TYPES,
        native=native,
        compare_exchange={t: CompareExchange(
            call=gcc, alternative=_CUDA_EXCHANGE[t] if cuda_if else None,
            alternative_if=cuda_if) for t in CPP_TYPES},
        updates={(op, t): f"*p {_SYMBOLS[op]}= v" for op, t in _OPENACC_UPDATES},
        update_pragma=f"#pragma {model} atomic update",
        about=about,
        why_loop={op: f"{name}'s atomic construct has no {op} operator and no "
                      f"compare-and-swap, so a loop on {loop_on} "
                      "retries until no other thread changed the value in between"
                  for op in ("min", "max")})


def atomic_capabilities(table: AtomicTable) -> Dict[str, FrozenSet[Family]]:
    """The ``analysis.capabilities.Capabilities`` fields a table gives: its families with an
    instruction, with a directive, and with a result-less update form."""
    return dict(
        atomic_instructions=frozenset(f for f, n in table.native.items() if n.pragma is None),
        atomic_directives=frozenset(f for f, n in table.native.items() if n.pragma is not None),
        atomic_fallbacks=tuple(
            (f, n.fallback_words or f"where {n.fallback_if}") for f, n in table.native.items()
            if n.fallback_if and n.pragma is None),
        atomic_updates=frozenset(table.updates))


@record
class AtomicHelper(Record):
    """One ``starc_atomic_<op>_<type>`` of a backend, as its prelude template prints it."""

    op: str
    suffix: str
    ctype: str
    native: Optional[Native]
    load: str                  # the loop's first read of *p
    update: Optional[str]      # the call of starc_atomic_update_<op>_<type>, if the backend has it
    update_pragma: Optional[str] = None   # the directive before ``update`` (AtomicTable)

    @property
    def name(self) -> str:
        return f"starc_atomic_{self.op}_{self.suffix}"

    @property
    def update_name(self) -> str:
        return f"starc_atomic_update_{self.op}_{self.suffix}"

    @property
    def loops(self) -> bool:
        """Whether the helper holds a compare-and-swap loop (always, or as a fallback)."""
        return self.native is None or self.native.fallback_if is not None

    @property
    def improves(self) -> Optional[str]:
        """Min/Max: the condition under which v must be stored (false for NaN)."""
        return {"min": "v < old", "max": "v > old"}.get(self.op)

    @property
    def new_value(self) -> str:
        """The value an arithmetic loop stores in place of ``old``. Integers compute in the
        unsigned type: it wraps like two's complement without signed-overflow UB."""
        symbol = _SYMBOLS[self.op]
        if self.suffix in ("int", "long") and self.op in ("add", "sub", "mul"):
            unsigned = f"unsigned {self.ctype}"
            return f"({self.ctype})(({unsigned})old {symbol} ({unsigned})v)"
        return f"old {symbol} v"


@record
class TypeFamily(Record):
    """The helpers of one element type, with the compare-and-swap they need (None if none)."""

    suffix: str
    ctype: str
    helpers: Tuple[AtomicHelper, ...]
    compare_exchange: Optional[CompareExchange]

    @property
    def heading(self) -> List[str]:
        """What is native and what loops (``int: native add sub; compare-and-swap mul``), as
        comment lines."""
        native = [h for h in self.helpers if h.native is not None]
        parts = []
        if native:
            parts.append("native " + " ".join(h.op for h in native) + "".join(
                sorted({" (compare-and-swap " + (h.native.fallback_words
                                              or f"if {h.native.fallback_if}") + ")"
                    for h in native if h.native.fallback_if})))
        looped = [h.op for h in self.helpers if h.native is None]
        if looped:
            parts.append("compare-and-swap " + " ".join(looped))
        return textwrap.wrap(f"{self.ctype}: " + "; ".join(parts), 93,
                             subsequent_indent="    ")


def families(table: AtomicTable, used: Optional[Set[Family]] = None) -> List[TypeFamily]:
    """The atomic helpers of a backend's ``table`` by element type, in helper-API order: those
    in ``used`` (every family when None). The int compare-and-swap is always there: the
    run-time checks record a failure with it."""
    result = []
    for elem, suffix in ELEMENT_TYPES.items():
        ctype = table.c_types[elem]
        helpers = [AtomicHelper(op, suffix, ctype, table.native.get((op, elem)),
                                table.load.format(ctype), table.updates.get((op, elem)),
                                table.update_pragma)
                   for op in OPERATORS
                   if (op, elem) in FAMILIES and (used is None or (op, elem) in used)]
        helpers.sort(key=lambda h: h.loops)      # the one-line native helpers first
        needs_exchange = elem is _INT or any(h.loops for h in helpers)
        if helpers or needs_exchange:
            result.append(TypeFamily(suffix, ctype, tuple(helpers),
                                     table.compare_exchange[elem] if needs_exchange else None))
    return result


def _feature_names() -> Dict[str, Family]:
    """The kernel feature each family's use records (``atomic_min_node``: ids are ints)."""
    names = {}
    for op, elem in FAMILIES:
        aliases = (elem, Scalar.NODE, Scalar.EDGE) if elem is _INT else (elem,)
        names.update((f"atomic_{op}_{alias}", (op, elem)) for alias in aliases)
    return names


_FEATURES = _feature_names()


def used_families(features: Iterable[str]) -> Set[Family]:
    """The families a set of kernel features (``KernelCode.features``) uses."""
    return {_FEATURES[f] for f in features if f in _FEATURES}


def extensions(table: AtomicTable, used: Optional[Set[Family]] = None) -> Set[str]:
    """The device extensions the helpers of ``used`` (every family when None) of a backend's
    ``table`` need."""
    needed: Set[str] = set()
    for family in families(table, used):
        for helper in family.helpers:
            if helper.native is not None:
                needed.update(helper.native.requires)
        if family.compare_exchange is not None:
            needed.update(family.compare_exchange.requires)
    return needed
