"""The card's two plots (PNG, byte-stable: no timestamps in the metadata)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from builders.export.names import HOPS_PLOT, MODALITY_PLOT
from kg.atomic_write import atomic_write_bytes


def write_plots(summary: dict[str, Any], plots_dir: Path) -> list[Path]:
    """Two PNGs for the card: hops per graph_type (stacked bars) and modality share."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    from matplotlib.ticker import MaxNLocator

    plots_dir.mkdir(parents=True, exist_ok=True)
    meta = {"Software": None}  # keep the bytes independent of the matplotlib version string

    fig = Figure(figsize=(7, 4), dpi=100)
    ax = fig.add_subplot()
    types = list(summary["hops_by_graph_type"])
    hop_values = sorted({int(h) for c in summary["hops_by_graph_type"].values() for h in c})
    bottoms = [0] * len(types)
    for h in hop_values:
        heights = [summary["hops_by_graph_type"][t].get(str(h), 0) for t in types]
        ax.bar(types, heights, bottom=bottoms, label=f"{h} hops")
        bottoms = [b + v for b, v in zip(bottoms, heights)]
    if not types:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
    ax.set_title("Chains per graph type, by number of hops")
    ax.set_ylabel("chains")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    if hop_values:
        ax.legend()
    fig.tight_layout()
    hops_png = plots_dir / HOPS_PLOT
    _save_fig(fig, hops_png, meta)

    fig = Figure(figsize=(6, 4), dpi=100)
    ax = fig.add_subplot()
    by_type = summary["modality_by_graph_type"]
    types = list(by_type)
    bottoms = [0.0] * len(types)
    for modality in ("text", "image"):
        shares = []
        for t in types:
            total = sum(by_type[t].values())
            shares.append(by_type[t].get(modality, 0) / total if total else 0.0)
        ax.bar(types, shares, bottom=bottoms, label=f"{modality} hops")
        bottoms = [b + s for b, s in zip(bottoms, shares)]
    if not types:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
    overall = summary["modality_share"]
    ax.set_title("Hop modality share (all: " + ", ".join(f"{k} {v:.0%}" for k, v in overall.items()) + ")")
    ax.set_ylabel("share of hops")
    ax.set_ylim(0, 1)
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    if types:
        ax.legend()
    fig.tight_layout()
    modality_png = plots_dir / MODALITY_PLOT
    _save_fig(fig, modality_png, meta)
    return [hops_png, modality_png]


def _save_fig(fig: Any, path: Path, meta: dict[str, Any]) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata=meta)
    atomic_write_bytes(path, buf.getvalue())
