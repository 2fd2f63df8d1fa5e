"""Shared by the dealer screen and the API: checking a round body, previewing, logging."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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


def _payout_check(table: TableInfo, body: Mapping[str, Any], user: UserInfo,
                  approval: Mapping[str, Any] | None, *, via: str,
                  key: str | None) -> Callable[[Mapping[str, Any]], None] | None:
    """What the log calls with its settlement before writing: a seat paid over the
    table's threshold needs a supervisor's approval (403 ``approval_required`` without
    one). Needs the hand log; other backends skip it."""
    if table.large_payout_threshold is None:
        return None
    from .approvals import require_approval
    from .services_backend import ServicesBackend

    if not isinstance(get_backend(), ServicesBackend):
        return None

    def check(settlement: Mapping[str, Any]) -> None:
        require_approval(table, body, settlement, user, approval, via=via, idempotency_key=key)

    return check


def log(table: TableInfo, data: object, user: UserInfo, key: str | None,
        photo_sha256: str | None = None, *, approval: Mapping[str, Any] | None = None,
        via: str = "token") -> LoggedRoundInfo:
    """Log the round; with ``photo_sha256`` (a kept photo) its source is "scan".

    The log validates and settles through the domain itself (DomainError names the field)
    and writes nothing for a bad round. A large payout is checked on that settlement,
    before anything is written (``approval``: the supervisor's, typed at the screen;
    ``via``: how the user signed in, ``session`` or ``token``)."""
    body = round_body(data)
    check = _payout_check(table, body, user, approval, via=via, key=key)
    if photo_sha256 is not None:
        return get_backend().log_round(table.name, body, user, key, source="scan",
                                       photo_sha256=photo_sha256, check=check)
    return get_backend().log_round(table.name, body, user, key, check=check)


def logged_json(table: TableInfo, logged: LoggedRoundInfo) -> dict[str, Any]:
    return {"round_id": logged.round_id, "serial": logged.serial, "table": table.name,
            "settlement": dict(logged.settlement), "replayed": logged.replayed,
            "pay_plan": pay_plan(table, logged.settlement)}
