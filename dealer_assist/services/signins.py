"""Recent sign-ins, read back from the audit log for sign-in throttling.

Every sign-in (and every supervisor approval typed at a dealer's screen) is logged on the
floor chain by :func:`~dealer_assist.services.admin.authenticate`: ``user.login`` or
``user.login_failed``, with the name typed and, from the web, the client's address. Read
back, they let every worker process of a served app, and the app after a restart, count
the same failures (no table of its own: the audit log already holds them).

A name that belongs to no user is logged as :func:`unknown_name`, a digest: people type
their password into the name field, and the audit log keeps everything for ever.

The floor chain is walked newest first along its ``(chain, seq)`` index, a page at a
time, until events older than ``since``; at most ``limit`` events are read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist.store.models import FLOOR_CHAIN, AuditEvent

from ._base import read

#: The audit actions a sign-in leaves.
SIGN_IN_ACTIONS = ("user.login", "user.login_failed")
_PAGE = 200


def unknown_name(name: str) -> str:
    """How a failed sign-in under a name no user has is logged: a digest, never the text.

    >>> unknown_name("Hunter2!")
    'unknown name cb1ade2b05e7'
    """
    return "unknown name " + hashlib.sha256(name.strip().lower().encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SignIn:
    at: datetime
    name: str
    address: str | None
    ok: bool


def recent_sign_ins(session: orm.Session, since: datetime, *,
                    limit: int = 5000) -> list[SignIn]:
    """Sign-ins (both outcomes) logged at or after ``since``, oldest first."""
    out: list[SignIn] = []
    below: int | None = None
    read_count = 0
    with read(session):
        while read_count < limit:
            query = (sa.select(AuditEvent.seq, AuditEvent.at, AuditEvent.actor,
                               AuditEvent.action, AuditEvent.payload)
                     .where(AuditEvent.chain == FLOOR_CHAIN)
                     .order_by(AuditEvent.seq.desc()).limit(min(_PAGE, limit - read_count)))
            if below is not None:
                query = query.where(AuditEvent.seq < below)
            rows = session.execute(query).all()
            read_count += len(rows)
            for seq, at, actor, action, payload in rows:
                below = seq
                if at < since:
                    return out[::-1]
                if action in SIGN_IN_ACTIONS:
                    out.append(SignIn(at, actor, _address(payload), action == "user.login"))
            if len(rows) < _PAGE:
                break
    return out[::-1]


def _address(payload: str) -> str | None:
    try:
        value = json.loads(payload).get("address")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


__all__ = ["SIGN_IN_ACTIONS", "SignIn", "recent_sign_ins", "unknown_name"]
