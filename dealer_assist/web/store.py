"""The hand log for the supervisor, auditor and admin screens.

Those screens need more of the log than the dealer's :class:`~.backend.Backend` offers
(search, audit trails, approvals, administration), so they call ``dealer_assist.services``
in a session of the app's :class:`~.services_backend.ServicesBackend`: service errors
become the web's 4xx/5xx (:meth:`ServicesBackend.session`). On any other backend (the
tests' in-memory one) they answer 503.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import g
from sqlalchemy import orm

from .backend import UnavailableError, get_backend


def _services_backend() -> Any:
    from .services_backend import ServicesBackend

    backend = get_backend()
    if not isinstance(backend, ServicesBackend):
        raise UnavailableError("this screen needs the hand log (the services backend)")
    return backend


@contextmanager
def store(*, write: bool = False) -> Iterator[orm.Session]:
    """A session on the hand log; ``write``: queued behind this process's other writers."""
    backend = _services_backend()
    with backend._write_lock if write else nullcontext(), backend.session() as session:
        yield session


def forget_table(name: str) -> None:
    """Drop a table's cached settings after an admin change (the dealer screen re-reads)."""
    backend = get_backend()
    cache = getattr(backend, "_table_cache", None)
    if isinstance(cache, dict):
        cache.pop(name, None)


def forget_tokens() -> None:
    """Drop this process's remembered API tokens after a token or user change (other
    worker processes drop theirs within :data:`~.token_cache.TOKEN_SECONDS`)."""
    tokens = getattr(get_backend(), "tokens", None)
    if tokens is not None:
        tokens.clear()


def casino_zone() -> ZoneInfo:
    """The casino's time zone (read once per request)."""
    zone: ZoneInfo | None = g.get("casino_zone")
    if zone is None:
        from dealer_assist import services

        with store() as s:
            zone = ZoneInfo(services.get_settings(s).time_zone)
        g.casino_zone = zone
    return zone


def local_time(value: datetime | None, seconds: bool = True) -> str:
    """A UTC time as the casino's clock shows it: ``2025-03-01 14:05:09 EST``."""
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    fmt = "%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z"
    return value.astimezone(casino_zone()).strftime(fmt)


def parse_local(text: str | None) -> datetime | None:
    """A time typed at the screen (``2025-03-01T14:05``, the casino's clock) as UTC."""
    if not text:
        return None
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=casino_zone())
    return when.astimezone(UTC)


__all__ = ["casino_zone", "forget_table", "forget_tokens", "local_time", "parse_local", "store"]
