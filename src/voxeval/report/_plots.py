"""Report figures (matplotlib, Agg backend) returned as PNG bytes for embedding."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from voxeval.acts import LABELS
from voxeval.errors import MissingDependencyError


def _plt() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("report plots", "report", "matplotlib") from None
    return plt


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return buf.getvalue()


def _name(s: Any) -> str:
    return f"{s.system}\n({s.dataset})"


def breakdown_bars(sets: Sequence[Any]) -> bytes:
    """Stacked mean deletion / insertion / substitution per dataset × system (their sum is the WED mean)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(sets)), 3.2))
    bottoms = [0.0] * len(sets)
    for part, color in (("deletion", "#d95f02"), ("insertion", "#1b9e77"), ("substitution", "#7570b3")):
        values = [getattr(s.summary, f"{part}_mean") or 0.0 for s in sets]
        ax.bar(range(len(sets)), values, bottom=bottoms, label=part, color=color)
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    ax.set_xticks(range(len(sets)), [_name(s) for s in sets], fontsize=7, rotation=20, ha="right")
    ax.set_ylim(0, max(0.05, max(bottoms) * 1.15))
    ax.set_ylabel("mean WED")
    ax.set_title("WED breakdown (one optimal path per sample)")
    ax.legend(fontsize=8)
    return _png(fig)


def distributions(sets: Sequence[Any]) -> bytes:
    """Histograms of per-sample WLCS and WED per dataset × system."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for s in sets:
        label = f"{s.system} ({s.dataset})"
        axes[0].hist([x.wlcs for x in s.scores], bins=20, range=(0, 1), alpha=0.5, label=label)
        axes[1].hist([x.edit.total for x in s.scores], bins=20, range=(0, 2), alpha=0.5, label=label)
    axes[0].set_title("WLCS per sample (↑)")
    axes[1].set_title("WED per sample (↓)")
    axes[1].legend(fontsize=7)
    return _png(fig)


def domain_heatmap(rows: Sequence[str], cols: Sequence[str], values: Sequence[Sequence[float | None]]) -> bytes:
    """Mean WED per domain (rows) × system (columns)."""
    plt = _plt()
    import numpy as np

    grid = np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.4 * len(cols) + 2), 0.28 * len(rows) + 1.2))
    image = ax.imshow(
        grid, cmap="viridis_r", vmin=0, vmax=max(1.0, float(np.nanmax(grid)) if grid.size else 1.0), aspect="auto"
    )
    ax.set_yticks(range(len(rows)), list(rows), fontsize=7)
    ax.set_xticks(range(len(cols)), list(cols), fontsize=7, rotation=20, ha="right")
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6, color="white")
    fig.colorbar(image, ax=ax, label="mean WED")
    ax.set_title("WED per domain")
    return _png(fig)


def confusion_heatmap(confusion: dict[tuple[str, str], int], title: str) -> bytes:
    """Gold label (rows) × predicted label (columns) counts over aligned steps."""
    plt = _plt()
    import numpy as np

    grid = np.array([[confusion.get((g, p), 0) for p in LABELS] for g in LABELS], dtype=float)
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    ax.imshow(grid, cmap="Blues")
    ax.set_xticks(range(len(LABELS)), LABELS, rotation=40, ha="right", fontsize=7)
    ax.set_yticks(range(len(LABELS)), LABELS, fontsize=7)
    for i in range(len(LABELS)):
        for j in range(len(LABELS)):
            if grid[i, j]:
                ax.text(
                    j,
                    i,
                    int(grid[i, j]),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if grid[i, j] > grid.max() / 2 else "black",
                )
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(title, fontsize=9)
    return _png(fig)


def _error_bar(value: float | None, interval: tuple[float, float] | None) -> tuple[float, float]:
    """How far the interval reaches below and above the bar (nothing without one)."""
    if value is None or interval is None:
        return 0.0, 0.0
    return value - interval[0], interval[1] - value


def grouped_bars(
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None], Sequence[tuple[float, float] | None]]],
    title: str,
    ylabel: str,
) -> bytes:
    """Bars side by side: one group per label of ``groups``, one bar per series in each (with its interval as an
    error bar). ``series``: (name, a value per group, an interval per group); ``None`` draws no bar (not measured)."""
    plt = _plt()
    import numpy as np

    width = 0.8 / max(len(series), 1)
    fig, ax = plt.subplots(figsize=(max(4.5, 0.5 * len(groups) * len(series) + 2.5), 3.2))
    for k, (name, values, intervals) in enumerate(series):
        x = np.arange(len(groups)) + (k - (len(series) - 1) / 2) * width
        heights = [np.nan if v is None else v for v in values]
        below, above = zip(*(_error_bar(v, iv) for v, iv in zip(values, intervals, strict=True)), strict=True)
        errors = [list(below), list(above)]
        ax.bar(x, heights, width, yerr=errors, capsize=2, label=name, error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(groups)), list(groups), rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _png(fig)
