"""The C-family dialect: how one C-like backend spells each abstract operation.

A backend subclasses ``Dialect`` (type names, INF spellings, atomic helper names, array
indexing, locks, flags). Names of the runtime helpers are the same in every backend's prelude
(``starc_atomic_min_float``, ``starc_find_edge``, ``starc_lock_try`` ...), so only spellings
that really differ live in the dialects. A mapping a dialect lacks raises ``DialectError``
naming the operation and the backend; nothing is ever dropped silently.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, Iterable, Optional, Sequence, Tuple

from starc.analysis import plan
from starc.errors import BackendError
from starc.backends.common.atomic_helpers import ELEMENT_TYPES
from starc.ir.types import Scalar

__all__ = ["DialectError", "Dialect", "NativeReducers", "reducer_names", "ATOMIC_OPS",
           "GRAPH_ARRAYS", "INDENT", "C_KEYWORDS"]

INDENT = "    "

#: Abstract atomic read-modify-write operations and the reduction operator each serves.
ATOMIC_OPS = plan.ATOMIC_OPS

#: The CSR arrays of the graph, by the names the plan and the generated code use.
GRAPH_ARRAYS = tuple(plan.GRAPH_ARRAYS)   # their names, as kernel arguments

C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while bool true false class template typename namespace new
    delete this operator private public protected virtual friend using min max abs n m
""".split())


class DialectError(BackendError):
    """A construct or abstract operation the backend has no mapping for: a ``BackendError``,
    so the driver reports it at ``loc`` like any construct a backend cannot express."""

    def __init__(self, backend: str, operation: str, loc=None) -> None:
        where = f" at {loc.file}:{loc.line}" if loc is not None and loc.line > 0 else ""
        super().__init__(f"the {backend} backend cannot express {operation}{where}", loc)
        self.backend = backend
        self.operation = operation


