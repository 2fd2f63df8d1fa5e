"""Supervisor and auditor screens: hand history, dispute review, void, correction,
misdeal, and the floor view.

Reading (history, a round, the floor) needs the role supervisor, auditor or admin;
voiding, correcting and declaring a misdeal need a supervisor. Every change goes through
``dealer_assist.services`` (a new record pointing at the original; nothing is edited).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Flask, current_app, flash, redirect, render_template, request, url_for

from dealer_assist import services
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.round_entry import STAKE_KEYS
from dealer_assist.services import history
from dealer_assist.services import review as review_service

from .auth import requires, signed_in_user
from .backend import BackendError
from .store import local_time, parse_local, store

bp = Blueprint("review", __name__, url_prefix="/review")

BET_LABELS = {"ante": "ante", "play": "play", "pair_plus": "pair plus",
              "six_card": "six card bonus", "prime": "prime"}


# ---------------------------------------------------------------- the history

def _cents(raw: str | None, field: str) -> int | None:
    if raw is None or raw.strip() == "":
        return None
    try:
        value = round(float(raw.replace(",", "").replace("$", "")) * 100)
    except ValueError:
        raise BackendError(f"{field}: an amount like 250 or 99.50", field) from None
    if value < 0:
        raise BackendError(f"{field}: an amount of 0 or more", field)
    return value


def _int(raw: str | None, field: str) -> int | None:
    if raw is None or raw.strip() == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise BackendError(f"{field} must be a whole number", field) from None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _cursor(raw: str | None) -> tuple[datetime, int] | None:
    """A page cursor: ``<microseconds since 1970 UTC>_<round id>`` (safe in a URL)."""
    if not raw:
        return None
    at, _, rid = raw.partition("_")
    try:
        return _EPOCH + timedelta(microseconds=int(at)), int(rid)
    except (ValueError, OverflowError):
        raise BackendError("before: a cursor from a previous page", "before") from None


def cursor_text(before: tuple[datetime, int] | None) -> str | None:
    if before is None:
        return None
    at = before[0] if before[0].tzinfo else before[0].replace(tzinfo=UTC)
    return f"{(at - _EPOCH) // timedelta(microseconds=1)}_{before[1]}"


def query_from_args(args: Any, *, local: bool) -> history.HistoryQuery:
    """The search as given in a query string (the page's form, or the API)."""
    def when(name: str) -> datetime | None:
        raw = args.get(name) or None
        try:
            if local:
                return parse_local(raw)
            if raw is None:
                return None
            value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
            if value.tzinfo is None:
                value = value.replace(tzinfo=UTC)
            return value
        except ValueError:
            raise BackendError(f"{name} must be a time like 2026-01-31T18:00", name) from None

    given_limit = _int(args.get("limit"), "limit")
    limit = 50 if given_limit is None else given_limit
    if not 1 <= limit <= history.MAX_LIMIT:
        raise BackendError(f"limit must be between 1 and {history.MAX_LIMIT}", "limit")
    min_payout = (_int(args.get("min_payout"), "min_payout") if not local
                  else _cents(args.get("min_payout"), "min_payout"))
    try:
        return history.HistoryQuery(
            table=args.get("table") or None, shift_id=_int(args.get("shift_id"), "shift_id"),
            since=when("since"), until=when("until"), seat=_int(args.get("seat"), "seat"),
            card=(args.get("card") or "").strip() or None, bet=args.get("bet") or None,
            min_payout=min_payout, status=args.get("status") or None,
            entered_by=args.get("entered_by") or None, before=_cursor(args.get("before")),
            limit=limit).checked()
    except services.InvalidInput as exc:
        raise BackendError(exc.message) from exc


@bp.get("/history")
@requires("review")
def history_page() -> str:
    with store() as s:
        tables = [t.name for t in services.list_tables(s, include_inactive=True)]
        error = None
        page = None
        try:
            q = query_from_args(request.args, local=True)
            page = history.search(s, q)
        except BackendError as exc:
            error = exc.message
        rows = [] if page is None else page.rows
    args = {k: v for k, v in request.args.items() if k != "before" and v}
    next_url = None
    if page is not None and page.next_before is not None:
        next_url = url_for("review.history_page", **args, before=cursor_text(page.next_before))
    return render_template("review/history.html", rows=rows, page=page, error=error,
                           tables=tables, args=request.args, next_url=next_url,
                           statuses=history.STATUSES, bets=history.BET_TYPES,
                           bet_labels=BET_LABELS, paged=bool(request.args.get("before")),
                           first_url=url_for("review.history_page", **args))


# ---------------------------------------------------------------- one round

@bp.get("/rounds/<int:round_id>")
@requires("review")
def round_page(round_id: int) -> str:
    with store() as s:
        rv = review_service.round_review(s, round_id)
    return render_template("review/round.html", rv=rv, d=rv.detail, r=rv.detail.round,
                           s=rv.detail.settlement_json,
                           recheck=request.args.get("recheck") == "1",
                           bet_labels=BET_LABELS)


def _reason() -> str:
    reason = (request.form.get("reason") or "").strip()
    if not reason:
        raise BackendError("give the reason (it is logged with your name)", "reason")
    return reason[:2000]


@bp.route("/rounds/<int:round_id>/void", methods=["GET", "POST"])
@requires("amend")
def void_page(round_id: int) -> Any:
    kind = request.values.get("kind", "void")
    if kind not in ("void", "misdeal"):
        raise BackendError("kind is void or misdeal", "kind")
    with store() as s:
        rv = review_service.round_review(s, round_id)
    error = None
    if request.method == "POST":
        try:
            reason = _reason()
            with store(write=True) as s:
                services.void_round(s, round_id, user=signed_in_user().name, reason=reason,
                                    kind=kind)
            flash(f"Round {rv.detail.round.serial} at {rv.detail.table} "
                  f"{'voided' if kind == 'void' else 'declared a misdeal'}: {reason}")
            return redirect(url_for("review.round_page", round_id=round_id))
        except BackendError as exc:
            if exc.status != 400:
                raise
            error = exc.message
    return render_template("review/void.html", rv=rv, d=rv.detail, kind=kind, error=error), \
        400 if error else 200


def _round_from_form(form: Any, seats: int) -> dict[str, Any]:
    """The corrected round as the form gives it (blank seats left out)."""
    round_json: dict[str, Any] = {"dealer": (form.get("dealer") or "").strip(), "seats": []}
    for n in range(1, seats + 1):
        cards = (form.get(f"cards-{n}") or "").strip()
        stakes = {k: _cents(form.get(f"{k}-{n}"), f"seat {n} {BET_LABELS[k]}") or 0
                  for k in STAKE_KEYS}
        if not cards and not any(stakes.values()):
            continue
        round_json["seats"].append({"seat": n, "cards": cards,
                                    "play": form.get(f"play-{n}") == "play", **stakes})
    return round_json


@bp.route("/rounds/<int:round_id>/correct", methods=["GET", "POST"])
@requires("amend")
def correct_page(round_id: int) -> Any:
    with store() as s:
        rv = review_service.round_review(s, round_id)
        seats = services.get_table(s, rv.detail.table).seats
    values: dict[str, Any] = {"dealer": " ".join(rv.detail.round.dealer_cards.split())}
    for seat in rv.detail.seats:
        n = seat.seat
        values[f"cards-{n}"] = seat.cards
        values[f"play-{n}"] = "play" if seat.play else "fold"
        for k in STAKE_KEYS:
            amount = getattr(seat, k)
            values[f"{k}-{n}"] = "" if not amount else (
                f"{amount // 100}" if amount % 100 == 0 else f"{amount / 100:.2f}")
    error = None
    field = None
    preview = None
    if request.method == "POST":
        values = dict(request.form)
        try:
            reason = _reason()
            round_json = _round_from_form(request.form, seats)
            if request.form.get("action") == "preview":
                with store() as s:
                    preview = review_service.preview_settlement(s, round_id, round_json)
            else:
                with store(write=True) as s:
                    logged = services.correct_round(s, round_id, round_json=round_json,
                                                    user=signed_in_user().name, reason=reason)
                flash(f"Round {rv.detail.round.serial} corrected: the right round is logged "
                      f"as round {logged.serial}. Settle the differences below.")
                return redirect(url_for("review.round_page", round_id=logged.round_id))
        except DomainError as exc:
            error, field = exc.message, exc.field
        except BackendError as exc:
            if exc.status not in (400, 409):
                raise
            error, field = exc.message, exc.field
    return render_template("review/correct.html", rv=rv, d=rv.detail, seats=seats,
                           values=values, error=error, field=field, preview=preview,
                           stake_keys=STAKE_KEYS, bet_labels=BET_LABELS), 422 if error else 200


# ---------------------------------------------------------------- the floor

@bp.get("/floor")
@requires("review")
def floor_page() -> str:
    with store() as s:
        tables = review_service.floor_view(s)
    return render_template("review/floor.html", tables=tables,
                           refresh=int(current_app.config.get("FLOOR_REFRESH_SECONDS", 30)))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.add_template_filter(local_time, "local")
    app.add_template_filter(lambda v: "—" if v is None else f"{float(v):+.2f}", "sd")
    app.add_template_filter(lambda v: "—" if v is None else f"{float(v):.2f}%", "pct")
    app.add_template_filter(dollars, "dollars")


def dollars(cents: int | None) -> str:
    """Cents as a plain dollar figure for a form field: ``500000`` -> ``5000``."""
    if cents is None:
        return ""
    return f"{cents // 100}" if cents % 100 == 0 else f"{cents / 100:.2f}"
