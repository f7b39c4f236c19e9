"""Inline SVG for the HTML report: the score trend chart and the per-probe heat strip.

Both are plain SVG markup (no script); every piece of text is escaped with markupsafe.
"""

from __future__ import annotations

import math

from markupsafe import Markup, escape

from promptcanary.core.render.trend import TrendPoint
from promptcanary.core.text import clip

#: At most this many probes get a row in the heat strip.
MAX_HEAT_ROWS = 40

_W, _H = 640, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 16, 16, 34


def _x(i: int, n: int) -> float:
    if n == 1:
        return _LEFT + (_W - _LEFT - _RIGHT) / 2
    return _LEFT + i * (_W - _LEFT - _RIGHT) / (n - 1)


def _floor(points: list[TrendPoint]) -> float:
    """Bottom of the y axis: a round value a little under the lowest score (0 at most 1 - 0.2).

    Scores of a healthy suite sit near 1.0; a fixed 0..1 axis would flatten the very drops the
    chart is for.
    """
    low = min(p.overall_score for p in points)
    return max(0.0, min(0.8, math.floor((low - 0.05) * 10) / 10))


def _y(score: float, floor: float = 0.0) -> float:
    span = 1.0 - floor
    value = (max(floor, min(1.0, score)) - floor) / span
    return _TOP + (1.0 - value) * (_H - _TOP - _BOTTOM)


def _date(p: TrendPoint) -> str:
    return f"{p.created_at:%Y-%m-%d %H:%M}"


def trend_chart(points: list[TrendPoint]) -> Markup:
    """Overall score of every point in time order, the current run highlighted."""
    if not points:
        return Markup("")
    n = len(points)
    parts = [
        f'<svg class="trend" viewBox="0 0 {_W} {_H}" role="img" '
        f'aria-label="Overall score over {n} runs" xmlns="http://www.w3.org/2000/svg">'
    ]
    floor = _floor(points)
    for k in range(5):
        level = floor + (1.0 - floor) * k / 4
        y = _y(level, floor)
        parts.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis" x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{level:.2f}</text>'
        )
    coords = [(_x(i, n), _y(p.overall_score, floor)) for i, p in enumerate(points)]
    if n > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline class="line" points="{path}"/>')
    for (x, y), p in zip(coords, points):
        cls = "pt current" if p.is_current else "pt"
        title = escape(f"{p.label} · {_date(p)} · overall {p.overall_score:.2f}")
        parts.append(
            f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="{6 if p.is_current else 4}">'
            f"<title>{title}</title></circle>"
        )
    first, last = points[0], points[-1]
    parts.append(
        f'<text class="axis" x="{_LEFT}" y="{_H - 10}">{escape(f"{first.created_at:%Y-%m-%d}")}'
        "</text>"
    )
    if n > 1:
        parts.append(
            f'<text class="axis" x="{_W - _RIGHT}" y="{_H - 10}" text-anchor="end">'
            f"{escape(f'{last.created_at:%Y-%m-%d}')} (current)</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _colour(score: float) -> str:
    # Red (0) through amber to green (1), readable on the dark background.
    hue = round(max(0.0, min(1.0, score)) * 120)
    return f"hsl({hue},65%,42%)"


def heat_strip(points: list[TrendPoint], probe_names: dict[str, tuple[str, str]]) -> Markup:
    """One row per probe (grouped by category), one cell per run, coloured by mean score."""
    if len(points) < 2:
        return Markup("")
    probe_ids = sorted(
        {pid for p in points for pid in p.probe_scores},
        key=lambda pid: (probe_names.get(pid, ("", "custom"))[1], pid),
    )
    hidden = max(len(probe_ids) - MAX_HEAT_ROWS, 0)
    probe_ids = probe_ids[:MAX_HEAT_ROWS]
    if not probe_ids:
        return Markup("")
    label_w, cell, gap = 260, 18, 2
    # A band above the cells names each column: the run's date, "current" for this run.
    head, pad = 52, 48
    width = label_w + len(points) * (cell + gap) + pad
    height = head + len(probe_ids) * (cell + gap) + 4
    parts = [
        f'<svg class="heat" viewBox="0 0 {width} {height}" width="{width}" role="img" '
        'aria-label="Score per probe and run" xmlns="http://www.w3.org/2000/svg">',
        f'<text class="axis" x="{label_w - 8}" y="{head - 6}" text-anchor="end">'
        "run (month-day) →</text>",
    ]
    for col, p in enumerate(points):
        x = label_w + col * (cell + gap) + cell / 2
        name = "current" if p.is_current else f"{p.created_at:%m-%d}"
        parts.append(
            f'<text class="axis column" x="{x:.1f}" y="{head - 6}" '
            f'transform="rotate(-55 {x:.1f} {head - 6})"><title>{escape(_date(p))}</title>'
            f"{escape(name)}</text>"
        )
    # Two probes of one type share a name ("Regex"): such rows also show their ids, as the
    # report's tables do, so that no two rows read the same.
    names = [probe_names.get(pid, (pid, ""))[0] or pid for pid in probe_ids]
    shared = {name for name in names if names.count(name) > 1}
    for row, pid in enumerate(probe_ids):
        name, category = probe_names.get(pid, (pid, "custom"))
        y = head + row * (cell + gap)
        shown_name = name or pid
        if shown_name in shared:
            shown_name = f"{shown_name} [{pid}]"
        label = clip(f"{category} · {shown_name}", 40)
        parts.append(
            f'<text class="axis" x="{label_w - 8}" y="{y + 13}" text-anchor="end">'
            f"{escape(label)}</text>"
        )
        for col, p in enumerate(points):
            x = label_w + col * (cell + gap)
            value = p.probe_scores.get(pid)
            fill = _colour(value) if value is not None else "#30363d"
            shown = f"{value:.2f}" if value is not None else "not measured"
            title = escape(f"{name or pid} · {p.label} · {_date(p)} · {shown}")
            stroke = ' class="current"' if p.is_current else ""
            parts.append(
                f'<rect{stroke} x="{x}" y="{y}" width="{cell}" height="{cell}" rx="3" '
                f'fill="{fill}"><title>{title}</title></rect>'
            )
    parts.append("</svg>")
    if hidden:
        parts.append(f'<p class="muted">{hidden} more probes not shown.</p>')
    return Markup("".join(parts))
