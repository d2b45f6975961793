"""The decisions on what the host runs: fixedPoint and iterateInBFS, graph updates,
property copies and the host <-> device transfers (mixed into ``decisions._Walk``)."""

from __future__ import annotations

from typing import Dict, List, Tuple

from starc.analysis import plan as P
from starc.analysis.batches import SPAN_MOVES_WHY
from starc.analysis.frontier import DENSE_DIVISOR
from starc.analysis.host_tree import host_exprs, kernels_launched_by, walk_host
from starc.analysis.priority_window import WINDOW_SCALE
from starc.analysis.union_find import SAMPLED_WORDS
from starc.ir import nodes as ir
from starc.teaching.choices import ACROSS_RANKS, At, Choice, Target


class HostChoices:
    """What each backend does for one host construct; ``add`` and ``plan`` are the
    walk's."""

    def fixedpoint(self, s: P.FixedPointLoop) -> None:
        prop, nxt, flag = s.current.name, s.next.name, s.flag.name

        def worklist(t: Target) -> bool:
            return s.worklist is not None and t.loop_form(s.loc).form == "worklist"

        def dense_by_edges(t: Target) -> str:
            """Where this target's dense rounds run one work item per edge (``schedules``)."""
            own = {k.name for stmt in walk_host(s.body) for k in kernels_launched_by(stmt)}
            edges = [k for k in t.plan.kernels if k.schedule == "edges"
                     and k.name.removesuffix("_dense") in own]
            return ("; a dense round runs one work item per edge (" + edges[0].schedule_why + ")"
                    if edges else "")

        def dense_skips(t: Target) -> str:
            """Where this target's dense rounds skip vertices whose values they already
            pushed (``pushed_values``)."""
            own = {k.name for stmt in walk_host(s.body) for k in kernels_launched_by(stmt)}
            skips = [k for k in t.plan.kernels if k.skips_pushed
                     and k.name.removesuffix("_dense") in own]
            return ("; on a CPU device a dense round skips a flagged vertex whose values are "
                    "those it last ran with (" + skips[0].skips_pushed_why + ")"
                    if skips else "")

        def first_queue() -> str:
            """Where the batch's update kernel appends the first worklist (``frontier_seed``)."""
            return f"; its first queue {s.worklist.update_seed}" if s.worklist.update_seed else ""

        def window(t: Target) -> str:
            """Whether this target's sparse rounds defer the entries past a priority window
            (``priority_window``), and why (not)."""
            own = {k.name for stmt in walk_host(s.body) for k in kernels_launched_by(stmt)}
            sparse = [k for k in t.plan.kernels if k.extent == "frontier"
                      and k.name.removesuffix("_sparse") in own]
            kept = [k for k in sparse if k.window is not None]
            if kept:
                key = kept[0].window.key.name
                variant = next((k for k in t.plan.kernels
                                if k.name == kept[0].lockstep_variant), None)
                on_gpu = "" if variant is None else (
                    f"; on a GPU device its variant runs every entry: {variant.window_why}"
                    if variant.window is None else
                    f"; on a GPU device its variant keeps the window: {variant.window_why}")
                return (f"; a sparse round runs only the entries whose {key} is below a "
                        f"window, the least {key} the round before left queued plus a delta "
                        f"({WINDOW_SCALE} x the mean weight / the mean out-degree, sampled "
                        f"once a run), and queues the others again, flagged: delta-stepping's "
                        f"buckets ({kept[0].window_why}){on_gpu}")
            why = next((k.window_why for k in sparse if k.window_why), s.worklist.window_why)
            return f"; no priority window: {why}" if why else ""

        def grouped(t: Target) -> str:
            """Whether this target's small sparse rounds run in one work-group
            (``worklist_rounds``), and why (not)."""
            form = t.loop_form(s.loc)
            return f"; {form.rounds}" if form.rounds else ""

        def rounds(t: Target) -> str:
            """The one phrase on data- or topology-driven rounds."""
            form = t.loop_form(s.loc)
            if form is not None and form.union_find:
                return rounds_of(t) + f"; not a union-find: {form.union_find}"
            return rounds_of(t)

        def rounds_of(t: Target) -> str:
            if worklist(t):
                return (f"; data-driven: a round with at most n/{DENSE_DIVISOR} active "
                        f"vertices runs one work item per entry of a worklist of the vertices "
                        f"whose {prop} is set (each appended once by the work item that sets "
                        f"it), a larger round every vertex, only setting and counting the "
                        f"flags it flips (a compaction pass builds the worklist when the count "
                        f"falls to n/{DENSE_DIVISOR})" + first_queue() + window(t)
                        + grouped(t) + dense_by_edges(t) + dense_skips(t))
            why = t.loop_form(s.loc).why if s.worklist is not None else s.topology_why
            return f"; topology-driven: every round tests all vertices ({why})"

        def choose(t: Target) -> Choice:
            form = t.loop_form(s.loc)
            if form is not None and form.form == "union-find" and t.distribution is not None:
                return Choice(
                    "no rounds: the runtime's least labels in the loop's place "
                    "(starc_mpi::least_component_labels: each rank links its own vertices' "
                    "edges, both directions, in a union-find over its vertices and ghosts; "
                    "then supersteps, each a pass over the rank's vertices and an exchange at "
                    f"the ghosts), then {prop} filled false and {s.flag_var.name} true, as the "
                    "loop leaves them", form.why)
            if form is not None and form.form == "union-find":
                [found] = [f for f in self.plan.components if f.loc == s.loc]
                ours = {k.name for k in found.kernels}
                kernels = list(dict.fromkeys(
                    k.name for stmt in walk_host(t.plan.host)
                    for k in kernels_launched_by(stmt) if k.name in ours))
                sampled = (f"each vertex links its {SAMPLED_WORDS}'s tree, one work item names "
                           f"the tree of the sampled vertex of most out-edges, the vertices "
                           f"outside it link every edge")
                every = "every out-edge links its two trees, one work item per edge"
                # (the form's two ways to link, by its test of the device kind)
                [test] = [x for x in found.host.stmts if isinstance(x, P.HostIf)]
                kinds = tuple(bool(set(kernels) & {k.name for x in branch.stmts
                                                   for k in kernels_launched_by(x)})
                              for branch in (test.then, test.orelse))
                links = {(True, False): every, (False, True): sampled}.get(
                    kinds, f"on a GPU device {every}; on other devices {sampled}")
                labels = ("each vertex's label its root, its tree's least id" if found.ids
                          else "a root's least label, each vertex's root's")
                return Choice(
                    "no rounds: a union-find in the loop's place (" + ", ".join(kernels) +
                    f": {links}, {labels}), then {prop} filled false and "
                    f"{s.flag_var.name} true, as the loop leaves them", form.why)
            buffers = (f"{prop} is double-buffered: kernels write {nxt}, and the two are "
                       "swapped after each round (a pointer swap, no copy)") + rounds(t)
            if t.distribution is not None:
                from starc.backends.mpi.host import mpi_operator
                return Choice(
                    f"each rank's flag {flag} is combined with {mpi_operator('flag')} after every "
                    f"superstep (any rank's 1), {ACROSS_RANKS}, so all "
                    f"ranks agree whether to go on; {buffers} on every rank alike",
                    "ranks run the same host loop, so they must agree on its condition")
            if worklist(t):
                return Choice(
                    f"the worklist's length, read back once per round with "
                    f"{t.backend.copy_to_host or 'a plain read'}, ends the loop at 0; "
                    + buffers,
                    f"a round then touches only the vertices whose {prop} changed, as in "
                    "Gunrock and GAPBS, instead of testing every vertex")
            return Choice(
                f"one device flag {flag}: cleared by the host before each round, set to 1 by "
                f"any work item that changes {prop} while it still reads 0 (no atomic: all "
                f"write the same 1; the read keeps the others from taking its cache line), read "
                f"back once per round with {t.backend.copy_to_host or 'a plain read'}; "
                + buffers,
                f"reading one flag per round is much cheaper than copying {prop} back to "
                "test it; the next buffer keeps a round from seeing its own updates")
        self.add(s, "fixedPoint", choose, span_node=At(s.loc))
        if s.worklist is not None:
            self.add(s, "worklist appends", lambda t: _appends(t, s.loc), span_node=At(s.loc))

    def update_phase(self, s: P.ApplyUpdates) -> None:
        """``g.updateCSRDel/Add``: what the host does to the graph per batch."""
        which = "deletions" if s.kind == "delete" else "additions"
        graph = ", ".join(a.name for a in s.graph)
        read = [a.name for a in s.read_back]
        kept = [a.name for a in s.edge_props if a.name not in read]
        what = (f"the host applies the batch's {which} to its CSR and reverse CSR in place "
                f"(starc_updates.hpp), then uploads {graph} whole again"
                + (f"; edge properties {', '.join(read)} read back, carried to the new edge "
                   "ids and uploaded" if read else "")
                + (f"; edge properties {', '.join(kept)} carried from the host's copy (nothing "
                   "on the device writes them: no read back) and uploaded" if kept else "")
                + ("" if s.reverse_ids else "; the reverse CSR's edge ids are not kept (the "
                   "device never reads them), so its rows change by moving spans"))
        why = ("the graph is changed where its host copy lives, in O(n + m + k log k) for k "
               "updates instead of a rebuild; the device copies are refreshed whole (a first "
               "step: a merge on the device would move only the changed rows)")
        slack = (f"the host applies the batch's {which} to its rows with slack in place "
                 "(starc_slack_rows.hpp): only the rows it touches move, and the device "
                 "copies of the slot arrays are refreshed in the slot ranges it wrote (whole "
                 "after a re-layout), and the row starts and ends of the rows it touched"
                 + (f"; edge properties {', '.join(read)} read back at the slots the batch "
                    "moves (gathered on the device)" if read else "")
                 + (f"; edge properties {', '.join(kept)} carried from the host's copy (nothing "
                    "on the device writes them: no read back)" if kept else ""))

        moves = (slack + "; on the device, the spans the batch moved are moved from their "
                 "records (from, to, length) by a kernel pair per slot array, and only the "
                 "slots it added are packed and scattered (all written slots where a move "
                 "chains), with no read back for the moved slots")

        def choose(t) -> Choice:
            target = t.plan.target
            if target is not None and target.distribution is not None:
                ghosts = target.distribution.appended_ghosts_why
                return Choice(f"each rank applies the batch's {which} to the rows it owns, in "
                              "place unless the program holds ghost rows, new ghosts "
                              "inserted in its local index space (starc_mpi_update_rows.hpp), "
                              "otherwise it lays its part out again "
                              "on the same partition (starc_mpi_updates.hpp)",
                              target.slack_rows_why + (f"; {ghosts}" if ghosts else ""))
            order = ""
            if target is not None and target.slack_rows:
                order = (f"; the rows are left in any order: {target.unsorted_rows_why}"
                         if target.unsorted_rows else f"; {target.unsorted_rows_why}")
            if target is not None and target.slack_rows and target.capabilities.span_moves:
                return Choice(moves + order, f"{target.slack_rows_why}; {SPAN_MOVES_WHY}")
            if target is not None and target.slack_rows:
                return Choice(slack + order, target.slack_rows_why)
            # the plan's reason for a compact CSR, where it has one
            reason = target.slack_rows_why if target is not None else ""
            return Choice(what, why + (f"; {reason}" if reason else ""))
        def fused_or(t) -> Choice:
            # the target's own statement: the specialize stage fuses adjacent updates and
            # marks the arrays only GPU variants read
            own = next((x for x in walk_host(t.plan.host) if isinstance(x, P.ApplyUpdates)
                        and x.first.uid == s.first.uid and (x.fused or x.kind == s.kind)),
                       None)
            choice = choose(t)
            only = [a.name for a in own.graph if a.lockstep_only] if own is not None else []
            if only:
                choice = Choice(f"{choice.what}; {', '.join(only)} refreshed on a GPU device "
                                "only", f"{choice.why}; only the kernels' variants for a GPU "
                                f"read {', '.join(only)}, so another device neither holds "
                                "nor refreshes them")
            if own is None or not own.fused:
                return choice
            other = "additions" if s.kind == "delete" else "deletions"
            return Choice(f"{choice.what}; one update with the batch's {other}, applied "
                          "deletions first, the copies refreshed once", own.fused)
        self.add(s, "graph update", fused_or)

    def property_copy(self, s) -> None:
        if isinstance(s, P.SwapArrays):
            what = (f"a pointer swap of {s.a.name} and {s.b.name} instead of a copy (no "
                    "pass over the array)")
            why = (f"every round rewrites all of {s.b.name} before anything reads it, so "
                   "no one can tell which values it holds in between")
        else:
            what = f"a device-to-device copy of every element of {s.src.name} into {s.dst.name}"
            why = (f"{s.src.name} is read again (or only partly rewritten) before it is "
                   "rewritten, so it must keep the copied values")

        def choose(t: Target) -> Choice:
            alike = " on every rank alike" if t.distribution is not None else ""
            return Choice(what + alike, why)
        self.add(s, "property copy", choose, span_node=At(s.loc))

    def parent_value(self, value: P.ParentValue) -> None:
        """A BFS parents loop whose value may be the depth (``analysis.depth_values``)."""
        choice = Choice(value.what, value.why)
        self.add(value, "iterateInBFS parents loop", lambda t: choice,
                 span_node=At(value.loc))

    def bfs(self, s: P.BFSLoop) -> None:
        level = s.level.name
        reverse = (f"; then {s.reverse.name} once per depth, from the deepest back to 0 (the "
                   "reverse sweep)") if s.reverse is not None else ""
        last = any(isinstance(loop.domain, ir.InNeighbors) and loop.domain.descending
                   for loop in ir.walk(s.forward.body) if isinstance(loop, ir.Loop))
        parents = ("; a parents loop whose outcome is its last parent's assignment searches "
                   "the in-edges from the last and stops at the first parent found") \
            if last else ""
        if s.pending is not None:
            parents += (f"; {s.bottom_up.name} searches backwards too and runs the body at "
                        f"each vertex it reaches, with that last parent (one search per vertex, "
                        f"not two); {s.pending.name} runs the frontier's body first when a "
                        f"top-down step reached it, and a top-down step after a bottom-up one "
                        f"launches {s.expand.name}, {s.forward.name} without the body (host "
                        f"flag {s.fused_name})")

        if s.values is not None:
            parents += (f"; after the last step {s.values.name} sets the values the parents "
                        f"loops would have given from each reached vertex's level")

        def queue(t: Target) -> str:
            """The one phrase on top-down steps over a queue (``bfs_queue.py``)."""
            form = t.loop_form(s.loc)
            if s.queue is None or form is None:
                return ""
            if form.form == "worklist" and t.distribution is not None:
                return (f"; a top-down step whose frontier holds at most n/{DENSE_DIVISOR} "
                        f"vertices and out-edges runs {s.queue.forward.name} over each rank's "
                        f"queue of its own reached vertices instead (a newly reached vertex is "
                        f"claimed by an atomic max on its level; a claim at a ghost travels as "
                        f"that max's update and the owner appends the vertex where it wins; "
                        f"{s.queue.build.name} makes the first queue and compacts the frontier "
                        f"after a bottom-up step)"
                        + (f"; when every step walked the queues, {s.queue.reverse.name} runs "
                           f"the reverse sweep over each rank's slice of each level"
                           if s.queue.reverse is not None else ""))
            if form.form == "worklist":
                sliced = (f"; when every step walked the order, {s.queue.reverse.name} runs "
                          f"the reverse sweep over each level's slice of it"
                          if s.queue.reverse is not None else "")
                return (f"; a top-down step whose frontier holds at most n/{DENSE_DIVISOR} "
                        f"vertices and out-edges runs {s.queue.forward.name} over the "
                        f"frontier's entries in "
                        f"an order of the reached vertices instead (each newly reached vertex "
                        f"claimed by an atomic max on its level and appended once, after its "
                        f"level; {s.queue.build.name} compacts the frontier into it after a "
                        f"bottom-up step){sliced}"
                        + (f"; {form.rounds}" if form.rounds else "")
                        + (f"; on a GPU device every top-down step tests all vertices "
                           f"({form.on_gpu})" if form.on_gpu else ""))
            return f"; every top-down step tests all vertices ({form.why})"

        def choose(t: Target) -> Choice:
            combine = ""
            if t.distribution is not None:
                combine = ("; each level is one superstep and the counts are summed over the "
                           "ranks, " + ACROSS_RANKS)
            return Choice(
                f"levels in {level} (-1: not reached yet); one launch per depth, with the depth "
                f"as an argument, until a step reaches no vertex; direction-optimizing: "
                f"{s.forward.name} expands the frontier top-down over out-edges, "
                f"{s.bottom_up.name} lets every unvisited vertex look bottom-up for a parent "
                f"(stopping at the first), chosen per depth from the counts {s.awake.name} and "
                f"{s.scout.name} read back after each step (GAPBS's heuristic, alpha {s.alpha}, "
                f"beta {s.beta}){queue(t)}{parents}{reverse}{combine}",
                "level-synchronous BFS: every vertex of one level is expanded in parallel, and "
                "the levels are kept for the reverse sweep; when the frontier is large most "
                "out-edges lead to visited vertices, and a bottom-up step skips them")
        self.add(s, "iterateInBFS", choose, span_node=At(s.loc))

    # --- transfers ----------------------------------------------------------------------------
    def transfers_once(self) -> None:
        def choose(t: Target) -> Choice:
            # the target's own arrays: its form and schedules may take others (sources)
            ins = [a.name for a in t.plan.arrays if a.copy_in]
            outs = [a.name for a in t.plan.arrays if a.copy_out]
            if not t.backend.copy_to_device:
                return Choice(
                    "no copies: each rank reads its own byte range of the graph file and keeps "
                    "the rows of its vertices; every per-vertex array holds only the vertices "
                    "the rank knows (its own, its ghosts), by local id"
                    + _replica_words(t.distribution)
                    + "; each rank's results stream to rank 0, which writes them",
                    "no rank holds the whole graph; memory is the rank's own and shrinks as "
                    "ranks are added")
            return Choice(
                f"copied to the device once, before the algorithm ({t.backend.copy_to_device})"
                f": {', '.join(ins) or 'nothing'}; copied back once at the end "
                f"({t.backend.copy_to_host}): {', '.join(outs) or 'nothing'}",
                "the graph and the inputs stay on the device for the whole algorithm; only "
                "results go back")
        self.add(self.plan.function, "transfers", choose, span_node=At(self.plan.function.loc))

    def transfers_between(self) -> None:
        """Single values the host moves while the algorithm runs, one decision per line."""
        by_line: Dict[int, Tuple[object, List[str], List[str]]] = {}
        for stmt in walk_host(self.plan.host):
            moves: List[Tuple[str, str]] = []
            if isinstance(stmt, P.ToDevice):
                moves.append(("in", stmt.sym.name))
            elif isinstance(stmt, P.FromDevice):
                moves.append(("out", stmt.sym.name))
            elif isinstance(stmt, P.FromDeviceMany):
                moves += [("out", sym.name) for sym in stmt.syms]
            elif isinstance(stmt, P.WriteElement) and stmt.array.role not in ("flag", "level"):
                moves.append(("in", f"one element of {stmt.array.name}"))
            for node in host_exprs(stmt):
                if isinstance(node, P.DeviceRead) and node.array.role not in ("flag", "level"):
                    moves.append(("out", f"one element of {node.array.name}"))
            if not moves or stmt.loc is None or stmt.loc.line <= 0:
                continue
            node, ins, outs = by_line.setdefault(stmt.loc.line, (stmt, [], []))
            for way, what in moves:
                bucket = ins if way == "in" else outs
                if what not in bucket:
                    bucket.append(what)
        for line, (node, ins, outs) in sorted(by_line.items()):
            self.add(node, "transfers", lambda t, ins=ins, outs=outs: _moves(t, ins, outs),
                     span_node=At(node.loc))


