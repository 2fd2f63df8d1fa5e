"""Report downloads: the PDFs of :mod:`dealer_assist.reports` over HTTP.

Browser (signed in, the shift pages' download buttons point here):
``GET /shifts/<id>/report.pdf``, ``GET /rounds/<id>/dispute.pdf``,
``GET /reports/day.pdf?date=YYYY-MM-DD``.
API (``Authorization: Bearer <token>``, as the API blueprint): the same under ``/api/v1``.
Both need the role supervisor, auditor or admin. Optional query arguments: ``auditor``
(the name printed under the auditor's line; an auditor downloading gets their own), and
for the daily report ``day_start`` (``06:00``) and ``shift_hours`` (8, 12, 24), which
override the casino's settings (gaming-day start, shift windows) for that printing.

The reports read the hand log directly (streamed), so they need the services backend: on
any other backend they answer 503.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import date, time
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from flask import Blueprint, Flask, current_app, g, request, send_file
from flask_login import current_user
from werkzeug.wrappers import Response

from dealer_assist.services.errors import NotFound, ServiceError, StoreUnavailable

from .backend import BackendError, ForbiddenError, NotFoundError, UnavailableError, UserInfo
from .backend import get_backend as _backend
from .security import csrf

#: Who may download reports.
REPORT_ROLES = frozenset({"supervisor", "auditor", "admin"})

pages = Blueprint("reports", __name__)
api = Blueprint("reports_api", __name__, url_prefix="/api/v1")
csrf.exempt(api)

P = ParamSpec("P")
R = TypeVar("R")


class Unauthorized(BackendError):
    status = 401
    code = "unauthorized"


def _check(user: UserInfo) -> None:
    if not (set(user.roles) & REPORT_ROLES):
        raise ForbiddenError("reports need the role supervisor, auditor or admin")
    g.report_user = user


def signed_in(view: Callable[P, R]) -> Callable[P, R]:
    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        if not current_user.is_authenticated:
            result: R = current_app.login_manager.unauthorized()  # type: ignore[attr-defined]
            return result
        _check(current_user.info)
        return view(*args, **kwargs)

    return wrapped


def token(view: Callable[P, R]) -> Callable[P, R]:
    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise Unauthorized("send an API token: Authorization: Bearer <token>")
        user = _backend().user_for_token(secret.strip())
        if user is None or not user.active:
            raise Unauthorized("the API token is not valid (unknown, revoked or expired)")
        _check(user)
        return view(*args, **kwargs)

    return wrapped


def _pdf(kind: str, args: dict[str, Any], name: str) -> Response:
    """Report ``kind`` drawn in this worker's report process (see :mod:`.report_worker`)."""
    engine = getattr(_backend(), "engine", None)
    if engine is None:
        raise UnavailableError("reports need the hand log (the services backend)")
    from dealer_assist.store import db

    from . import report_worker

    timeout = current_app.config.get("DATABASE_STATEMENT_TIMEOUT", db.SERVED_STATEMENT_TIMEOUT)
    session = db.session_factory(engine)()
    try:
        data = report_worker.draw(kind, engine, timeout, session, args)
    except NotFound as exc:
        raise NotFoundError(exc.message) from exc
    except StoreUnavailable as exc:
        raise UnavailableError(exc.message) from exc
    except ServiceError as exc:
        raise BackendError(exc.message) from exc
    finally:
        session.close()
    response = send_file(io.BytesIO(data), mimetype="application/pdf", as_attachment=True,
                         download_name=name)
    response.headers["Cache-Control"] = "no-store"
    return response


def _auditor() -> str | None:
    user: UserInfo = g.report_user
    given = (request.args.get("auditor") or "").strip()[:100]
    if given:
        return given
    return user.name if "auditor" in user.roles else None


def _shift(shift_id: int) -> Response:
    return _pdf("shift", {"shift_id": shift_id, "auditor": _auditor()},
                f"shift-{shift_id}-report.pdf")


def _dispute(round_id: int) -> Response:
    return _pdf("dispute", {"round_id": round_id}, f"round-{round_id}-dispute.pdf")


def _day() -> Response:
    raw = request.args.get("date", "")
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise BackendError(f"date must be YYYY-MM-DD, not {raw!r}", "date") from None
    raw_start = request.args.get("day_start")
    try:
        start = time.fromisoformat(raw_start) if raw_start else None
    except ValueError:
        raise BackendError("day_start must be a time like 06:00", "day_start") from None
    hours_raw = request.args.get("shift_hours")
    if hours_raw not in (None, "", "8", "12", "24"):
        raise BackendError("shift_hours is 8, 12 or 24", "shift_hours")
    hours = int(hours_raw) if hours_raw else None
    return _pdf("day", {"day": day.isoformat(),
                        "day_start": None if start is None else start.isoformat(),
                        "shift_hours": hours, "auditor": _auditor()},
                f"floor-{day.isoformat()}.pdf")


@pages.get("/shifts/<int:shift_id>/report.pdf")
@signed_in
def shift_pdf(shift_id: int) -> Response:
    return _shift(shift_id)


@pages.get("/rounds/<int:round_id>/dispute.pdf")
@signed_in
def dispute_pdf(round_id: int) -> Response:
    return _dispute(round_id)


@pages.get("/reports/day.pdf")
@signed_in
def day_pdf() -> Response:
    return _day()


@api.get("/shifts/<int:shift_id>/report.pdf")
@token
def api_shift_pdf(shift_id: int) -> Response:
    return _shift(shift_id)


@api.get("/rounds/<int:round_id>/dispute.pdf")
@token
def api_dispute_pdf(round_id: int) -> Response:
    return _dispute(round_id)


@api.get("/reports/day.pdf")
@token
def api_day_pdf() -> Response:
    return _day()


def init_app(app: Flask) -> None:
    app.register_blueprint(pages)
    app.register_blueprint(api)


__all__ = ["REPORT_ROLES", "init_app"]
