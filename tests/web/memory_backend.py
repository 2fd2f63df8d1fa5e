"""An in-memory Backend: for screen work before the hand log lands, and for fault injection.

It logs through the same domain call the services use (settle_json) and keeps the same
idempotency contract: a key seen before returns the first result and logs nothing.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from dealer_assist.domain.rulesets import DEFAULT_RULES, RuleSet, ruleset_from_json
from dealer_assist.domain.settle_json import settle_json
from dealer_assist.web.backend import (
    ConflictError,
    LoggedRoundInfo,
    NotFoundError,
    RoundFilters,
    RoundInfo,
    RoundSummaryInfo,
    ShiftInfo,
    TableInfo,
    UserInfo,
)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass
class MemoryBackend:
    users: dict[str, tuple[UserInfo, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    table_infos: dict[str, TableInfo] = field(default_factory=dict)
    shifts: list[ShiftInfo] = field(default_factory=list)
    rounds: list[RoundInfo] = field(default_factory=list)
    keys: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Set to an exception to make the next log_round raise it (fault injection).
    fail_next_log: Exception | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_user(self, name: str, roles: str, password: str) -> UserInfo:
        info = UserInfo(len(self.users) + 1, name, frozenset(roles.split(",")))
        self.users[name] = (info, password)
        return info

    def add_token(self, name: str) -> str:
        token = f"da_test_{name}_{len(self.tokens)}"
        self.tokens[token] = name
        return token

    def add_table(self, name: str, seats: int = 7, rules: RuleSet = DEFAULT_RULES,
                  threshold: int | None = 500_000) -> TableInfo:
        info = TableInfo(name=name, seats=seats, rules=rules,
                         rules_label=f"pair plus {rules.pays_label('pair_plus')}",
                         large_payout_threshold=threshold)
        self.table_infos[name] = info
        return info

    # ---- Backend ---------------------------------------------------------------------

    def authenticate(self, name: str, password: str, *,
                     address: str | None = None) -> UserInfo | None:
        found = self.users.get(name)
        return found[0] if found and found[1] == password else None

    def load_user(self, user_id: int) -> UserInfo | None:
        return next((u for u, _ in self.users.values() if u.id == user_id), None)

    def user_for_token(self, token: str) -> UserInfo | None:
        name = self.tokens.get(token)
        return None if name is None else self.users[name][0]

    def tables(self) -> list[TableInfo]:
        return sorted(self.table_infos.values(), key=lambda t: t.name)

    def table(self, name: str) -> TableInfo:
        if name not in self.table_infos:
            raise NotFoundError(f"no table named {name!r}")
        return self.table_infos[name]

    def current_shift(self, table: str) -> ShiftInfo | None:
        return next((s for s in self.shifts if s.table == table and s.closed_at is None), None)

    def get_shift(self, shift_id: int) -> ShiftInfo:
        for s in self.shifts:
            if s.id == shift_id:
                return s
        raise NotFoundError(f"no shift {shift_id}")

    def open_shift(self, table: str, user: UserInfo) -> ShiftInfo:
        self.table(table)
        if self.current_shift(table):
            raise ConflictError(f"table {table!r} already has a shift open")
        shift = ShiftInfo(len(self.shifts) + 1, table, _now(), user.name)
        self.shifts.append(shift)
        return shift

    def close_shift(self, table: str, user: UserInfo) -> ShiftInfo:
        shift = self.current_shift(table)
        if shift is None:
            raise ConflictError(f"table {table!r} has no open shift to close")
        closed = ShiftInfo(shift.id, table, shift.opened_at, shift.opened_by, _now())
        self.shifts[self.shifts.index(shift)] = closed
        return closed

    def log_round(self, table: str, round_json: Mapping[str, Any], user: UserInfo,
                  idempotency_key: str | None, *, source: str = "manual",
                  photo_sha256: str | None = None,
                  check: Callable[[Mapping[str, Any]], None] | None = None,
                  ) -> LoggedRoundInfo:
        with self.lock:
            if self.fail_next_log is not None:
                exc, self.fail_next_log = self.fail_next_log, None
                raise exc
            digest = hashlib.sha256(json.dumps(round_json, sort_keys=True).encode()).hexdigest()
            if idempotency_key and idempotency_key in self.keys:
                seen_digest, index = self.keys[idempotency_key]
                if seen_digest != digest:
                    raise ConflictError("this Idempotency-Key was used for a different round")
                r = self.rounds[index]
                return LoggedRoundInfo(r.id, r.serial, r.settlement, True)
            info = self.table(table)
            shift = self.current_shift(table)
            if shift is None:
                raise ConflictError(f"table {table!r} has no open shift")
            settlement = settle_json(dict(round_json), info.rules, info.seats)
            if check is not None:
                check(settlement)
            serial = 1 + sum(1 for r in self.rounds if r.table == table)
            r = RoundInfo(id=len(self.rounds) + 1, table=table, serial=serial,
                          shift_id=shift.id, entered_by=user.name, entered_at=_now(),
                          round=dict(round_json), settlement=settlement,
                          record={"source": source, "photo_sha256": photo_sha256})
            self.rounds.append(r)
            if idempotency_key:
                self.keys[idempotency_key] = (digest, len(self.rounds) - 1)
            return LoggedRoundInfo(r.id, r.serial, settlement, False)

    def get_round(self, round_id: int) -> RoundInfo:
        for r in self.rounds:
            if r.id == round_id:
                return r
        raise NotFoundError(f"no round {round_id}")

    def list_rounds(self, filters: RoundFilters) -> list[RoundSummaryInfo]:
        found = [RoundSummaryInfo(r.id, r.table, r.serial, r.shift_id, r.entered_by,
                                  r.entered_at, tuple(r.settlement["dealer"]["cards"]),
                                  len(r.round["seats"]), r.settlement["total"], r.status)
                 for r in reversed(self.rounds)
                 if (filters.table is None or r.table == filters.table)
                 and (filters.shift_id is None or r.shift_id == filters.shift_id)
                 and (filters.seat is None
                      or any(s["seat"] == filters.seat for s in r.round["seats"]))]
        return found[filters.offset:filters.offset + filters.limit]

    def close(self) -> None:
        pass


def demo_memory_backend() -> MemoryBackend:
    backend = MemoryBackend()
    backend.add_user("dana", "dealer", "dealer-pass-1")
    backend.add_user("sam", "supervisor", "super-pass-1")
    backend.add_user("alex", "auditor", "audit-pass-1")
    backend.add_user("ada", "admin", "admin-pass-1")
    backend.add_table("TCP-1")
    backend.add_table("TCP-2", rules=ruleset_from_json({"pair_plus": "35-25-6-4-1"}),
                      threshold=100_000)
    return backend
