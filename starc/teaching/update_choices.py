"""The decisions on updates of shared data inside a kernel: Min/Max, reductions into
properties and scalars, plain stores (mixed into ``decisions._Walk``)."""

from __future__ import annotations

from typing import Optional

from starc.analysis import plan as P
from starc.ir import nodes as ir
from starc.teaching.choices import ACROSS_RANKS, ITEM, NO_ATOMIC_OWN, Choice, Target, atomic_choice


class UpdateChoices:
    """What each backend does for one update of shared data; ``add``, ``plan`` and
    ``worklist_kernels`` are the walk's."""

    def _reduction(self, kernel: P.Kernel, target: ir.Expr) -> Optional[P.ScalarReduction]:
        if isinstance(target, ir.VarRef):
            for red in kernel.reductions:
                if red.sym == target.sym:
                    return red
        return None

    def _array(self, target: ir.Expr) -> str:
        return self.plan.array_for(target.prop).name

    def _remote(self, t: Target, kernel: P.Kernel, array: str) -> str:
        """MPI: how writes of ``array`` at other ranks' vertices travel ("" if none do)."""
        if t.distribution is None:
            return ""
        step = t.distribution.steps.get(kernel.name)
        for write in step.updates if step else ():
            if write.array == array and not write.primary:
                op = "a store" if write.op == "=" else write.op.lower()
                secondaries = [w.array for w in step.updates if w.primary == array]
                follow = (f"; the secondary targets ({', '.join(secondaries)}) travel with "
                          "it and apply where it wins" if secondaries else "")
                where = "neighbours" if write.at == "neighbour" else "any vertex"
                return (f"; at other ranks' vertices ({where}): a combined message with {op}, "
                        "one entry per target vertex per superstep, all in one MPI_Alltoallv"
                        f"{follow}")
        return ""

    def minmax(self, kernel: P.Kernel, s: P.AtomicMinMax, index: int) -> None:
        red = self._reduction(kernel, s.target)
        if red is not None:
            self.scalar_reduction(kernel, s, red, s.func, index)
            return
        op = P.ATOMIC_OPS[s.func]
        array = self._array(s.target)
        seconds = [self._array(t) if isinstance(t, ir.PropRead) else t.sym.name
                   for t, _ in s.others]
        loop = self.worklist_kernels.get(kernel.name)

        def choose(t: Target) -> Choice:
            form = t.atomics(kernel.name)[index].form
            atomic = atomic_choice(t.backend, op, s.target.type, form)
            what, why = atomic.what, atomic.why
            if s.read_first:
                what += (f", only after a read of {array} shows the candidate can beat it "
                         "(else nothing more is done)")
                why += ("; most candidates cannot improve, and a read leaves the value's cache "
                        "line shared where an atomic would take it over")
            if s.locked:
                what = (f"a per-vertex lock ({s.lock.name}) held around the compare, the store "
                        f"and {', '.join(seconds)}; {what}")
                why = ("the secondary values are not constants, so they must come from the "
                       "winning update: the lock keeps the three together; " + why)
            elif seconds or s.then:
                flag = "the fixedPoint flag"
                if loop is not None and t.loop_form(loop).form == "worklist":
                    flag = ("the vertex's fixedPoint flag (the worklist's: counted in a dense "
                            "round, stamped and queued once in a sparse one)")
                extra = ", ".join(seconds + ([flag] if any(
                    isinstance(x, P.FlagSet) for x in s.then) else []))
                what += f"; where it wins: plain stores of {extra}"
                why += ("; the old value tells whether this update won, and every winner "
                        "writes the same constants, so no lock is needed")
            return Choice(what + self._remote(t, kernel, array), why)
        self.add(s, s.func, choose)

    def reduce(self, kernel: P.Kernel, s: P.AtomicReduce, index: int) -> None:
        red = self._reduction(kernel, s.target)
        if red is not None:
            self.scalar_reduction(kernel, s, red, s.op, index)
            return
        array = self._array(s.target)
        construct = f"{s.op}= on a property"

        def choose(t: Target) -> Choice:
            form = t.atomics(kernel.name)[index].form
            if form == "plain":
                return Choice("no atomic: a plain conditional store"
                              + self._remote(t, kernel, array),
                              "every work item that writes stores the same value")
            atomic = atomic_choice(t.backend, P.ATOMIC_OPS[s.op], s.target.type, form)
            return Choice(atomic.what + self._remote(t, kernel, array),
                          "several work items may update one element at once; " + atomic.why)
        self.add(s, construct, choose)

    def scalar_reduction(self, kernel: P.Kernel, s, red: P.ScalarReduction, op: str,
                         index: int) -> None:
        name = red.sym.name

        def choose(t: Target) -> Choice:
            specialized = t.reduction(kernel.name, red)
            combine = ""
            if t.distribution is not None:
                from starc.backends.mpi.host import mpi_operator
                combine = (f", then combined with {mpi_operator(op)} across ranks after the "
                           f"superstep, {ACROSS_RANKS}")
            if specialized.strategy == "native":
                return Choice(
                    f"{t.backend.native_reduction(kernel, specialized)}{combine}",
                    f"'{name}' is only updated with {op} in this forall, so each work item "
                    f"combines privately and {t.backend.title} combines the partial results")
            if specialized.strategy in ("group", "private"):
                atomic = atomic_choice(t.backend, P.ATOMIC_OPS[op], red.sym.type,
                                       specialized.combine)
                folded = (t.backend.group_combine(specialized)
                          if specialized.strategy == "group" else "")
                return Choice(f"a private accumulator per work item, then one {atomic.what} "
                              f"into {name}'s device copy{combine}"
                              + (f"; {folded}" if folded else ""),
                              f"'{name}' is only updated with {op} in this forall, so one "
                              f"atomic per work item suffices"
                              + (", and one per group once the group has folded its "
                                 "privates" if folded else "") + f"; {atomic.why}")
            atomic = atomic_choice(t.backend, P.ATOMIC_OPS[op], red.sym.type,
                                   t.atomics(kernel.name)[index].form)
            return Choice(f"every update is an {atomic.what}{combine}",
                          f"'{name}' is also read or updated otherwise in this forall, so "
                          f"each update must be atomic; {atomic.why}")
        self.add(s, f"{op} on a scalar" if op in ("Min", "Max") else f"{op}= on a scalar",
                 choose)

    def store(self, kernel: P.Kernel, s: ir.Assign) -> None:
        index = s.target.index
        own = isinstance(index, ir.VarRef) and index.sym == kernel.index
        array = self._array(s.target)
        item = ITEM[kernel.extent][0]
        if own:
            self.add(s, "= on a property", lambda t: Choice(
                NO_ATOMIC_OWN.format(item=item), "no other work item writes this element"))
            return
        self.add(s, "= on a property", lambda t: Choice(
            "no atomic: a plain store" + self._remote(t, kernel, array),
            "a single store cannot be torn; when several work items store to one element, "
            "one of them wins, as in the DSL's meaning of a forall"))

    def scalar_store(self, s: P.ScalarStore) -> None:
        def choose(t: Target) -> Choice:
            mpi = (", then the value of a rank that stored is broadcast to all ranks"
                   if t.distribution is not None else "")
            return Choice(f"no atomic: a plain store into {s.array.name}{mpi}",
                          "every work item that stores writes the same value")
        self.add(s, "= on a scalar", choose)
