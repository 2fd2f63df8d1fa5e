"""The dealer's screens: pick a table, open a shift, enter and settle rounds, the history."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from dealer_assist.domain.cards import DECK
from dealer_assist.domain.round_entry import STAKE_KEYS

from . import approvals, rounds, scan
from .auth import requires, signed_in_user
from .backend import ConflictError, RoundFilters, get_backend

bp = Blueprint("dealer", __name__, url_prefix="/dealer")


def money(cents: int | None, sign: bool = False) -> str:
    """``12345`` -> ``$123.45``; whole amounts without cents: ``$245``."""
    if cents is None:
        return ""
    symbol = current_app.config["CURRENCY_SYMBOL"]
    prefix = "-" if cents < 0 else ("+" if sign and cents > 0 else "")
    whole, part = divmod(abs(cents), 100)
    text = f"{whole:,}" if part == 0 else f"{whole:,}.{part:02d}"
    return f"{prefix}{symbol}{text}"


def chip_label(cents: int) -> str:
    """A chip's face: ``$25``, ``$1K``, ``$0.50``."""
    if cents >= 100_000 and cents % 100_000 == 0:
        return f"{current_app.config['CURRENCY_SYMBOL']}{cents // 100_000}K"
    return money(cents)


@bp.get("/")
@requires("read")
def tables() -> str:
    backend = get_backend()
    rows = [(t, backend.current_shift(t.name)) for t in backend.tables()]
    return render_template("dealer/tables.html", rows=rows)


@bp.post("/<table>/shift/open")
@requires("open_shift")
def open_shift(table: str) -> Response:
    backend = get_backend()
    backend.table(table)
    if backend.current_shift(table) is None:
        shift = backend.open_shift(table, signed_in_user().info)
        flash(f"Shift {shift.id} opened at {table}.")
    return redirect(url_for("dealer.screen", table=table))


@bp.post("/<table>/shift/close")
@requires("close_shift")
def close_shift(table: str) -> Response:
    backend = get_backend()
    shift = backend.current_shift(table)
    if shift is None:
        flash(f"No shift is open at {table}.")
    else:
        backend.close_shift(table, signed_in_user().info)
        flash(f"Shift {shift.id} at {table} closed.")
    return redirect(url_for("dealer.tables"))


def _last_stakes(table: str) -> list[dict[str, Any]]:
    backend = get_backend()
    recent = backend.list_rounds(RoundFilters(table=table, limit=1))
    if not recent:
        return []
    last = backend.get_round(recent[0].id)
    return [{key: seat.get(key, 0) for key in ("seat", *STAKE_KEYS)}
            for seat in last.round.get("seats", [])]


@bp.get("/<table>")
@requires("deal")
def screen(table: str) -> str:
    backend = get_backend()
    info = backend.table(table)
    shift = backend.current_shift(table)
    if shift is None:
        return render_template("dealer/no_shift.html", table=info)
    config = {
        "table": info.name,
        "seats": info.seats,
        "denominations": list(info.denominations),
        "threshold": info.large_payout_threshold,
        "currency": current_app.config["CURRENCY_SYMBOL"],
        "settleUrl": url_for("dealer.settle", table=info.name),
        "logUrl": url_for("dealer.log_round", table=info.name),
        "historyUrl": url_for("dealer.history", table=info.name),
        "scanUrl": url_for("dealer.scan_photo", table=info.name),
        "scanMaxBytes": scan.max_bytes(),
        "scanMaxPixels": scan.max_pixels(),
        "lastStakes": _last_stakes(info.name),
        "deck": [str(c) for c in DECK],
    }
    return render_template("dealer/screen.html", table=info, shift=shift, config=config)


@bp.post("/<table>/settle")
@requires("deal")
def settle(table: str) -> Response:
    info = get_backend().table(table)
    return jsonify(rounds.preview(info, request.get_json(silent=True)))


@bp.post("/<table>/rounds")
@requires("deal")
def log_round(table: str) -> tuple[Response, int]:
    backend = get_backend()
    info = backend.table(table)
    if backend.current_shift(table) is None:
        raise ConflictError(f"no shift is open at {table}: a supervisor must open one")
    key = rounds.idempotency_key(request.headers.get("Idempotency-Key"))
    data, approval = approvals.split_body(request.get_json(silent=True))
    data, photo = scan.split_photo(data)
    user = signed_in_user().info
    logged = rounds.log(info, data, user, key, photo, approval=approval, via="session")
    return jsonify(rounds.logged_json(info, logged)), 200 if logged.replayed else 201


@bp.post("/<table>/scan")
@requires("deal")
def scan_photo(table: str) -> Response:
    """The dealer screen's Scan: the photo as the body (or multipart field ``photo``)."""
    return scan.scan_response(get_backend().table(table))


@bp.get("/photos/<sha256>")
@requires("review")
def photo(sha256: str) -> Response:
    """A scanned round's photo, for the review pages."""
    return scan.photo_response(sha256)


@bp.get("/<table>/history")
@requires("read")
def history(table: str) -> str:
    backend = get_backend()
    info = backend.table(table)
    shift = backend.current_shift(table)
    scope = request.args.get("scope", "shift" if shift else "all")
    shift_id = shift.id if (scope == "shift" and shift) else None
    found = backend.list_rounds(RoundFilters(table=table, shift_id=shift_id, limit=200))
    return render_template("dealer/history.html", table=info, shift=shift, rounds=found,
                           scope=scope)


@bp.get("/rounds/<int:round_id>")
@requires("read")
def round_detail(round_id: int) -> str:
    found = get_backend().get_round(round_id)
    return render_template("dealer/round.html", r=found)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.add_template_filter(money, "money")
    app.add_template_filter(chip_label, "chip_label")
