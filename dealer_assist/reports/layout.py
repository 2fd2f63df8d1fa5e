"""What every report shares: fonts, styles, the page frame with "Page X of Y", money cells,
tables in the house style, and signature blocks.

DejaVu fonts (Debian's fonts-dejavu-core) are used when installed, for the card suits
(♠ ♥ ♦ ♣); without them the reports fall back to Helvetica and print suits as letters.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_RIGHT
from reportlab.lib.pagesizes import landscape, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepTogether,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

DEJAVU_DIR = os.environ.get("DEALER_ASSIST_FONT_DIR", "/usr/share/fonts/truetype/dejavu")

INK = colors.HexColor("#1b1f24")
MUTED = colors.HexColor("#5b6470")
RULE = colors.HexColor("#9aa3ad")
BAND = colors.HexColor("#e9edf1")
ZEBRA = colors.HexColor("#f6f8fa")
ALERT = colors.HexColor("#b3261e")
ALERT_BG = colors.HexColor("#fbe9e7")
OK = colors.HexColor("#1e6b34")
OK_BG = colors.HexColor("#e8f3eb")


@dataclass(frozen=True)
class Fonts:
    regular: str
    bold: str
    condensed: str
    condensed_bold: str
    mono: str
    unicode: bool


_FONTS: Fonts | None = None


def fonts() -> Fonts:
    """Register DejaVu once if present; else the PDF base fonts."""
    global _FONTS
    if _FONTS is not None:
        return _FONTS
    files = {"DejaVuSans": "DejaVuSans.ttf", "DejaVuSans-Bold": "DejaVuSans-Bold.ttf",
             "DejaVuSansCondensed": "DejaVuSansCondensed.ttf",
             "DejaVuSansCondensed-Bold": "DejaVuSansCondensed-Bold.ttf",
             "DejaVuSansMono": "DejaVuSansMono.ttf"}
    try:
        for name, file in files.items():
            if name not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(TTFont(name, os.path.join(DEJAVU_DIR, file)))
        from reportlab.lib.fonts import addMapping

        for family, bold in (("DejaVuSans", "DejaVuSans-Bold"),
                             ("DejaVuSansCondensed", "DejaVuSansCondensed-Bold")):
            addMapping(family, 0, 0, family)
            addMapping(family, 1, 0, bold)
            addMapping(family, 0, 1, family)
            addMapping(family, 1, 1, bold)
        _FONTS = Fonts("DejaVuSans", "DejaVuSans-Bold", "DejaVuSansCondensed",
                       "DejaVuSansCondensed-Bold", "DejaVuSansMono", True)
    except Exception:  # the TTF files are missing or unreadable: fall back cleanly
        _FONTS = Fonts("Helvetica", "Helvetica-Bold", "Helvetica", "Helvetica-Bold",
                       "Courier", False)
    return _FONTS


SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(card: str, *, markup: bool = True) -> str:
    """``AS`` as ``A♠`` (hearts and diamonds in red with markup), or as is without DejaVu."""
    if not card or not fonts().unicode:
        return card
    rank, suit = card[:-1], card[-1]
    symbol = SUITS.get(suit, suit)
    if markup and suit in "HD":
        return f'{rank}<font color="#b3261e">{symbol}</font>'
    return f"{rank}{symbol}"


def cards_text(cards: str | Sequence[str], *, markup: bool = True) -> str:
    items = cards.split() if isinstance(cards, str) else list(cards)
    return " ".join(card_text(c, markup=markup) for c in items)


# --------------------------------------------------------------------------- styles


class Styles:
    def __init__(self) -> None:
        f = fonts()
        self.title = ParagraphStyle("title", fontName=f.bold, fontSize=15, leading=19,
                                    textColor=INK, spaceAfter=2)
        self.subtitle = ParagraphStyle("subtitle", fontName=f.regular, fontSize=9.5,
                                       leading=12, textColor=MUTED, spaceAfter=8)
        self.h2 = ParagraphStyle("h2", fontName=f.bold, fontSize=10.5, leading=13,
                                 textColor=INK, spaceBefore=10, spaceAfter=4)
        self.body = ParagraphStyle("body", fontName=f.regular, fontSize=8.5, leading=11,
                                   textColor=INK)
        self.small = ParagraphStyle("small", fontName=f.regular, fontSize=7, leading=9,
                                    textColor=MUTED)
        self.cell = ParagraphStyle("cell", fontName=f.condensed, fontSize=8, leading=9.6,
                                   textColor=INK)
        self.cell_bold = ParagraphStyle("cellb", parent=self.cell, fontName=f.condensed_bold)
        self.cell_right = ParagraphStyle("cellr", parent=self.cell, alignment=TA_RIGHT)
        self.head = ParagraphStyle("head", fontName=f.condensed_bold, fontSize=7.5,
                                   leading=9, textColor=INK)
        self.head_right = ParagraphStyle("headr", parent=self.head, alignment=TA_RIGHT)
        self.mono = ParagraphStyle("mono", fontName=f.mono, fontSize=7.5, leading=9.5,
                                   textColor=INK)
        self.banner = ParagraphStyle("banner", fontName=f.bold, fontSize=16, leading=20,
                                     alignment=TA_CENTER, textColor=MUTED)
        self.center = ParagraphStyle("center", parent=self.body, alignment=TA_CENTER)


_STYLES: Styles | None = None


def styles() -> Styles:
    global _STYLES
    if _STYLES is None:
        _STYLES = Styles()
    return _STYLES


def esc(text: object) -> str:
    """Text made safe for a Paragraph."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def p(text: str, style: ParagraphStyle | None = None) -> Paragraph:
    return Paragraph(text, style or styles().body)


