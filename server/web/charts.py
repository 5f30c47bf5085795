"""Charts drawn on the server as SVG: no script, nothing fetched, nothing to ship but this file.

Two shapes cover the health page: stacked bars (memories per week by kind or by thread)
and lines (stored text over time, superseded and forgotten per week, recall latency).
Every label is XML-escaped; colours are attributes (the page's policy allows no inline style).
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

#: Distinct colours that read on white and survive colour-blindness reasonably (Okabe-Ito, then greys).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000", "#999999",
           "#666666")
WIDTH, HEIGHT = 720, 220
LEFT, RIGHT, TOP, BOTTOM = 48, 150, 34, 28  # room for the axis labels and the legend on the right


def _nice(top: float) -> float:
    """A round axis maximum at or above `top` (1, 2, 2.5, 5 times a power of ten)."""
    if top <= 0:
        return 1.0
    power = 10 ** len(str(int(top))) / 10 if top >= 1 else 1.0
    for step in (1, 2, 2.5, 5, 10):
        if top <= step * power:
            return step * power
    return 10 * power


def _number(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _frame(title: str, labels: Sequence[str], top: float, body: list[str],
           legend: Sequence[tuple[str, str]]) -> str:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label={quoteattr(title)}><title>{escape(title)}</title>',
           f'<text x="4" y="16" font-size="13" font-weight="600" fill="#1d2430">{escape(title)}</text>']
    for n in range(5):  # four gridlines and the baseline, labelled
        y = TOP + plot_h - plot_h * n / 4
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="#555">'
                   f'{escape(_number(top * n / 4))}</text>')
    step = max(1, len(labels) // 6)  # at most about six labels along the bottom
    slot = plot_w / max(1, len(labels))
    for i, label in enumerate(labels):
        if i % step == 0:
            x = LEFT + slot * i + slot / 2
            out.append(f'<text x="{x:.1f}" y="{HEIGHT - 8}" text-anchor="middle" font-size="11" fill="#555">'
                       f'{escape(label)}</text>')
    out += body
    for i, (name, colour) in enumerate(legend[:12]):
        y = TOP + 4 + i * 16
        out.append(f'<rect x="{WIDTH - RIGHT + 14}" y="{y}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{WIDTH - RIGHT + 30}" y="{y + 9}" font-size="11" fill="#333">{escape(name[:22])}</text>')
    out.append("</svg>")
    return "".join(out)


def stacked_bars(title: str, labels: Sequence[str], series: dict[str, Sequence[float]]) -> str:
    """One bar per label, the series stacked in the order given (at most len(PALETTE) series)."""
    names = list(series)[: len(PALETTE)]
    totals = [sum(series[n][i] for n in names) for i in range(len(labels))]
    top = _nice(max(totals, default=0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(1, len(labels))
    body = []
    for i in range(len(labels)):
        base = 0.0
        for n, name in enumerate(names):
            value = series[name][i]
            if value <= 0:
                continue
            h = plot_h * value / top
            y = TOP + plot_h - plot_h * base / top - h
            body.append(f'<rect x="{LEFT + slot * i + slot * 0.15:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" '
                        f'height="{h:.1f}" fill="{PALETTE[n]}"><title>{escape(labels[i])} {escape(name)}: '
                        f'{escape(_number(value))}</title></rect>')
            base += value
    return _frame(title, labels, top, body, [(n, PALETTE[i]) for i, n in enumerate(names)])


def lines(title: str, labels: Sequence[str], series: dict[str, Sequence[float]]) -> str:
    """One polyline per series over the labels, with a dot on each point."""
    names = list(series)[: len(PALETTE)]
    top = _nice(max((v for n in names for v in series[n]), default=0))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / max(1, len(labels))
    body = []
    for n, name in enumerate(names):
        points = [(LEFT + slot * i + slot / 2, TOP + plot_h - plot_h * v / top) for i, v in enumerate(series[name])]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            body.append(f'<polyline points="{path}" fill="none" stroke="{PALETTE[n]}" stroke-width="2"/>')
        for (x, y), label, value in zip(points, labels, series[name]):
            body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{PALETTE[n]}"><title>{escape(label)} '
                        f'{escape(name)}: {escape(_number(value))}</title></circle>')
    return _frame(title, labels, top, body, [(n, PALETTE[i]) for i, n in enumerate(names)])
