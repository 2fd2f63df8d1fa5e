"""The :class:`~dealer_assist.web.backend.Backend` on the hand log (``dealer_assist.services``).

Each call uses its own short-lived SQLAlchemy session; the services run their own
transactions. Service errors become the web's :class:`BackendError` subclasses; domain
errors pass through (the web shows their message next to the field).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, orm

from dealer_assist import services
from dealer_assist.domain.chips import DEFAULT_DENOMINATIONS
from dealer_assist.services import errors as service_errors
from dealer_assist.store import db
from dealer_assist.store.models import GamingTable, Shift, User

from .backend import (
    BackendError,
    ConflictError,
    ForbiddenError,
    LoggedRoundInfo,
    NotFoundError,
    RoundFilters,
    RoundInfo,
    RoundSummaryInfo,
    ShiftInfo,
    TableInfo,
    UnavailableError,
    UserInfo,
)
from .token_cache import TokenCache

T = TypeVar("T")

_ERRORS: dict[type[Exception], type[BackendError]] = {
    service_errors.NotFound: NotFoundError,
    service_errors.Conflict: ConflictError,
    service_errors.Forbidden: ForbiddenError,
    service_errors.StoreUnavailable: UnavailableError,
    service_errors.InvalidInput: BackendError,
}


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")


def user_info(user: User) -> UserInfo:
    return UserInfo(id=user.id, name=user.name, roles=frozenset(user.roles), active=user.active)


def shift_info(shift: Shift) -> ShiftInfo:
    return ShiftInfo(id=shift.id, table=shift.table.name, opened_at=_time(shift.opened_at) or "",
                     opened_by=shift.opened_by.name, closed_at=_time(shift.closed_at))


class ServicesBackend:
    """The web's backend on the real hand log."""

    def __init__(self, engine: Engine, *, denominations: tuple[int, ...] = DEFAULT_DENOMINATIONS,
                 default_threshold: int | None = None, owns_engine: bool = True) -> None:
        self.engine = engine
        self.sessions = db.session_factory(engine)
        self.denominations = denominations
        self.default_threshold = default_threshold
        self.owns_engine = owns_engine
        # SQLite has one writer. Threads of this process queue for it on a lock, in order,
        # instead of in SQLite's busy handler, which sleeps in growing steps (long tails);
        # a place in line counts against the busy timeout (a locked database: 503 in time).
        self._write_lock: AbstractContextManager[Any] = db.write_queue(engine)
        # Table settings change seldom; the hot path (log a round) reads them for the pay
        # plan only (log_round reads the table itself), so they are kept a moment.
        self._table_cache: dict[str, tuple[float, TableInfo]] = {}
        self.table_cache_seconds = 2.0
        #: API tokens checked in the last few seconds (no database read per request).
        self.tokens: TokenCache[UserInfo] = TokenCache()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ServicesBackend:
        timeout = config.get("DATABASE_STATEMENT_TIMEOUT", db.SERVED_STATEMENT_TIMEOUT)
        return cls(db.make_engine(config["DATABASE_URL"], statement_timeout=timeout),
                   denominations=tuple(config["CHIP_DENOMINATIONS"]),
                   default_threshold=config.get("LARGE_PAYOUT_THRESHOLD"))

    def close(self) -> None:
        if self.owns_engine:
            self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[orm.Session]:
        session = self.sessions()
        try:
            yield session
        except service_errors.ServiceError as exc:
            raise _ERRORS.get(type(exc), BackendError)(exc.message) from exc
        finally:
            session.close()

    def _run(self, fn: Callable[[orm.Session], T]) -> T:
        with self.session() as session:
            return fn(session)

    # ---- users -----------------------------------------------------------------------

    def authenticate(self, name: str, password: str, *,
                     address: str | None = None) -> UserInfo | None:
        def run(s: orm.Session) -> UserInfo | None:
            user = services.authenticate(s, name, password, address=address)
            return None if user is None else user_info(user)
        with self._write_lock:
            return self._run(run)

    def load_user(self, user_id: int) -> UserInfo | None:
        def run(s: orm.Session) -> UserInfo | None:
            user = s.get(User, user_id)
            s.rollback()
            return None if user is None else user_info(user)
        return self._run(run)

    def user_for_token(self, token: str) -> UserInfo | None:
        """The token's user, remembered a few seconds (see :mod:`.token_cache`)."""
        known = self.tokens.get(token)
        if known is not None:
            return known

        def run(s: orm.Session) -> UserInfo | None:
            user = services.user_for_token(s, token)
            return None if user is None else user_info(user)
        found = self._run(run)
        if found is not None:
            self.tokens.put(token, found)
        return found

    # ---- tables and shifts -----------------------------------------------------------

    def _threshold(self, s: orm.Session) -> int | None:
        settings = services.get_settings(s)
        if settings.large_win_threshold is not None:
            return settings.large_win_threshold
        return self.default_threshold

    def _table_info(self, table: GamingTable, threshold: int | None) -> TableInfo:
        from dealer_assist.services._base import version_rules

        version = table.ruleset_version
        rules = version_rules(version)
        label = version.label or (
            f"pair plus {rules.pays_label('pair_plus')}, "
            f"ante bonus {rules.pays_label('ante_bonus')}")
        own = table.large_payout_threshold
        chips = tuple(table.chip_denominations or ()) or self.denominations
        return TableInfo(name=table.name, seats=table.seats, rules=rules, rules_label=label,
                         denominations=chips,
                         large_payout_threshold=threshold if own is None else own,
                         seat_zones=table.seat_zones, deck_sha256=table.deck_sha256)

    def tables(self) -> list[TableInfo]:
        def run(s: orm.Session) -> list[TableInfo]:
            threshold = self._threshold(s)
            return [self._table_info(t, threshold) for t in services.list_tables(s)]
        return self._run(run)

    def table(self, name: str) -> TableInfo:
        cached = self._table_cache.get(name)
        if cached is not None and time.monotonic() - cached[0] < self.table_cache_seconds:
            return cached[1]

        def run(s: orm.Session) -> TableInfo:
            return self._table_info(services.get_table(s, name), self._threshold(s))
        info = self._run(run)
        self._table_cache[name] = (time.monotonic(), info)
        return info

    def current_shift(self, table: str) -> ShiftInfo | None:
        def run(s: orm.Session) -> ShiftInfo | None:
            shift = services.current_shift(s, table)
            return None if shift is None else shift_info(shift)
        return self._run(run)

    def get_shift(self, shift_id: int) -> ShiftInfo:
        return self._run(lambda s: shift_info(services.get_shift(s, shift_id)))

    def open_shift(self, table: str, user: UserInfo) -> ShiftInfo:
        with self._write_lock:
            return self._run(lambda s: shift_info(services.open_shift(s, table=table,
                                                                      user=user.name)))

    def close_shift(self, table: str, user: UserInfo) -> ShiftInfo:
        with self._write_lock:
            return self._run(lambda s: shift_info(services.close_shift(s, table=table,
                                                                       user=user.name)))

    # ---- rounds ----------------------------------------------------------------------

    def log_round(self, table: str, round_json: Mapping[str, Any], user: UserInfo,
                  idempotency_key: str | None, *, source: str = "manual",
                  photo_sha256: str | None = None,
                  check: Callable[[Mapping[str, Any]], None] | None = None,
                  ) -> LoggedRoundInfo:
        def run(s: orm.Session) -> LoggedRoundInfo:
            # In line for the write lock only around the write transaction: the round is
            # settled (and checked) first, while other threads write.
            logged = services.log_round(s, table=table, round_json=dict(round_json),
                                        user=user.name, idempotency_key=idempotency_key,
                                        source=source, photo_sha256=photo_sha256,
                                        check=check, queue=self._write_lock)
            return LoggedRoundInfo(round_id=logged.round_id, serial=logged.serial,
                                   settlement=logged.settlement_json, replayed=logged.replayed)
        return self._run(run)

    def get_round(self, round_id: int) -> RoundInfo:
        return self._run(lambda s: round_info(services.get_round(s, round_id)))

    def list_rounds(self, filters: RoundFilters) -> list[RoundSummaryInfo]:
        def run(s: orm.Session) -> list[RoundSummaryInfo]:
            kwargs: dict[str, Any] = {"limit": filters.limit, "offset": filters.offset}
            for key in ("table", "shift_id", "seat"):
                if getattr(filters, key) is not None:
                    kwargs[key] = getattr(filters, key)
            for key in ("since", "until"):
                raw = getattr(filters, key)
                if raw is not None:
                    when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
                    kwargs[key] = when if when.tzinfo else when.replace(tzinfo=UTC)
            return [summary_info(r) for r in services.list_rounds(s, **kwargs)]
        return self._run(run)


def round_info(detail: services.RoundDetail) -> RoundInfo:
    """A round as the services return it, for the web."""
    record = detail.to_json()
    entry: dict[str, Any] = {
        "dealer": record["dealer_cards"],
        "seats": [{k: seat[k] for k in ("seat", "cards", "ante", "play", "pair_plus",
                                        "six_card", "prime")} for seat in record["seats"]]}
    if record["misdeal"]:
        entry["misdeal"] = True
    r = detail.round
    return RoundInfo(id=r.id, table=detail.table, serial=r.serial, shift_id=r.shift_id,
                     entered_by=detail.entered_by, entered_at=_time(r.at) or "", round=entry,
                     settlement=detail.settlement_json, status=detail.status,
                     events=record["events"], record=record)


def summary_info(summary: services.RoundSummary) -> RoundSummaryInfo:
    return RoundSummaryInfo(id=summary.round_id, table=summary.table, serial=summary.serial,
                            shift_id=summary.shift_id, entered_by=summary.entered_by,
                            entered_at=_time(summary.at) or "",
                            dealer_cards=tuple(summary.dealer_cards.split()),
                            seats=summary.seats, total=summary.total, status=summary.status)
