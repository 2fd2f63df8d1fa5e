"""Shift pages: open a shift with its opening chip inventory, fills and credits during it,
close it with the closing inventory; the shifts of each table and one shift's figures,
with the shift report PDF and the day's floor report to download.

Reading needs the role supervisor, auditor or admin (``review``); opening, closing and
chip movements need a supervisor or admin. Every change goes through
``dealer_assist.services.shifts`` (each is an event on the table's audit chain). The drop
of a closed shift (cash and markers from the drop box) is recorded by a supervisor or the
count team (``record_drop``) through ``dealer_assist.services.drops``; a recount appends.
Each shift shows its gaming day and scheduled window from the casino's settings, flagged
when the shift ran past it.
Chip counts are typed per denomination of the table (``chip-<cents>`` fields) and read
by :func:`dealer_assist.domain.chips.chip_counts`.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from dealer_assist import services
from dealer_assist.domain.chips import ChipError, chip_counts
from dealer_assist.services import reporting
from dealer_assist.services import shifts as shift_service
from dealer_assist.services.drops import record_drop as record_drop_service
from dealer_assist.store.models import utcnow

from .auth import requires, signed_in_user
from .backend import BackendError, NotFoundError, TableInfo, get_backend
from .dealer import money
from .store import casino_zone, local_time, store

bp = Blueprint("shifts", __name__, url_prefix="/shifts")

#: Shifts a list shows at most.
LIST_LIMIT = 200


def _typed_chips(table: TableInfo) -> dict[int, str]:
    return {d: request.form.get(f"chip-{d}", "") for d in table.denominations}


def _counts(table: TableInfo) -> dict[int, int]:
    return chip_counts(_typed_chips(table), table.denominations)


def _overrun(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 1:
        return f"{int(seconds)} s"
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def parse_amount(raw: str | None, field: str) -> int:
    """A typed amount (``1,250.00``, ``$1250``, empty for 0) in cents, exactly."""
    text = (raw or "").strip().replace(",", "").replace(current_app.config["CURRENCY_SYMBOL"],
                                                        "").replace("$", "").strip()
    if not text:
        return 0
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise BackendError(f"{field}: an amount like 1,250.00, not {raw!r}", field) from None
    cents = value * 100
    if not value.is_finite() or cents != cents.to_integral_value():
        raise BackendError(f"{field}: whole cents, not {raw!r}", field)
    if cents < 0:
        raise BackendError(f"{field}: an amount of 0 or more", field)
    return int(cents)


def _inventory_rows(chips: dict[str, int] | None) -> list[tuple[int, int, int]]:
    """(denomination, count, value) largest first."""
    if not chips:
        return []
    return [(int(d), int(c), int(d) * int(c))
            for d, c in sorted(chips.items(), key=lambda kv: -int(kv[0]))]


def _chip_form(template: str, table: TableInfo, status: int = 200, **context: Any
               ) -> tuple[str, int]:
    return render_template(template, table=table, typed=_typed_chips(table)
                           if request.method == "POST" else {}, **context), status


# ---------------------------------------------------------------- reading

@bp.get("/")
@requires("review")
def list_page() -> str:
    table = request.args.get("table") or None
    with store() as s:
        tables = [t.name for t in services.list_tables(s)]
        if table is not None and table not in tables:
            raise NotFoundError(f"no table {table!r}")
        schedule = reporting.casino(s).schedule
        found = shift_service.list_shifts(s, table=table, limit=LIST_LIMIT)
        now = utcnow()
        rows = [{"id": sh.id, "table": sh.table.name,
                 "opened_at": local_time(sh.opened_at, seconds=False),
                 "closed_at": local_time(sh.closed_at, seconds=False) if sh.closed_at else None,
                 "day": schedule.day_of(sh.opened_at).isoformat(),
                 "window": (w.label if (w := schedule.window_for(sh.opened_at)) else ""),
                 "late": (_overrun(o.total_seconds()) if (o := schedule.overrun(
                     sh.opened_at, sh.closed_at or now)) else None),
                 "opened_by": sh.opened_by.name,
                 "closed_by": sh.closed_by.name if sh.closed_by else None,
                 "opening_value": shift_service.inventory_value(sh.opening_inventory),
                 "closing_value": None if sh.closing_inventory is None
                 else shift_service.inventory_value(sh.closing_inventory)}
                for sh in found]
    return render_template("shifts/list.html", rows=rows, tables=tables, table=table,
                           limit=LIST_LIMIT, schedule=schedule.describe())


@bp.get("/<int:shift_id>")
@requires("review")
def shift_page(shift_id: int) -> str:
    with store() as s:
        fig, info, _ = reporting.shift_figures(s, shift_id, verify=False)
    table = get_backend().table(fig.table)
    moves = [{"kind": m.kind, "amount": m.amount, "at": local_time(m.at), "by": m.by,
              "chips": _inventory_rows(m.chips)} for m in fig.movements]
    drops = [{"id": d.id, "at": local_time(d.at), "by": d.by, "cash": d.cash,
              "markers": d.markers, "amount": d.amount, "reason": d.reason,
              "superseded_by": d.superseded_by} for d in fig.drops]
    hold = fig.table_hold()
    return render_template(
        "shifts/shift.html", fig=fig, table=table, casino=info, moves=moves, drops=drops,
        drop=fig.recorded_drop, table_hold=None if hold is None else f"{float(hold):.2f}%",
        schedule=info.schedule.describe(),
        overrun=_overrun(fig.overrun.total_seconds()) if fig.overrun else None,
        window_end=local_time(fig.scheduled.end, seconds=False) if fig.scheduled else None,
        opened_at=local_time(fig.opened_at),
        day=(fig.gaming_day or fig.opened_at.date()).isoformat(),
        closed_at=local_time(fig.closed_at) if fig.closed_at else None,
        opening=_inventory_rows(fig.opening_inventory),
        closing=_inventory_rows(fig.closing_inventory),
        zone=str(casino_zone()))


# ---------------------------------------------------------------- opening and closing

@bp.get("/open/<table>")
@requires("open_shift")
def open_form(table: str) -> tuple[str, int] | Response:
    info = get_backend().table(table)
    current = get_backend().current_shift(table)
    if current is not None:
        flash(f"Shift {current.id} is already open at {table}.")
        return redirect(url_for("shifts.shift_page", shift_id=current.id))
    return _chip_form("shifts/open.html", info)


@bp.post("/open/<table>")
@requires("open_shift")
def open_shift(table: str) -> tuple[str, int] | Response:
    info = get_backend().table(table)
    try:
        chips = _counts(info)
        if not chips:
            raise ChipError("enter the opening chip count: the chips in the rack, "
                            "by denomination")
    except ChipError as exc:
        return _chip_form("shifts/open.html", info, 400, error=exc.message)
    dealers = [d.strip() for d in request.form.get("dealers", "").split(",") if d.strip()]
    with store(write=True) as s:
        shift = services.open_shift(s, table=table, user=signed_in_user().info.name,
                                    opening_inventory=chips, dealers=dealers[:20])
        shift_id = shift.id
    flash(f"Shift {shift_id} opened at {table}.")
    return redirect(url_for("shifts.shift_page", shift_id=shift_id))


def _open_shift_table(shift_id: int) -> TableInfo:
    """The table of ``shift_id`` if that shift is still open (409 otherwise)."""
    with store() as s:
        shift = shift_service.get_shift(s, shift_id)
        name, closed = shift.table.name, shift.closed_at is not None
    if closed:
        raise BackendError(f"shift {shift_id} is closed: nothing more can be recorded on it")
    return get_backend().table(name)


@bp.get("/<int:shift_id>/close")
@requires("close_shift")
def close_form(shift_id: int) -> tuple[str, int]:
    info = _open_shift_table(shift_id)
    return _chip_form("shifts/close.html", info, shift_id=shift_id)


@bp.post("/<int:shift_id>/close")
@requires("close_shift")
def close_shift(shift_id: int) -> tuple[str, int] | Response:
    info = _open_shift_table(shift_id)
    try:
        chips = _counts(info)
        if not chips and request.form.get("empty") != "yes":
            raise ChipError("enter the closing chip count (tick \"the rack is empty\" if "
                            "it is)")
    except ChipError as exc:
        return _chip_form("shifts/close.html", info, 400, shift_id=shift_id, error=exc.message)
    with store(write=True) as s:
        services.close_shift(s, table=info.name, user=signed_in_user().info.name,
                             closing_inventory=chips)
    flash(f"Shift {shift_id} at {info.name} closed.")
    return redirect(url_for("shifts.shift_page", shift_id=shift_id))


@bp.post("/<int:shift_id>/chips")
@requires("shift_chips")
def record_chips(shift_id: int) -> Response | tuple[str, int]:
    info = _open_shift_table(shift_id)
    kind = request.form.get("kind", "")
    if kind not in ("fill", "credit"):
        raise BackendError("kind is fill or credit", "kind")
    try:
        chips = _counts(info)
        if not chips:
            raise ChipError(f"a {kind} needs the chips it brings or takes, by denomination")
    except ChipError as exc:
        flash(f"Not recorded: {exc.message}")
        return redirect(url_for("shifts.shift_page", shift_id=shift_id) + "#chips")
    with store(write=True) as s:
        move = services.record_chips(s, table=info.name, user=signed_in_user().info.name,
                                     kind=kind, chips=chips)
        amount = move.amount
    flash(f"{kind.capitalize()} of {money(amount)} recorded on shift {shift_id}.")
    return redirect(url_for("shifts.shift_page", shift_id=shift_id))


# ---------------------------------------------------------------- the drop

@bp.post("/<int:shift_id>/drop")
@requires("record_drop")
def record_drop(shift_id: int) -> Response:
    """Record (or recount) the drop of a closed shift: cash and markers, in currency."""
    form = request.form
    replaces_raw = (form.get("replaces") or "").strip()
    if replaces_raw and not replaces_raw.isdigit():
        raise BackendError("replaces: the id of the drop record shown", "replaces")
    try:
        cash = parse_amount(form.get("cash"), "cash")
        markers = parse_amount(form.get("markers"), "markers")
        with store(write=True) as s:
            drop = record_drop_service(s, shift_id=shift_id, user=signed_in_user().info.name,
                                       cash=cash, markers=markers,
                                       reason=form.get("reason") or "",
                                       replaces=int(replaces_raw) if replaces_raw else None)
            amount, drop_id = drop.amount, drop.id
    except BackendError as exc:
        if exc.status not in (400, 409):
            raise
        flash(f"Drop not recorded: {exc.message}")
        return redirect(url_for("shifts.shift_page", shift_id=shift_id) + "#drop")
    flash(f"Drop of {money(amount)} recorded on shift {shift_id} (record #{drop_id}).")
    return redirect(url_for("shifts.shift_page", shift_id=shift_id) + "#drop")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["init_app"]
