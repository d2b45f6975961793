"""The harness's measurements and their report: each cell's times and status, the markdown
tables (times, ratios, MPI communication) and the plot of ratios to the baselines."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from workloads import ALGORITHMS, EDGE_FACTOR

__all__ = ["Measurement", "TABLE_LEGEND", "cell", "communication_table", "format_seconds",
           "gapbs_text", "markdown_table", "plot", "times_text"]


@dataclass
class Measurement:
    backend: str
    times: List[float] = field(default_factory=list)     # starc-time: the algorithm alone
    median: Optional[float] = None
    walls: List[float] = field(default_factory=list)     # the process, end to end
    wall_median: Optional[float] = None
    status: str = "ok"          # ok | MISMATCH | error | skipped | timeout
    detail: str = ""
    results_file: Optional[str] = None
    stats: Dict[str, int] = field(default_factory=dict)   # mpi: --stats summed over ranks
    load: Optional[float] = None    # GAPBS: its own Read + Build time of the graph

    def failed(self, status: str, detail: str) -> "Measurement":
        self.status, self.detail = status, detail
        return self


def format_seconds(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.0f} us"
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.2f} s"


def times_text(m: Measurement) -> str:
    """The algorithm's time (``starc-time``) and, after a slash, the process's wall time
    (reading the graph, start-up, kernel builds and all)."""
    text = format_seconds(m.median)
    return text + (f" / {format_seconds(m.wall_median)}" if m.wall_median is not None else "")


def cell(m: Measurement, baseline: Measurement, gapbs: Optional[Measurement] = None) -> str:
    if m.status in ("error", "timeout", "skipped"):
        return f"{m.status}: {m.detail}"
    text = times_text(m)
    ratios = []   # the ratios compare algorithm times
    if baseline.median:
        ratios.append(f"{m.median / baseline.median:.1f}x")
    if gapbs is not None and gapbs.median:
        ratios.append(f"{m.median / gapbs.median:.1f}x GAPBS")
    if ratios:
        text += f" ({'; '.join(ratios)})"
    if m.status == "MISMATCH":
        text += f" **MISMATCH** {m.detail}"
    return text


TABLE_LEGEND = ("Each cell: algorithm time (starc-time) / end-to-end wall time of the process "
                "(ratio of algorithm times to the baseline's, and to GAPBS's when it ran); "
                "medians. GAPBS: its kernel's trial time; after 'load', its graph read + build.")


def gapbs_text(m: Optional[Measurement]) -> str:
    if m is None:
        return "-"
    if m.status != "ok":
        return f"{m.status}: {m.detail}"
    return format_seconds(m.median) + (f" (load {format_seconds(m.load)})" if m.load else "")


def markdown_table(rows: List[dict], backends: List[str]) -> str:
    with_gapbs = any("gapbs" in row for row in rows)
    header = (["graph", "scale", "algo", "n", "m", "baseline (OpenMP)"]
              + (["GAPBS"] if with_gapbs else []) + backends)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        base = Measurement(**row["baseline"])
        gapbs = Measurement(**row["gapbs"]) if row.get("gapbs") else None
        cells = [row["kind"], str(row["scale"]), row["algo"], str(row["num_nodes"]),
                 str(row["num_edges"]),
                 times_text(base) if base.status == "ok" else f"{base.status}: {base.detail}"]
        if with_gapbs:
            cells.append(gapbs_text(gapbs))
        for b in backends:
            cells.append(cell(Measurement(**row["backends"][b]), base, gapbs)
                         if b in row["backends"] else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def communication_table(rows: List[dict], mpi_columns: List[str]) -> str:
    """Per MPI column: the totals over ranks and supersteps, and per superstep the combined
    entries against what one message per remote access would send when every edge is
    touched once (the cut edges)."""
    header = ["graph", "scale", "algo", "run", "supersteps", "messages", "bytes", "entries",
              "entries / superstep", "bytes / superstep", "cut edges (per-element msgs / superstep)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        for column in mpi_columns:
            stats = row["backends"].get(column, {}).get("stats") or {}
            steps = stats.get("supersteps")
            if not steps:
                continue
            lines.append("| " + " | ".join(str(x) for x in [
                row["kind"], row["scale"], row["algo"], column, steps, stats["messages"],
                stats["bytes"], stats["entries"], f"{stats['entries'] / steps:.0f}",
                f"{stats['bytes'] / steps:.0f}", stats.get("cut_edges", "-")]) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def plot(rows: List[dict], backends: List[str], path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = sorted({r["kind"] for r in rows})
    fig, axes = plt.subplots(len(kinds), 1, figsize=(11, 4 * len(kinds)), squeeze=False)
    any_ratio = False
    for ax, kind in zip(axes[:, 0], kinds):
        series = {}  # (backend, scale) -> {algo: ratio}
        for r in rows:
            if r["kind"] != kind or r["baseline"]["median"] is None:
                continue
            for b in backends:
                m = r["backends"].get(b)
                if m and m["median"] is not None and m["status"] in ("ok", "MISMATCH"):
                    series.setdefault((b, r["scale"]), {})[r["algo"]] = \
                        m["median"] / r["baseline"]["median"]
        algos = [a for a in ALGORITHMS if any(r["algo"] == a and r["kind"] == kind for r in rows)]
        if series:
            any_ratio = True
            width = 0.8 / len(series)
            for i, (key, ratios) in enumerate(sorted(series.items())):
                xs = [j + i * width for j, a in enumerate(algos) if a in ratios]
                ax.bar(xs, [ratios[a] for a in algos if a in ratios], width,
                       label=f"{key[0]} scale {key[1]}")
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_yscale("log")
            ax.set_ylabel("time / OpenMP baseline time")
        else:  # no backend results yet: show the baseline times themselves
            scales = sorted({r["scale"] for r in rows if r["kind"] == kind})
            width = 0.8 / max(len(scales), 1)
            for i, scale in enumerate(scales):
                times = {r["algo"]: r["baseline"]["median"] for r in rows
                         if r["kind"] == kind and r["scale"] == scale and r["baseline"]["median"]}
                xs = [j + i * width for j, a in enumerate(algos) if a in times]
                ax.bar(xs, [times[a] for a in algos if a in times], width,
                       label=f"baseline scale {scale}")
            ax.set_yscale("log")
            ax.set_ylabel("OpenMP baseline time (s)")
        ax.set_xticks([j + 0.4 - (0.8 / max(len(series), 1)) / 2 for j in range(len(algos))])
        ax.set_xticklabels(algos)
        ax.set_title(f"{kind} graphs, edge factor {EDGE_FACTOR}")
        ax.legend(fontsize=8)
    fig.suptitle("starc backends relative to hand-written OpenMP" if any_ratio
                 else "OpenMP baselines (no starc backend results yet)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