# --------------------------------------------------------------------------- tables


def grid(rows: Sequence[Sequence[Any]], widths: Sequence[float], *, numeric_from: int = 1,
         total_rows: int = 0, header_rows: int = 1, zebra: bool = True,
         extra: Sequence[tuple[Any, ...]] = (), align_right: Sequence[int] | None = None,
         font_size: float | None = None) -> Table:
    """A table in the house style: bold header on a band, thin rules, right-aligned
    numbers (columns from ``numeric_from`` on, or those in ``align_right``), the last
    ``total_rows`` rows bold above a double rule. Strings become paragraphs (they wrap)."""
    st = styles()
    right = set(align_right if align_right is not None else range(numeric_from, len(widths)))
    cell, cell_right = st.cell, st.cell_right
    if font_size is not None:
        cell = ParagraphStyle("cs", parent=st.cell, fontSize=font_size, leading=font_size * 1.17)
        cell_right = ParagraphStyle("csr", parent=cell, alignment=TA_RIGHT)
    body: list[list[Any]] = []
    n = len(rows)
    for r, row in enumerate(rows):
        line: list[Any] = []
        for c, value in enumerate(row):
            if isinstance(value, str):
                if r < header_rows:
                    style = st.head_right if c in right else st.head
                elif r >= n - total_rows:
                    style = ParagraphStyle("t", parent=cell_right if c in right
                                           else cell, fontName=fonts().condensed_bold)
                else:
                    style = cell_right if c in right else cell
                line.append(Paragraph(value, style))
            else:
                line.append(value)
        body.append(line)
    table = Table(body, colWidths=list(widths), repeatRows=header_rows, hAlign="LEFT")
    commands: list[tuple[Any, ...]] = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2.2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.2),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ("BACKGROUND", (0, 0), (-1, header_rows - 1), BAND),
        ("LINEABOVE", (0, 0), (-1, 0), 0.8, INK),
        ("LINEBELOW", (0, header_rows - 1), (-1, header_rows - 1), 0.6, INK),
        ("LINEBELOW", (0, -1), (-1, -1), 0.8, INK),
    ]
    if zebra:
        for r in range(header_rows, n - total_rows):
            if (r - header_rows) % 2 == 1:
                commands.append(("BACKGROUND", (0, r), (-1, r), ZEBRA))
    if total_rows and n > header_rows:
        commands.append(("LINEABOVE", (0, n - total_rows), (-1, n - total_rows), 0.6, INK))
        commands.append(("LINEBELOW", (0, -1), (-1, -1), 1.6, INK))
    commands.extend(extra)
    table.setStyle(TableStyle(commands))
    return table


