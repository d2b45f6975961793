"""What one backend chose for one DSL construct (``Choice``, ``Decision``), the backend as
the decisions see it (``Target``), and the words for one atomic update, from the backend's
atomic table."""

from __future__ import annotations

import dataclasses
import pathlib
import re
from typing import Dict, List, Optional

from starc.analysis import plan as P
from starc.analysis.host_tree import walk_host
from starc.backends.base import Backend
from starc.diagnostics import Diagnostic
from starc.ir import nodes as ir
from starc.ir.types import Scalar
from starc.records import Record, record

__all__ = ["Choice", "Decision", "Target", "At", "ITEM", "NO_ATOMIC_OWN", "atomic_choice"]

#: the choice for a plain store at the work item's own element
NO_ATOMIC_OWN = "no atomic: each work item writes only its own {item}"


@record
class Choice(Record):
    """What one backend does for one construct, and why, in words for students."""

    what: str
    why: str

    def to_json(self) -> Dict[str, str]:
        return {"what": self.what, "why": self.why}


@record
class Decision(Record):
    """One DSL construct (``line``..``end_line`` of the source, ``dsl`` its first line) and
    each requested backend's choice."""

    line: int
    end_line: int
    construct: str
    dsl: str
    choices: Dict[str, Choice]

    def to_json(self) -> Dict[str, object]:
        return {"line": self.line, "end_line": self.end_line, "construct": self.construct,
                "dsl": self.dsl,
                "choices": {name: c.to_json() for name, c in self.choices.items()}}


@dataclasses.dataclass
class Target:
    """One backend as ``decisions`` sees it: the backend object, its specialized plan and the
    program it generated (None when it cannot, and ``errors`` say why)."""

    name: str
    backend: Backend
    generated: object = None
    errors: List[Diagnostic] = dataclasses.field(default_factory=list)
    plan: Optional[P.Plan] = None
    block: Optional[int] = None

    @property
    def distribution(self):
        """MPI's superstep facts (``analysis.distribution``), None elsewhere."""
        return self.plan.target.distribution if self.plan is not None else None

    @property
    def keeps_ids(self) -> str:
        """Why an ordered triangle count keeps the file's ids here ("" if it renumbers)."""
        order = next((s for s in walk_host(self.plan.host) if isinstance(s, P.OrderByDegree)),
                     None)
        return order.keeps_ids if order is not None else ""

    def loop_form(self, loc) -> Optional[P.LoopForm]:
        """How the fixedPoint at ``loc`` runs here, when it has a worklist."""
        return self.plan.target.loop_form(loc)

    def atomics(self, kernel: str) -> List[ir.Stmt]:
        """The atomic statements of ``kernel`` as specialized here, in walk order."""
        return [n for n in ir.walk(self.plan.target.kernel(kernel).body)
                if isinstance(n, (P.AtomicReduce, P.AtomicMinMax))]

    def reduction(self, kernel: str, red: P.ScalarReduction) -> P.ScalarReduction:
        """``red`` of ``kernel`` as specialized here (its strategy set)."""
        return next(r for r in self.plan.target.kernel(kernel).reductions
                    if r.sym == red.sym)

    @property
    def refusal(self) -> Optional[str]:
        """Why the backend cannot generate the program, in one line, or None."""
        if not self.errors:
            return None
        first = self.errors[0]
        loc = first.loc
        where = (f" (at {pathlib.Path(loc.file).name}:{loc.line}:{loc.col})"
                 if loc.line > 0 else "")
        return f"{first.message}{where}"



#: how a superstep's one-value results are combined across ranks (the MPI runtime's
#: ``Superstep::finish``): a run-time choice, since it depends on which ranks share ghosts
ACROSS_RANKS = ("carried by the superstep's last exchange where that round reaches every rank "
                "(each rank combines all ranks' values in rank order), else by one MPI_Allreduce")


# --- the words for one atomic update ----------------------------------------------------------

def _callee(call: str) -> str:
    """The function a table's call format names (``starc_atomic<int>(*p).compare_exchange_strong``
    or ``atomicCAS``), for the text: table entries, never generated text."""
    found = re.match(r"[^(]*\([^)]*\)\.\w+|[\w<>: ]+", call)
    return found.group(0).strip() if found else call


def atomic_choice(backend: Backend, op: str, elem: Scalar, form: str) -> Choice:
    """How ``backend`` updates one ``elem`` atomically with ``op`` (``min``, ``add``...) in
    ``form``, the specialize stage's choice (``AtomicReduce.form``): spelled from the
    backend's atomic table (``Backend.atomics``)."""
    table, title = backend.atomics, backend.title
    elem = Scalar.INT if elem in (Scalar.NODE, Scalar.EDGE) else elem
    ctype = table.c_types[elem]
    about = f" ({table.about})" if table.about else ""
    native = table.native.get((op, elem))
    if form == "update":
        update = table.updates[(op, elem)]
        spelled = f"{table.update_pragma} on {update}" if table.update_pragma else update
        return Choice(f"atomic {op} on {ctype}: {spelled}",
                      f"the old value is not needed, so {title} updates in one atomic step"
                      f"{about}")
    if form == "directive":
        return Choice(f"atomic {op} on {ctype}: {native.pragma} on {native.statement}",
                      f"{title}'s atomic construct does {op} on {ctype}{about}")
    if form == "native":
        fallback = (" (a compare-and-swap loop " + (native.fallback_words
                                                    or f"where {native.fallback_if}") + ")"
                    if native.fallback_if else "")
        return Choice(f"native atomic {op} on {ctype}: {_callee(native.call)}{fallback}",
                      f"{title} has an atomic instruction for {op} on {ctype}{about}")
    exchange = table.compare_exchange[elem]
    if exchange.call:
        how = _callee(exchange.call)
    else:
        bits = f" on the value's bits as {exchange.bits}" if exchange.converts else ""
        how = f"{exchange.exchange}{bits}"
    why = table.why_loop.get(op) or (
        f"{title} has no atomic {op} on {ctype}: a loop reads the old value, computes the new "
        "one and retries the compare-and-swap until no other work item changed it in between")
    return Choice(f"compare-and-swap loop for {op} on {ctype}, with {how}", why)



#: a kernel's extent -> (its item, how many, their plural)
ITEM = {"nodes": ("vertex", "n", "vertices"), "edges": ("edge", "m", "edges"),
         "single": ("item", "1", "items"),
         # a loop over a batch's updates (OnDelete / OnAdd: analysis.batches)
         "frontier": ("update", "k", "updates of the batch")}



@record
class At(Record):
    """Stands for one line of a node (a loop's header, not its whole body)."""

    loc: object