class Dialect:
    """How one C-like target spells each abstract operation. Subclasses fill the tables.

    Every method that has no mapping raises ``DialectError`` through ``missing``.
    """

    name = "c"
    #: type of locals and by-value values in device code
    scalar_types: Dict[Scalar, str] = {
        Scalar.BOOL: "bool", Scalar.INT: "int", Scalar.LONG: "long long", Scalar.FLOAT: "float",
        Scalar.DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    #: element type of device arrays and by-value kernel arguments (bool is a byte)
    storage_types: Dict[Scalar, str] = {
        Scalar.BOOL: "unsigned char", Scalar.INT: "int", Scalar.LONG: "long long",
        Scalar.FLOAT: "float", Scalar.DOUBLE: "double", Scalar.NODE: "int", Scalar.EDGE: "int"}
    #: (INF, -INF) per type
    inf_values: Dict[Scalar, Tuple[str, str]] = {
        Scalar.INT: ("INT_MAX", "INT_MIN"), Scalar.NODE: ("INT_MAX", "INT_MIN"),
        Scalar.EDGE: ("INT_MAX", "INT_MIN"), Scalar.LONG: ("LLONG_MAX", "LLONG_MIN"),
        Scalar.FLOAT: ("FLT_MAX", "-FLT_MAX"), Scalar.DOUBLE: ("DBL_MAX", "-DBL_MAX")}
    long_suffix = "LL"
    #: (atomic op, element type) pairs the runtime prelude defines helpers for
    atomics: FrozenSet[Tuple[str, Scalar]] = frozenset()
    #: element-type suffix of the prelude helpers, the same in every backend whatever the C
    #: type is called there (``starc_atomic_add_long``, not ``..._long_long``)
    helper_suffixes: Dict[Scalar, str] = dict(ELEMENT_TYPES)
    #: Min/Max as a plain expression: function name per type
    minmax_functions: Dict[Tuple[str, Scalar], str] = {}
    reserved: FrozenSet[str] = C_KEYWORDS
    #: the statement that ends one work item early (a filtered-out vertex): ``return`` from a
    #: kernel function, ``continue`` where the kernel is a loop over the items (OpenACC)
    skip_item = "return"

    def missing(self, operation: str, loc=None):
        raise DialectError(self.name, operation, loc)

    def reducer(self, red) -> Optional[str]:
        """The name of the native reduction object that combines the private scalar
        reduction ``red`` (a ``plan.ScalarReduction`` with ``private`` set), or None to
        accumulate it in a work-item private and combine that with one atomic."""
        return None

    def vector_loop(self, reductions: Sequence[Tuple[str, str]]) -> str:
        """The directive line before a neighbour loop whose iterations the lanes of its
        vertex's gang share (``plan.VectorLoop``), each lane reducing a private copy of every
        ``(operator, name)`` of ``reductions``."""
        self.missing("a neighbour loop shared by a gang's vector lanes")

    def reducer_update(self, op: str, reducer: str, value: str) -> str:
        """One update of native reduction object ``reducer`` with reduction operator ``op``."""
        self.missing(f"a native '{op}' reduction")

    # --- types and constants ----------------------------------------------------------------
    def type_name(self, t) -> str:
        if t not in self.scalar_types:
            self.missing(f"the type '{t}' in device code")
        return self.scalar_types[t]

    def storage_type(self, t) -> str:
        if t not in self.storage_types:
            self.missing(f"device arrays of '{t}'")
        return self.storage_types[t]

    def inf(self, t: Scalar, negative: bool) -> str:
        if t not in self.inf_values:
            self.missing(f"{'-' if negative else ''}INF of type '{t}'")
        return self.inf_values[t][1 if negative else 0]

    def int_literal(self, value: int, t: Scalar) -> str:
        return f"{value}{self.long_suffix}" if t is Scalar.LONG else str(value)

    def float_literal(self, value: float, t: Scalar) -> str:
        text = repr(float(value))
        if text in ("inf", "-inf", "nan"):
            self.missing(f"the float constant {text}")
        if not any(c in text for c in ".e"):
            text += ".0"
        return text + ("f" if t is Scalar.FLOAT else "")

    def bool_literal(self, value: bool) -> str:
        return "true" if value else "false"

    # --- memory -------------------------------------------------------------------------------
    def index(self, array: str, index: str) -> str:
        return f"{array}[{index}]"

    def address(self, array: str, index: str) -> str:
        return f"&{array}[{index}]"

    # --- atomics, locks, flags -----------------------------------------------------------------
    def atomic_helper(self, op: str, elem: Scalar) -> str:
        """Name of the prelude helper for abstract ``op`` (add sub mul and or min max)."""
        stored = Scalar.INT if elem in (Scalar.NODE, Scalar.EDGE) else elem
        if (op, stored) not in self.atomics:
            self.missing(f"an atomic {op} on '{elem}'")
        return f"starc_atomic_{op}_{self.helper_suffixes[stored]}"

    def atomic(self, op: str, elem: Scalar, address: str, value: str) -> str:
        """An expression performing the atomic update; its value is the old element."""
        return f"{self.atomic_helper(op, elem)}({address}, {value})"

    def atomic_update(self, op: str, elem: Scalar, address: str, value: str) -> str:
        """An atomic update whose value is not used (a dialect may pick a cheaper form)."""
        return self.atomic(op, elem, address, value)

    def relaxed_load(self, lvalue: str, elem: Scalar) -> str:
        """A read of an element other work items update atomically at the same time (the
        plain read, where the language gives it a value: CUDA, OpenCL, OpenMP)."""
        return lvalue

    def lock_try(self, address: str) -> str:
        return f"starc_lock_try({address})"

    def lock_release(self, address: str) -> str:
        return f"starc_lock_release({address});"

    def flag_set(self, flag: str) -> str:
        return f"{self.index(flag, '0')} = 1;"

    #: a kernel of one work-group (extent ``group``): its items wait for each other, their
    #: global and local writes visible after it; and their count
    group_barrier: Optional[str] = None
    group_lanes: Optional[str] = None

    def group_function(self, text: Optional[str], what: str) -> str:
        if text is None:
            self.missing(what)
        return text

    def minmax(self, func: str, t: Scalar, left: str, right: str) -> str:
        if (func, t) not in self.minmax_functions:
            self.missing(f"{func} of '{t}' as an expression")
        return f"{self.minmax_functions[(func, t)]}({left}, {right})"

    def find_edge(self, offsets: str, targets: str, u: str, w: str,
                  ends: Optional[str] = None) -> str:
        """The first edge u -> w or -1; ``ends``: the rows' ends, in rows with slack."""
        if ends is not None:
            return f"starc_find_edge_in({offsets}, {ends}, {targets}, {u}, {w})"
        return f"starc_find_edge({offsets}, {targets}, {u}, {w})"

    def group_combine(self, op: str, elem: Scalar, local: str) -> Optional[str]:
        """Where work items combine a private reduction's ``local`` (of operator ``op``) into
        the scalar with one atomic each: a condition that first folds the locals of the work
        items reaching it together into one of them (``local`` then holds the fold) and is
        true in that one, which alone performs the atomic; None: each combines its own."""
        return None

    def group_fold(self, elem: Scalar, local: str, combine: str):
        """Where every work item of a group reaches a private reduction's combine (the
        kernel's end): the ``group_end.GroupFold`` whose lines (depth 0) fold the group's
        ``local``s into its first item's (``combine`` the operator's text, ``{0}`` and ``{1}``
        its operands), with the condition true in that item alone and the tree's local array;
        None: ``group_combine`` spells the fold."""
        return None

    def staged_append(self, queue, value: str) -> str:
        """The statement appending ``value`` to the work-group's local queue (a
        ``group_end.StagedQueue``; ``QueueAppend.form`` ``local``)."""
        self.missing("an append staged per work-group")

    def staged_count(self, queue) -> str:
        """The statement counting one in the work-group's local count of ``queue``."""
        self.missing("a count staged per work-group")

    def stage_lines(self, queues, end: bool) -> Sequence[str]:
        """The local queues' declarations and reset before the items, or (``end``) their
        entries taken into the global queues after them (depth 0)."""
        self.missing("an append staged per work-group")

    def group_append(self, length: str) -> str:
        """The slot of a queue append whose lockstep group takes one fetch-and-add on the
        queue's ``length`` (an ``int*``) for all its lanes that append together."""
        self.missing("an append aggregated per group")

    def group_count(self, length: str) -> str:
        """``*length += 1`` for each work item, one atomic per lockstep group that counts
        together (``QueueCount.per_group``)."""
        self.missing("a count aggregated per group")

    def edge_count(self) -> Optional[str]:
        """``g.num_edges()`` in a kernel where the kernel's edge count ``m`` (its edge
        arrays' length) is not the whole graph's, else None."""
        return None

    def kept_degree(self, query: str, v: str) -> Optional[str]:
        """``query`` (``count_outNbrs`` / ``count_inNbrs``) of vertex ``v`` read from a degree
        array the backend's runtime keeps for every vertex, or None: the length of ``v``'s
        row in the offsets."""
        return None

    def rank_table(self, table: str, index: str) -> str:
        """Element ``index`` of one of a distributed rank's tables (``local_index.RANK_TABLES``:
        the global id of a local vertex, ...)."""
        self.missing(f"the rank table '{table}'")

    def gallop(self, targets: str, cursor: str, end: str, w: str) -> str:
        """``find_edge`` by moving the local ``cursor`` forward in a row ending at ``end``."""
        return f"starc_gallop({targets}, &{cursor}, {end}, {w})"

    def advance(self, targets: str, cursor: str, end: str, w: str, linear: str) -> str:
        """The statement moving a merge's local ``cursor`` to the first id >= ``w``."""
        return f"starc_advance({targets}, &{cursor}, {end}, {w}, {linear});"


class NativeReducers(Dialect):
    """A dialect whose private scalar reductions go to native reduction objects (SYCL's
    ``sycl::reduction`` reducers, OpenACC's ``reduction`` clause variables), one instance per
    kernel: ``reducers`` maps a reduced scalar's uid to its object's name, reserved so no
    kernel local takes it. ``-`` accumulates the negated values with ``+``; a subclass spells
    Min/Max (``minmax_update``)."""

    def __init__(self, reducers: Optional[Dict[int, str]] = None) -> None:
        #: host scalar uid -> the name of its native reduction object
        self.reducers: Dict[int, str] = dict(reducers or {})
        self.reserved = type(self).reserved | frozenset(self.reducers.values())

    def reducer(self, red) -> Optional[str]:
        return self.reducers.get(red.sym.uid)

    def reducer_update(self, op: str, reducer: str, value: str) -> str:
        if op == "-":
            return f"{reducer} += -({value})"
        if op in ("+", "*", "&", "|"):
            return f"{reducer} {op}= {value}"
        return self.minmax_update(op, reducer, value)

    def minmax_update(self, op: str, reducer: str, value: str) -> str:
        self.missing(f"a native '{op}' reduction")


def reducer_names(reductions: Iterable, name: Callable[[object], str]) -> Dict[int, str]:
    """scalar uid -> ``name(red)`` for each reduction, made distinct (``_2``...) even for two
    scalars of the same DSL name."""
    names: Dict[int, str] = {}
    for red in reductions:
        base = candidate = name(red)
        k = 2
        while candidate in names.values():
            candidate, k = f"{base}_{k}", k + 1
        names[red.sym.uid] = candidate
    return names