def key_values(pairs: Sequence[tuple[str, str]], widths: tuple[float, float, float, float]
               ) -> Table:
    """Header facts in two columns of label: value."""
    st = styles()
    label = ParagraphStyle("kvl", parent=st.cell, textColor=MUTED)
    rows: list[list[Any]] = []
    for i in range(0, len(pairs), 2):
        row: list[Any] = []
        for k, v in pairs[i:i + 2]:
            row += [Paragraph(k, label), Paragraph(v, st.cell)]
        while len(row) < 4:
            row.append("")
        rows.append(row)
    table = Table(rows, colWidths=list(widths), hAlign="LEFT")
    table.setStyle(TableStyle([
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ("LEFTPADDING", (0, 0), (-1, -1), 2),
        ("LINEABOVE", (0, 0), (-1, 0), 0.8, INK),
        ("LINEBELOW", (0, -1), (-1, -1), 0.8, INK),
    ]))
    return table


def notice(text: str, *, alert: bool, width: float) -> Table:
    """A boxed line: red for something to investigate, green for all clear."""
    st = styles()
    style = ParagraphStyle("notice", parent=st.body, fontName=fonts().bold,
                           textColor=ALERT if alert else OK)
    table = Table([[Paragraph(text, style)]], colWidths=[width], hAlign="LEFT")
    table.setStyle(TableStyle([
        ("BOX", (0, 0), (-1, -1), 1, ALERT if alert else OK),
        ("BACKGROUND", (0, 0), (-1, -1), ALERT_BG if alert else OK_BG),
        ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 5),
    ]))
    return table


