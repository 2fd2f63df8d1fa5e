"""JSON API under ``/api/v1``: Bearer-token auth, errors as ``{"error": {...}}`` with a 4xx.

Only the ``Authorization: Bearer`` header authenticates here, never the browser's session
cookie, so the API is exempt from CSRF without opening a hole.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from flask import Blueprint, Flask, g, jsonify, request
from werkzeug.wrappers import Response

from dealer_assist import services
from dealer_assist.domain.analysis import analyze
from dealer_assist.domain.rulesets import ruleset_from_json

from . import approvals, rounds, scan
from .backend import (
    BackendError,
    ForbiddenError,
    RoundFilters,
    UserInfo,
    allowed,
    get_backend,
    refusal,
)
from .errors import error_response
from .openapi import spec
from .security import csrf
from .store import store

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)

P = ParamSpec("P")
R = TypeVar("R")


class Unauthorized(BackendError):
    status = 401
    code = "unauthorized"


def token_required(action: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            header = request.headers.get("Authorization", "")
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthorized("send an API token: Authorization: Bearer <token>")
            user = get_backend().user_for_token(token.strip())
            if user is None or not user.active:
                raise Unauthorized("the API token is not valid (unknown, revoked or expired)")
            if not allowed(user.roles, action):
                raise ForbiddenError(refusal(user.roles, action))
            g.api_user = user
            return view(*args, **kwargs)

        wrapped.required_action = action  # type: ignore[attr-defined]
        return wrapped

    return decorate


def _user() -> UserInfo:
    user: UserInfo = g.api_user
    return user


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(spec())


@bp.get("/tables")
@token_required("read")
def tables() -> Response:
    backend = get_backend()
    out = []
    for t in backend.tables():
        shift = backend.current_shift(t.name)
        out.append({"name": t.name, "seats": t.seats, "rules": t.rules.to_json(),
                    "rules_hash": t.rules.content_hash,
                    "large_payout_threshold": t.large_payout_threshold,
                    "denominations": list(t.denominations),
                    "shift": None if shift is None else shift.to_json()})
    return jsonify({"tables": out})


@bp.post("/tables/<table>/rounds")
@token_required("deal")
def log_round(table: str) -> tuple[Response, int]:
    backend = get_backend()
    info = backend.table(table)
    if not request.is_json:
        return error_response(415, "unsupported_media", "send the round as application/json")
    data = request.get_json(silent=True)
    if data is None:
        return error_response(400, "invalid_json", "the body is not valid JSON")
    key = rounds.idempotency_key(request.headers.get("Idempotency-Key"))
    data, approval = approvals.split_body(data)
    data, photo = scan.split_photo(data)
    logged = rounds.log(info, data, _user(), key, photo, approval=approval, via="token")
    return jsonify(rounds.logged_json(info, logged)), 200 if logged.replayed else 201


@bp.post("/tables/<table>/scan")
@token_required("deal")
def scan_photo(table: str) -> Response:
    """Read every card of a table photo (the body, or multipart field ``photo``)."""
    return scan.scan_response(get_backend().table(table))


@bp.get("/photos/<sha256>")
@token_required("review")
def photo(sha256: str) -> Response:
    """A scanned round's photo, by its SHA-256."""
    return scan.photo_response(sha256)


@bp.get("/rounds/<int:round_id>")
@token_required("read")
def get_round(round_id: int) -> Response:
    return jsonify(get_backend().get_round(round_id).to_json())


def _int_arg(name: str, default: int | None, low: int, high: int) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BackendError(f"{name} must be a whole number, not {raw!r}", name) from None
    if not low <= value <= high:
        raise BackendError(f"{name} must be between {low} and {high}", name)
    return value


def _time_arg(name: str) -> str | None:
    raw = request.args.get(name)
    if not raw:
        return None
    try:
        datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise BackendError(f"{name} must be an ISO 8601 time like 2026-01-31T18:00:00Z",
                           name) from None
    return raw


@bp.get("/rounds")
@token_required("read")
def list_rounds() -> Response:
    from .services_backend import ServicesBackend

    if not isinstance(get_backend(), ServicesBackend) or _int_arg("offset", 0, 0, 2**62):
        return _list_rounds_by_offset()
    from dealer_assist.services import history

    from .review import cursor_text, query_from_args
    from .store import store

    query = query_from_args(request.args, local=False)
    with store() as s:
        page = history.search(s, query)
    return jsonify({"rounds": [_summary(r) for r in page.rows], "count": len(page.rows),
                    "limit": query.limit, "offset": 0,
                    "next_before": cursor_text(page.next_before),
                    "searched_to": None if page.scanned_to is None
                    else page.scanned_to.isoformat()})