def _moves(t: Target, ins: List[str], outs: List[str]) -> Choice:
    parts = []
    if not t.backend.copy_to_device:
        if ins:
            parts.append(f"{', '.join(ins)}: every rank sets its own copy alike")
        if outs:
            parts.append(f"{', '.join(outs)}: read on every rank (a vertex's value is sent "
                         "by its owner)")
        return Choice("; ".join(parts), "one memory per rank: no device copies")
    if ins:
        parts.append(f"to the device: {', '.join(ins)} "
                     f"({t.backend.write_element or t.backend.copy_to_device})")
    if outs:
        parts.append(f"back to the host: {', '.join(outs)} ({t.backend.copy_to_host})")
    return Choice("; ".join(parts),
                  "the host needs these values here (or the device does); single values are "
                  "copied, never whole arrays")


def _replica_words(distribution) -> str:
    """The per-vertex arrays MPI keeps full-length on every rank, and why."""
    if distribution is None or not distribution.replicas:
        return ""
    return ("; full-length replicas on every rank, by global id: "
            + ", ".join(f"{name} ({why})" for name, why in distribution.replicas.items()))


def _appends(t: Target, loc) -> Choice:
    """How a worklist's appends take their slots here (``Specialization.appends``)."""
    form = t.loop_form(loc)
    if form.form == "union-find":
        return Choice("no appends: no rounds (a union-find)", form.why)
    if form.form != "worklist":
        return Choice("no appends: every round tests all vertices", form.why)
    target = t.plan.target
    if target.appends in ("group", "local", "gang"):
        return Choice(t.backend.group_append(), target.appends_why)
    return Choice("one atomic fetch-and-add on the worklist's length per appended vertex",
                  target.appends_why)
