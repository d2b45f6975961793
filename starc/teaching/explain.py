"""``starc explain``: the decisions of a program as a terminal report for students, or JSON."""

from __future__ import annotations

import json
import pathlib
import textwrap
from typing import Dict, List, Optional, Sequence

from starc.backends.base import BackendOptions
from starc.teaching.decisions import Decision, decisions, targets

__all__ = ["report", "render_text", "render_json"]

WIDTH = 100
_NAME_WIDTH = 8


def report(comp, backends: Sequence[str], options: Optional[BackendOptions] = None,
           graph=None, warp_width: int = 32) -> Dict[str, object]:
    """The report of ``comp`` (a ``driver.Compilation`` with a plan): the backends, those
    that cannot run the program with why, and the decisions; with ``graph`` (a
    ``starc.graphs.Graph``), the SIMT model of every kernel with a neighbour loop on it
    (``simt.kernel_rows``)."""
    found = targets(comp.plan, backends, options)
    data = {"source": comp.filename, "function": comp.plan.function.name,
            "backends": list(backends),
            "refusals": {n: t.refusal for n, t in found.items() if t.refusal is not None},
            "decisions": decisions(comp, backends, options, found)}
    if graph is not None:
        from starc.teaching.simt import kernel_rows, model_schedule
        chosen = {n: {k.name: model_schedule(k) for k in t.plan.kernels}  # those it launches
                  for n, t in found.items() if t.plan is not None}
        for n, t in found.items():      # a target that picks kernel variants by device kind
            variants = {k.variant_of: model_schedule(k)
                        for k in (t.plan.kernels if t.plan is not None else ()) if k.variant_of}
            if variants:
                chosen[f"{n} on a GPU"] = {**chosen[n], **variants}
        data["model"] = {"graph": pathlib.Path(graph.name).name, "warp_width": warp_width,
                         "kernels": kernel_rows(comp.plan, chosen, graph, warp_width)}
    return data


def render_json(data: Dict[str, object]) -> str:
    return json.dumps({**data, "decisions": [d.to_json() for d in data["decisions"]]},
                      indent=1) + "\n"


def _model_text(model: Dict[str, object]) -> List[str]:
    """The SIMT model's table: per kernel, each schedule's predicted lane efficiency and the
    schedule each backend chose."""
    lines = _wrapped(f"SIMT lane efficiency on {model['graph']} (a model: warps of "
                     f"{model['warp_width']} lanes, each lane's work its vertex's degree in "
                     "the kernel's neighbour loop; starc/teaching/simt.py)", "", "")
    for row in model["kernels"]:
        if all(e is None for e in row["efficiency"].values()):
            lines.append(f"  {row['kernel']} ({row['loop']}-edges): no edge to walk on this "
                         "graph, no efficiency")
            continue
        figures = ", ".join(f"{s} {_share(e)}" for s, e in row["efficiency"].items())
        lines.append(f"  {row['kernel']} ({row['loop']}-edges): {figures}")
        chosen = ", ".join(f"{b} {s} ({_share(row['efficiency'][s])})"
                           for b, s in row["schedules"].items())
        if chosen:
            lines.append(f"    chosen: {chosen}")
    if not model["kernels"]:
        lines.append("  no kernel has a neighbour loop")
    return lines


def _share(efficiency: Optional[float]) -> str:
    """A modelled efficiency as a percentage; a loop without any iteration has none."""
    return "-" if efficiency is None else f"{efficiency:.1%}"


def _wrapped(text: str, first: str, rest: str) -> List[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False, break_long_words=False) or [first.rstrip()]


def _heading(d: Decision) -> str:
    """The DSL line itself where it starts with the construct (``forall (v in ...)``), else
    the construct and the line."""
    dsl = d.dsl.rstrip("{ ").rstrip()
    return dsl if dsl.split(" ")[0] == d.construct else f"{d.construct}:  {dsl}"


def render_text(data: Dict[str, object]) -> str:
    """Grouped by construct in source order: ``sssp.sp:12  forall (...)``, then per backend
    one line of what it chose and one of why."""
    name = pathlib.Path(str(data["source"])).name
    lines = [f"{name}: how each backend implements {data['function']} "
             f"({', '.join(data['backends'])})", ""]
    refusals: Dict[str, str] = data["refusals"]
    for backend, why in refusals.items():
        lines += _wrapped(f"cannot run this program: {why}", f"{backend}: ", "    ")
    if refusals:
        lines.append("")
    pad = " " * (2 + _NAME_WIDTH)
    decisions_: List[Decision] = data["decisions"]
    for d in decisions_:
        heading = f"{name}:{d.line}  {_heading(d)}"
        lines.append(heading if len(heading) <= WIDTH else heading[:WIDTH - 3] + "...")
        for backend, choice in d.choices.items():
            if backend in refusals:
                lines.append(f"  {backend:<{_NAME_WIDTH}}cannot run this program (see above)")
                continue
            lines += _wrapped(choice.what, f"  {backend:<{_NAME_WIDTH}}", pad)
            lines += _wrapped(choice.why, pad + "why: ", pad + "     ")
        lines.append("")
    if not decisions_:
        lines.append("no construct here needed a decision (no forall, reduction or transfer)")
    if "model" in data:
        lines += [""] + _model_text(data["model"])
    return "\n".join(lines).rstrip("\n") + "\n"