def _summary(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = row.to_json()
    out["entered_at"] = out.pop("at")
    return out


def _list_rounds_by_offset() -> Response:
    filters = RoundFilters(
        table=request.args.get("table") or None,
        shift_id=_int_arg("shift_id", None, 1, 2**62),
        seat=_int_arg("seat", None, 1, 7),
        since=_time_arg("since"),
        until=_time_arg("until"),
        limit=_int_arg("limit", 50, 1, 500) or 50,
        offset=_int_arg("offset", 0, 0, 2**62) or 0,
    )
    found = get_backend().list_rounds(filters)
    return jsonify({"rounds": [r.to_json() for r in found], "count": len(found),
                    "limit": filters.limit, "offset": filters.offset})


def _json_body() -> dict[str, Any]:
    if not request.is_json:
        raise BackendError("send application/json")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BackendError("the body must be a JSON object")
    return data


def _reason(data: dict[str, Any]) -> str:
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise BackendError("give the reason as a non-empty string", "reason")
    return reason.strip()[:2000]


@bp.post("/rounds/<int:round_id>/void")
@token_required("amend")
def void_round(round_id: int) -> tuple[Response, int]:
    """Void a round, or declare it a misdeal (``"kind": "misdeal"``), with a reason."""
    from dealer_assist import services

    from .store import store

    data = _json_body()
    kind = data.get("kind", "void")
    if kind not in ("void", "misdeal"):
        raise BackendError("kind is void or misdeal", "kind")
    reason = _reason(data)
    with store(write=True) as s:
        event = services.void_round(s, round_id, user=_user().name, reason=reason, kind=kind)
        body = {"round_id": round_id, "status": "voided" if kind == "void" else "misdeal",
                "event": {"id": event.id, "kind": event.kind, "reason": event.reason,
                          "actor": _user().name, "at": event.at.isoformat()}}
    return jsonify(body), 201


@bp.post("/rounds/<int:round_id>/corrections")
@token_required("amend")
def correct_round(round_id: int) -> tuple[Response, int]:
    """Log the right round in place of round_id; returns the new round and what each seat
    is still owed (pay) or owes (collect)."""
    from dealer_assist import services
    from dealer_assist.services import review as review_service

    from .store import store

    data = _json_body()
    reason = _reason(data)
    round_json = rounds.round_body(data.get("round"))
    with store(write=True) as s:
        logged = services.correct_round(s, round_id, round_json=round_json,
                                        user=_user().name, reason=reason)
    with store() as s:
        rv = review_service.round_review(s, logged.round_id)
    body = {**logged.to_json(), "corrects_round_id": round_id,
            "deltas": [d.to_json() for d in rv.deltas]}
    return jsonify(body), 201


@bp.get("/rounds/<int:round_id>/audit")
@token_required("read")
def round_audit(round_id: int) -> Response:
    """The round's audit trail: its chain events, and its voids/corrections."""
    record = get_backend().get_round(round_id).to_json()
    return jsonify({"round_id": round_id, "status": record.get("status", "settled"),
                    "audit": record.get("audit", []), "events": record.get("events", []),
                    "replaces_round_id": record.get("replaces_round_id"),
                    "replaced_by_round_id": record.get("replaced_by_round_id"),
                    "stored_matches": record.get("stored_matches")})


@bp.get("/rulesets/<int:version_id>/analysis")
@token_required("read")
def ruleset_analysis(version_id: int) -> Response:
    """A rule-set version's exact game math (house edges, strategy, odds): the same JSON
    as ``dealer-assist analyze --json``, computed by the domain and cached per rule set."""
    with store() as session:
        version = services.get_ruleset_version(session, version_id)
        rules_json, label = version.rules_json, version.label
    rules = ruleset_from_json(json.loads(rules_json))
    return jsonify({"ruleset_version": version_id, "label": label, "rules": rules.to_json(),
                    "analysis": analyze(rules).to_json()})


@bp.post("/tables/<table>/shifts")
@token_required("open_shift")
def open_shift(table: str) -> tuple[Response, int]:
    backend = get_backend()
    backend.table(table)
    if backend.current_shift(table) is not None:
        return error_response(409, "conflict", f"a shift is already open at {table}")
    return jsonify(backend.open_shift(table, _user()).to_json()), 201


@bp.post("/shifts/<int:shift_id>/close")
@token_required("close_shift")
def close_shift(shift_id: int) -> Response | tuple[Response, int]:
    backend = get_backend()
    shift = backend.get_shift(shift_id)
    if shift.closed_at is not None:
        return error_response(409, "conflict", f"shift {shift_id} is already closed")
    return jsonify(backend.close_shift(shift.table, _user()).to_json())


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)

