"""Shared by the dealer screen and the API: checking a round body, previewing, logging."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dealer_assist.domain.chips import round_pay_plan
from dealer_assist.domain.errors import RoundError
from dealer_assist.domain.settle_json import settle_json

from .backend import BackendError, LoggedRoundInfo, TableInfo, UserInfo, get_backend

#: Idempotency keys: 8-100 characters of letters, digits, ``-`` and ``_`` (a UUID fits).
IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_-]{8,100}$")


def round_body(data: object) -> dict[str, Any]:
    """The round as posted, minus what a table fixes. A ``rules`` key is refused: the table's
    active rule set applies."""
    if not isinstance(data, Mapping):
        raise RoundError("send the round as a JSON object with \"dealer\" and \"seats\"")
    if "rules" in data:
        raise RoundError("rules are set by the table: remove \"rules\" from the round", "rules")
    return dict(data)


def idempotency_key(raw: str | None) -> str | None:
    if raw is None or raw == "":
        return None
    if not IDEMPOTENCY_KEY.match(raw):
        raise BackendError("Idempotency-Key must be 8-100 letters, digits, '-' or '_'",
                           "Idempotency-Key")
    return raw


def pay_plan(table: TableInfo, settlement: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [p.to_json() for p in round_pay_plan(settlement, table.denominations,
                                                table.large_payout_threshold)]


def preview(table: TableInfo, data: object) -> dict[str, Any]:
    """Settle without logging (the domain raises a DomainError naming the field)."""
    settlement = settle_json(round_body(data), table.rules, table.seats)
    return {"settlement": settlement, "pay_plan": pay_plan(table, settlement),
            "threshold": table.large_payout_threshold}


def check_large_payout(table: TableInfo, data: object, user: UserInfo,
                       approval: Mapping[str, Any] | None, *, via: str,
                       key: str | None = None) -> None:
    """Settle first: a seat paid over the threshold needs a supervisor's approval (403
    ``approval_required`` without one). Needs the hand log; other backends skip it."""
    if table.large_payout_threshold is None:
        return
    from .approvals import require_approval
    from .backend import get_backend
    from .services_backend import ServicesBackend

    if not isinstance(get_backend(), ServicesBackend):
        return
    body = round_body(data)
    settlement = settle_json(body, table.rules, table.seats)
    require_approval(table, body, settlement, user, approval, via=via, idempotency_key=key)


def log(table: TableInfo, data: object, user: UserInfo, key: str | None,
        photo_sha256: str | None = None) -> LoggedRoundInfo:
    """Log the round; with ``photo_sha256`` (a kept photo) its source is "scan"."""
    # The log validates and settles through the domain itself (DomainError names the field)
    # and writes nothing for a bad round.
    if photo_sha256 is not None:
        return get_backend().log_round(table.name, round_body(data), user, key, source="scan",
                                       photo_sha256=photo_sha256)
    return get_backend().log_round(table.name, round_body(data), user, key)


def logged_json(table: TableInfo, logged: LoggedRoundInfo) -> dict[str, Any]:
    return {"round_id": logged.round_id, "serial": logged.serial, "table": table.name,
            "settlement": dict(logged.settlement), "replayed": logged.replayed,
            "pay_plan": pay_plan(table, logged.settlement)}
