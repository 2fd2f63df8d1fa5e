"""The shift report's chart: cumulative house win against cumulative theoretical win."""

from __future__ import annotations

import math
from collections.abc import Sequence

from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Line, String
from reportlab.lib import colors

from .layout import INK, MUTED, RULE, fonts

WIN = colors.HexColor("#1f4e79")
THEO = colors.HexColor("#c07a00")


def _nice_step(span: float, ticks: int = 5) -> float:
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def _money_label(value: float) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:,.1f}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:,.0f}k"
    return f"{value:,.0f}"


def cumulative_chart(series: Sequence[tuple[float, float, float]], width: float,
                     height: float, currency: str) -> Drawing:
    """``series`` is (seconds since opening, cumulative win, cumulative theoretical) in
    cents; drawn in currency units against hours into the shift."""
    f = fonts()
    drawing = Drawing(width, height)
    points = [(0.0, 0.0, 0.0), *series]
    xs = [t / 3600 for t, _, _ in points]
    win = [w / 100 for _, w, _ in points]
    theo = [x / 100 for _, _, x in points]
    lo = min(0.0, *win, *theo)
    hi = max(0.0, *win, *theo)
    if hi - lo < 1:
        hi = lo + 1
    step = _nice_step(hi - lo)
    lo = math.floor(lo / step) * step
    hi = math.ceil(hi / step) * step
    x_hi = max(xs[-1], 0.25)
    x_step = _nice_step(x_hi, 8)
    x_hi = math.ceil(x_hi / x_step) * x_step

    plot = LinePlot()
    plot.x, plot.y = 52, 30
    plot.width, plot.height = width - 70, height - 58
    plot.data = [list(zip(xs, win, strict=True)), list(zip(xs, theo, strict=True))]
    plot.lines[0].strokeColor = WIN
    plot.lines[0].strokeWidth = 1.4
    plot.lines[1].strokeColor = THEO
    plot.lines[1].strokeWidth = 1.2
    plot.lines[1].strokeDashArray = [4, 2]
    plot.xValueAxis.valueMin = 0
    plot.xValueAxis.valueMax = x_hi
    plot.xValueAxis.valueStep = x_step
    plot.xValueAxis.labels.fontName = f.regular
    plot.xValueAxis.labels.fontSize = 7
    plot.xValueAxis.labelTextFormat = lambda v: f"{v:g} h"
    plot.xValueAxis.strokeColor = RULE
    plot.yValueAxis.valueMin = lo
    plot.yValueAxis.valueMax = hi
    plot.yValueAxis.valueStep = step
    plot.yValueAxis.labels.fontName = f.regular
    plot.yValueAxis.labels.fontSize = 7
    plot.yValueAxis.labelTextFormat = _money_label
    plot.yValueAxis.strokeColor = RULE
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = colors.HexColor("#e3e7eb")
    plot.yValueAxis.gridStrokeWidth = 0.4
    drawing.add(plot)
    if lo < 0 < hi:  # the zero line
        y0 = plot.y + plot.height * (0 - lo) / (hi - lo)
        drawing.add(Line(plot.x, y0, plot.x + plot.width, y0, strokeColor=MUTED,
                         strokeWidth=0.5))
    legend_y = height - 12
    drawing.add(Line(56, legend_y + 3, 76, legend_y + 3, strokeColor=WIN, strokeWidth=1.4))
    drawing.add(String(80, legend_y, "House win (logged rounds)", fontName=f.regular,
                       fontSize=7.5, fillColor=INK))
    drawing.add(Line(200, legend_y + 3, 220, legend_y + 3, strokeColor=THEO, strokeWidth=1.2,
                     strokeDashArray=[4, 2]))
    drawing.add(String(224, legend_y, "Theoretical win (stakes x house edge)",
                       fontName=f.regular, fontSize=7.5, fillColor=INK))
    drawing.add(String(4, plot.y + plot.height / 2, currency, fontName=f.regular, fontSize=7,
                       fillColor=MUTED))
    drawing.add(String(plot.x + plot.width / 2 - 40, 6, "hours into the shift",
                       fontName=f.regular, fontSize=7, fillColor=MUTED))
    return drawing


__all__ = ["cumulative_chart"]