def signature_block(signers: Sequence[tuple[str, str]], width: float, *,
                    compact: bool = False) -> Flowable:
    """Signature lines, each with the role, the printed name (or a line to print it on),
    the signature and the date; initials are not signatures, and the block says so."""
    if compact:
        return _signatures_side_by_side(signers, width)
    st = styles()
    label = ParagraphStyle("sigl", parent=st.small)
    role_style = ParagraphStyle("sigr", parent=st.cell, fontName=fonts().condensed_bold)
    name_style = ParagraphStyle("sign", parent=st.body, fontSize=10, leading=12)
    rows: list[list[Any]] = []
    heights: list[float | None] = []
    for role, name in signers:
        rows.append([Paragraph(esc(role), role_style), "", "", ""])
        rows.append([Paragraph(esc(name) if name else "", name_style), "", "", ""])
        rows.append([Paragraph("Printed name", label), Paragraph("Signature", label),
                     Paragraph("Date and time", label), ""])
        heights += [14, 30, 22]
    w = width
    table = Table(rows, colWidths=[w * 0.34, w * 0.38, w * 0.24, w * 0.04],
                  rowHeights=heights, hAlign="LEFT")
    commands: list[tuple[Any, ...]] = [("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                                       ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                       ("TOPPADDING", (0, 0), (-1, -1), 1),
                                       ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]
    for i in range(len(signers)):
        r = 3 * i + 1
        commands += [("LINEBELOW", (0, r), (0, r), 0.7, INK),
                     ("LINEBELOW", (1, r), (1, r), 0.7, INK),
                     ("LINEBELOW", (2, r), (2, r), 0.7, INK),
                     ("VALIGN", (0, 3 * i + 2), (-1, 3 * i + 2), "TOP"),
                     ("RIGHTPADDING", (0, r), (2, r), 12)]
    table.setStyle(TableStyle(commands))
    return KeepTogether([table, Spacer(1, 2), p(
        "Sign in full. Initials are not accepted as a signature. By signing you attest that "
        "you have reviewed this report against the table's records.", st.small)])


def _signatures_side_by_side(signers: Sequence[tuple[str, str]], width: float) -> Flowable:
    """Two signers per row (a one-page sheet): printed name, signature and date each."""
    st = styles()
    label = ParagraphStyle("sigl", parent=st.small)
    role_style = ParagraphStyle("sigr", parent=st.cell, fontName=fonts().condensed_bold)
    w = width
    cols = [w * 0.19, w * 0.18, w * 0.1, w * 0.06, w * 0.19, w * 0.18, w * 0.1]
    rows: list[list[Any]] = []
    commands: list[tuple[Any, ...]] = [("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                                       ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                       ("RIGHTPADDING", (0, 0), (-1, -1), 8)]
    for i in range(0, len(signers), 2):
        pair = list(signers[i:i + 2])
        r = len(rows)
        role_row: list[Any] = [""] * 7
        name_row: list[Any] = [""] * 7
        label_row: list[Any] = [""] * 7
        for k, (role, name) in enumerate(pair):
            c = 4 * k
            role_row[c] = Paragraph(esc(role), role_style)
            name_row[c] = Paragraph(esc(name), st.body)
            label_row[c:c + 3] = [Paragraph("Printed name", label),
                                  Paragraph("Signature", label), Paragraph("Date", label)]
            commands += [("LINEBELOW", (c + j, r + 1), (c + j, r + 1), 0.7, INK)
                         for j in range(3)]
            commands.append(("SPAN", (c, r), (c + 2, r)))
        rows += [role_row, name_row, label_row]
    heights = [16, 26, 12] * (len(rows) // 3)
    table = Table(rows, colWidths=cols, rowHeights=heights, hAlign="LEFT")
    table.setStyle(TableStyle(commands))
    return KeepTogether([table, Spacer(1, 2), p(
        "Sign in full. Initials are not accepted as a signature.", st.small)])


# --------------------------------------------------------------------------- the page frame


@dataclass
class Frame_:
    """What the running header and footer print."""

    casino: str
    title: str
    right: str
    generated: str


def _numbered_canvas(frame: Frame_, page_size: tuple[float, float]) -> type[rl_canvas.Canvas]:
    class NumberedCanvas(rl_canvas.Canvas):  # type: ignore[misc]
        """Draws each page's header and footer once the page count is known."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self._decorate(total)
                super().showPage()
            super().save()

        def _decorate(self, total: int) -> None:
            f = fonts()
            width, height = page_size
            margin = 0.6 * inch
            self.saveState()
            self.setStrokeColor(INK)
            self.setLineWidth(0.8)
            self.line(margin, height - 0.55 * inch, width - margin, height - 0.55 * inch)
            self.setFont(f.bold, 8.5)
            self.setFillColor(INK)
            self.drawString(margin, height - 0.48 * inch, frame.casino)
            self.setFont(f.regular, 8.5)
            self.drawCentredString(width / 2, height - 0.48 * inch, frame.title)
            self.drawRightString(width - margin, height - 0.48 * inch, frame.right)
            self.setLineWidth(0.4)
            self.line(margin, 0.55 * inch, width - margin, 0.55 * inch)
            self.setFont(f.regular, 7.5)
            self.setFillColor(MUTED)
            self.drawString(margin, 0.4 * inch, frame.generated)
            self.setFillColor(INK)
            self.setFont(f.bold, 8)
            self.drawRightString(width - margin, 0.4 * inch,
                                 f"Page {self._pageNumber} of {total}")
            self.restoreState()

    return NumberedCanvas


def build(out: Any, story: list[Flowable], frame: Frame_, *, wide: bool = False,
          title: str = "", author: str = "dealer-assist") -> None:
    """Lay ``story`` out on Letter pages (landscape when ``wide``) into ``out`` (a path or a
    binary file)."""
    page_size = landscape(letter) if wide else letter
    margin = 0.6 * inch
    if isinstance(out, os.PathLike):
        out = os.fspath(out)
    doc = BaseDocTemplate(out, pagesize=page_size, leftMargin=margin, rightMargin=margin,
                          topMargin=0.75 * inch, bottomMargin=0.75 * inch, title=title,
                          author=author, creator="dealer-assist reports (reportlab)")
    body = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body",
                 leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
    doc.addPageTemplates([PageTemplate(id="page", frames=[body])])
    doc.build(story, canvasmaker=_numbered_canvas(frame, page_size))


def content_width(*, wide: bool = False) -> float:
    size = landscape(letter) if wide else letter
    return float(size[0] - 1.2 * inch)


# --------------------------------------------------------------------------- time


def local(at: datetime | None, zone: str, fmt: str = "%Y-%m-%d %H:%M:%S %Z") -> str:
    """An instant in the casino's time zone."""
    if at is None:
        return "—"
    return at.astimezone(ZoneInfo(zone)).strftime(fmt)


def duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min"


def overrun_text(seconds: float) -> str:
    """How long past a window: ``1 h 05 min``, or ``40 s`` under a minute."""
    return f"{int(seconds)} s" if seconds < 60 else duration(seconds)


Formatter = Callable[[float], str]

__all__ = ["ALERT", "BAND", "INK", "MUTED", "OK", "RULE", "Frame_", "build", "card_text",
           "cards_text", "content_width", "duration", "esc", "fonts", "grid", "key_values",
           "local", "notice", "overrun_text", "p", "signature_block", "styles"]
