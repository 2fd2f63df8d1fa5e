"""Admin services: casino settings, rule-set versions, tables, users, logins, API tokens.

Every change appends an audit event: table changes to the table's own chain, the rest to
the floor chain. ``actor`` is the user doing it (who must be an admin) or None for an
operator with direct database access (the CLI), logged as ``system:<os user>``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping
from datetime import time
from typing import Any

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import exc as sa_exc
from sqlalchemy import orm

from dealer_assist.domain.errors import RuleSetError
from dealer_assist.domain.round_entry import MAX_SEATS
from dealer_assist.domain.rulesets import ruleset_from_json
from dealer_assist.domain.shift_math import ShiftSchedule, clock_text, parse_clock
from dealer_assist.store.audit import append_event, lock_head, record_digest
from dealer_assist.store.models import (
    FLOOR_CHAIN,
    GENESIS_HASH,
    ROLES,
    ApiToken,
    AuditEvent,
    CasinoSettings,
    ChainHead,
    GamingTable,
    RuleSetVersion,
    User,
    table_chain,
    utcnow,
)

from ._base import (
    UserRef,
    actor_name,
    find_table,
    find_user,
    guard,
    integrity_conflict,
    read,
    write,
)
from .errors import Conflict, InvalidInput, NotFound

_hasher = PasswordHasher()
#: Verified against when the user does not exist, so a wrong name costs as long as a wrong
#: password (made on first use: hashing takes a noticeable moment).
_DUMMY_HASH: str | None = None


def _dummy_hash() -> str:
    global _DUMMY_HASH
    if _DUMMY_HASH is None:
        _DUMMY_HASH = _hasher.hash("not a password")
    return _DUMMY_HASH
TOKEN_PREFIX = "da_"
SETTINGS_FIELDS = ("name", "time_zone", "shift_hours", "currency", "large_win_threshold",
                   "gaming_day_start", "shift_starts")


# ---------------------------------------------------------------- casino settings

def get_settings(session: orm.Session) -> CasinoSettings:
    """The casino's settings (name, time zone, shift length, currency, large-win threshold)."""
    with read(session):
        settings = session.get(CasinoSettings, 1)
        if settings is None:  # pragma: no cover - the first migration inserts it
            raise NotFound("casino settings are missing: run `dealer-assist init-db`")
        return settings


def _clock(value: Any, field: str) -> time:
    if isinstance(value, time):
        return value
    try:
        return parse_clock(str(value))
    except ValueError as exc:
        raise InvalidInput(f"{field}: {exc}") from exc


def _settings_values(settings: CasinoSettings, fields: dict[str, Any]) -> dict[str, Any]:
    """The changed fields as stored, checked together with the unchanged ones (a schedule
    must hold as a whole: see :class:`~dealer_assist.domain.shift_math.ShiftSchedule`)."""
    values = dict(fields)
    if "gaming_day_start" in values:
        values["gaming_day_start"] = _clock(values["gaming_day_start"], "gaming_day_start")
    if "shift_starts" in values:
        raw = values["shift_starts"]
        if isinstance(raw, str):
            raw = raw.replace(",", " ").split()
        values["shift_starts"] = None if not raw else sorted(
            clock_text(_clock(t, "shift_starts")) for t in raw)
    if "shift_hours" in values:
        hours = values["shift_hours"]
        if isinstance(hours, bool) or not isinstance(hours, int):
            try:
                hours = int(str(hours))
            except ValueError:
                raise InvalidInput(f"shift_hours: a whole number of hours, not {hours!r}") \
                    from None
        values["shift_hours"] = hours
    if "name" in values:
        values["name"] = str(values["name"]).strip()
        if not 1 <= len(values["name"]) <= 200:
            raise InvalidInput("name: the casino's name, 1-200 characters")
    if "currency" in values:
        code = str(values["currency"]).strip().upper()
        if len(code) != 3 or not code.isalpha():
            raise InvalidInput("currency: a three-letter code like USD")
        values["currency"] = code
    threshold = values.get("large_win_threshold")
    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, int)
                                  or threshold < 0):
        raise InvalidInput("large_win_threshold: an amount in cents, 0 or more, or none")
    merged = {k: values.get(k, getattr(settings, k)) for k in SETTINGS_FIELDS}
    try:
        ShiftSchedule(str(merged["time_zone"]), merged["gaming_day_start"],
                      merged["shift_hours"],
                      tuple(parse_clock(t) for t in merged["shift_starts"] or ()))
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    return values


def _payload_value(value: Any) -> Any:
    return clock_text(value) if isinstance(value, time) else value


def update_settings(session: orm.Session, *, actor: UserRef | None = None,
                    **fields: Any) -> CasinoSettings:
    """Change casino settings (any of :data:`SETTINGS_FIELDS`); logged on the floor chain
    (``settings.changed``, with the changed values) when anything changed.

    ``gaming_day_start`` is a time or ``"HH:MM"``; ``shift_starts`` a list of them (or a
    text like ``"06:00, 14:30, 22:00"``) for custom shifts, or None/empty for regular ones
    of ``shift_hours`` (a divisor of 24: 8, 12, 24). With custom starts the gaming day
    must start at one of them. Times are on the casino's clock (``time_zone``).
    """
    unknown = sorted(set(fields) - set(SETTINGS_FIELDS))
    if unknown:
        raise InvalidInput(f"unknown setting {unknown[0]!r} (known: {', '.join(SETTINGS_FIELDS)})")
    with write(session):
        who = actor_name(session, actor, "admin", doing="change casino settings")
        settings = session.get(CasinoSettings, 1)
        assert settings is not None
        values = _settings_values(settings, fields)
        changed = {k: v for k, v in values.items() if getattr(settings, k) != v}
        if not changed:
            return settings
        for key, value in changed.items():
            setattr(settings, key, value)
        settings.updated_at = utcnow()
        session.flush()
        append_event(session, chain=FLOOR_CHAIN, actor=who, action="settings.changed",
                     payload={k: _payload_value(changed[k]) for k in sorted(changed)})
    return settings


def settings_history(session: orm.Session, limit: int = 10) -> list[AuditEvent]:
    """The latest ``settings.changed`` events of the floor chain, newest first."""
    with read(session):
        return list(session.scalars(
            sa.select(AuditEvent).where(AuditEvent.chain == FLOOR_CHAIN,
                                        AuditEvent.action == "settings.changed")
            .order_by(AuditEvent.seq.desc()).limit(limit)))


# ---------------------------------------------------------------- rule sets

def add_ruleset_version(session: orm.Session, rules_json: Mapping[str, Any] | None = None, *,
                        actor: UserRef | None = None, label: str | None = None,
                        _in_tx: bool = False) -> RuleSetVersion:
    """Store a rule set as an immutable version (validated by the domain; defaults filled).

    The same rules (same content hash) return the existing version: versions are keyed
    by content, so "table 1" can never mean two pay tables.
    """
    rules = ruleset_from_json(rules_json)  # DomainError passes through
    canonical, content_hash = rules.canonical_json(), rules.content_hash

    def add() -> RuleSetVersion:
        existing = session.scalars(sa.select(RuleSetVersion)
                                   .where(RuleSetVersion.content_hash == content_hash)).first()
        if existing is not None:
            return existing
        who = actor_name(session, actor, "admin", doing="add a rule set")
        version = RuleSetVersion(content_hash=content_hash, rules_json=canonical, label=label,
                                 created_at=utcnow(), created_by=who)
        session.add(version)
        session.flush()
        append_event(session, chain=FLOOR_CHAIN, actor=who, action="ruleset.added",
                     digest=content_hash, at=version.created_at,
                     payload={"ruleset_version_id": version.id, "label": label})
        return version

    if _in_tx:
        return add()
    with write(session):
        return add()


def get_ruleset_version(session: orm.Session, version_id: int) -> RuleSetVersion:
    with read(session):
        version = session.get(RuleSetVersion, version_id)
        if version is None:
            raise NotFound(f"no rule-set version {version_id}")
        return version


def list_ruleset_versions(session: orm.Session) -> list[RuleSetVersion]:
    with read(session):
        return list(session.scalars(sa.select(RuleSetVersion).order_by(RuleSetVersion.id)))


# ---------------------------------------------------------------- tables

def _table_digest(table: GamingTable) -> str:
    return record_digest("table", {"id": table.id, "name": table.name, "seats": table.seats,
                                   "ruleset_version_id": table.ruleset_version_id,
                                   "active": table.active, "seat_zones": table.seat_zones})


def create_table(session: orm.Session, name: str, seats: int = MAX_SEATS,
                 rules_json: Mapping[str, Any] | None = None, *, actor: UserRef | None = None,
                 seat_zones: dict[str, Any] | None = None,
                 rules_label: str | None = None) -> GamingTable:
    """Add a table with 1-7 seats under a rule set (default rules if none given).

    Starts the table's own audit chain with a ``table.created`` event.
    """
    name = name.strip()
    if not name or len(name) > 100:
        raise InvalidInput("a table needs a name of 1-100 characters")
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS:
        raise InvalidInput(f"a table has 1-{MAX_SEATS} seats, not {seats!r}")
    try:
        with write(session):
            who = actor_name(session, actor, "admin", doing="add a table")
            if session.scalar(sa.select(GamingTable.id).where(GamingTable.name == name)):
                raise Conflict(f"a table named {name!r} already exists")
            version = add_ruleset_version(session, rules_json, actor=actor, label=rules_label,
                                          _in_tx=True)
            table = GamingTable(name=name, seats=seats, ruleset_version_id=version.id,
                                seat_zones=seat_zones, active=True, created_at=utcnow())
            session.add(table)
            session.flush()
            chain = table_chain(table.id)
            session.add(ChainHead(chain=chain, table_id=table.id, seq=0, hash=GENESIS_HASH,
                                  round_serial=0))
            session.flush()
            append_event(session, chain=chain, actor=who, action="table.created",
                         table_id=table.id, digest=_table_digest(table), at=table.created_at,
                         payload={"name": name, "seats": seats,
                                  "ruleset_version_id": version.id,
                                  "rules_hash": version.content_hash})
    except sa_exc.IntegrityError as exc:
        raise integrity_conflict(exc, f"table {name!r} not added") from exc
    return table


def update_table(session: orm.Session, name: str, *, actor: UserRef | None = None,
                 seats: int | None = None, active: bool | None = None,
                 seat_zones: dict[str, Any] | None = None,
                 rules_json: Mapping[str, Any] | None = None,
                 rules_label: str | None = None) -> GamingTable:
    """Change a table's seats, active flag, camera seat zones or rule set (a new version).

    Rounds already logged keep the version they were settled under.
    """
    if seats is not None and not 1 <= seats <= MAX_SEATS:
        raise InvalidInput(f"a table has 1-{MAX_SEATS} seats, not {seats!r}")
    with write(session):
        who = actor_name(session, actor, "admin", doing="change a table")
        table = find_table(session, name)
        chain = table_chain(table.id)
        head = lock_head(session, chain)
        changes: dict[str, Any] = {}
        if rules_json is not None:
            version = add_ruleset_version(session, rules_json, actor=actor, label=rules_label,
                                          _in_tx=True)
            if version.id != table.ruleset_version_id:
                table.ruleset_version_id = version.id
                changes["ruleset_version_id"] = version.id
                changes["rules_hash"] = version.content_hash
        for key, value in (("seats", seats), ("active", active), ("seat_zones", seat_zones)):
            if value is not None and getattr(table, key) != value:
                setattr(table, key, value)
                changes[key] = value
        if not changes:
            return table
        session.flush()
        session.expire(table, ["ruleset_version"])
        append_event(session, chain=chain, actor=who, action="table.changed", table_id=table.id,
                     digest=_table_digest(table), payload=changes, head=head)
    return table


def set_table_rules(session: orm.Session, table: str, rules_json: Mapping[str, Any], *,
                    actor: UserRef | None = None, label: str | None = None) -> RuleSetVersion:
    """Point a table at a rule set (stored as a version if new); returns the version."""
    updated = update_table(session, table, actor=actor, rules_json=rules_json, rules_label=label)
    return get_ruleset_version(session, updated.ruleset_version_id)


def get_table(session: orm.Session, name: str) -> GamingTable:
    with read(session):
        return find_table(session, name)


def list_tables(session: orm.Session, *, include_inactive: bool = False) -> list[GamingTable]:
    with read(session):
        query = sa.select(GamingTable).order_by(GamingTable.name)
        if not include_inactive:
            query = query.where(GamingTable.active.is_(True))
        return list(session.scalars(query))


# ---------------------------------------------------------------- users

def _roles(roles: str | Iterable[str]) -> str:
    items = [roles] if isinstance(roles, str) else list(roles)
    parsed = sorted({r.strip().lower() for item in items for r in item.split(",") if r.strip()})
    if not parsed:
        raise InvalidInput(f"give at least one role ({', '.join(ROLES)})")
    for role in parsed:
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    return ",".join(parsed)


def _check_password(password: str) -> None:
    if len(password) < 8:
        raise InvalidInput("a password needs at least 8 characters")


def create_user(session: orm.Session, name: str, roles: str | Iterable[str],
                password: str | None, *, actor: UserRef | None = None) -> User:
    """Add a user with roles (dealer, supervisor, auditor, admin; several allowed).

    The password is stored as an argon2id hash; None makes an account that cannot log in
    (for example the simulator's).
    """
    name = name.strip()
    if not name or len(name) > 100 or any(c.isspace() for c in name):
        raise InvalidInput("a user name is 1-100 characters without spaces")
    role_list = _roles(roles)
    if password is not None:
        _check_password(password)
    password_hash = None if password is None else _hasher.hash(password)
    try:
        with write(session):
            who = actor_name(session, actor, "admin", doing="add a user")
            if session.scalar(sa.select(User.id).where(User.name == name)):
                raise Conflict(f"a user named {name!r} already exists")
            user = User(name=name, role_list=role_list, password_hash=password_hash,
                        active=True, created_at=utcnow())
            session.add(user)
            session.flush()
            append_event(session, chain=FLOOR_CHAIN, actor=who, action="user.created",
                         digest=record_digest("user", {"id": user.id, "name": name}),
                         payload={"user_id": user.id, "name": name, "roles": role_list})
    except sa_exc.IntegrityError as exc:
        raise integrity_conflict(exc, f"user {name!r} not added") from exc
    return user


def update_user(session: orm.Session, name: str, *, actor: UserRef | None = None,
                roles: str | Iterable[str] | None = None, active: bool | None = None,
                password: str | None = None) -> User:
    """Change a user's roles, active flag or password; logged on the floor chain."""
    role_list = None if roles is None else _roles(roles)
    if password is not None:
        _check_password(password)
    with write(session):
        who = actor_name(session, actor, "admin", doing="change a user")
        user = find_user(session, name)
        changes: dict[str, Any] = {}
        if role_list is not None and role_list != user.role_list:
            user.role_list = changes["roles"] = role_list
        if active is not None and active != user.active:
            user.active = changes["active"] = active
        if password is not None:
            user.password_hash = _hasher.hash(password)
            changes["password"] = "changed"
        if not changes:
            return user
        session.flush()
        append_event(session, chain=FLOOR_CHAIN, actor=who, action="user.changed",
                     payload={"user_id": user.id, "name": user.name, **changes})
    return user


def get_user(session: orm.Session, name: str) -> User:
    with read(session):
        return find_user(session, name)


def list_users(session: orm.Session) -> list[User]:
    with read(session):
        return list(session.scalars(sa.select(User).order_by(User.name)))


def authenticate(session: orm.Session, name: str, password: str, *,
                 address: str | None = None) -> User | None:
    """The active user with this name and password, or None. Logs ``user.login`` or
    ``user.login_failed`` on the floor chain either way, with the client's ``address``
    when given (sign-in throttling counts these: :mod:`dealer_assist.services.signins`);
    a name no user has is logged as a digest (it may be a password typed in the wrong
    field)."""
    where = {} if address is None else {"address": address[:100]}
    with guard(session):
        user = session.scalars(sa.select(User).where(User.name == name)).one_or_none()
        stored = user.password_hash if user is not None and user.password_hash else _dummy_hash()
        try:
            ok = _hasher.verify(stored, password) and user is not None \
                and user.password_hash is not None
        except (VerificationError, InvalidHashError):
            ok = False
        ok = ok and user is not None and user.active
        with write(session):
            if ok and user is not None:
                if _hasher.check_needs_rehash(stored):
                    session.execute(sa.update(User).where(User.id == user.id)
                                    .values(password_hash=_hasher.hash(password)))
                append_event(session, chain=FLOOR_CHAIN, actor=user.name, action="user.login",
                             payload={"user_id": user.id, **where})
            else:
                from .signins import unknown_name

                append_event(session, chain=FLOOR_CHAIN,
                             actor=name[:100] if user is not None else unknown_name(name),
                             action="user.login_failed",
                             payload={"reason": "inactive" if user is not None
                                      and not user.active else "bad name or password",
                                      **where})
        return user if ok else None


# ---------------------------------------------------------------- API tokens

def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: orm.Session, user: UserRef, *, label: str | None = None,
                 actor: UserRef | None = None) -> str:
    """A new API token for ``user``: the plain token is returned once, only its hash stored."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with write(session):
        who = actor_name(session, actor, "admin", doing="issue an API token")
        owner = find_user(session, user)
        row = ApiToken(user_id=owner.id, token_hash=_token_hash(token),
                       prefix=token[:10], label=label, created_at=utcnow())
        session.add(row)
        session.flush()
        append_event(session, chain=FLOOR_CHAIN, actor=who, action="token.created",
                     payload={"token_id": row.id, "user": owner.name, "prefix": row.prefix,
                              "label": label})
    return token


def user_for_token(session: orm.Session, token: str) -> User | None:
    """The active user an unrevoked token belongs to, or None (no audit event: hot path)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    with read(session):
        row = session.scalars(sa.select(ApiToken).where(
            ApiToken.token_hash == _token_hash(token), ApiToken.revoked_at.is_(None))).first()
        if row is None or not row.user.active:
            return None
        return row.user


def revoke_token(session: orm.Session, token_id: int, *, actor: UserRef | None = None) -> None:
    """Revoke a token by its id (it stops working at once)."""
    with write(session):
        who = actor_name(session, actor, "admin", doing="revoke an API token")
        row = session.get(ApiToken, token_id)
        if row is None:
            raise NotFound(f"no API token {token_id}")
        if row.revoked_at is None:
            row.revoked_at = utcnow()
            session.flush()
            append_event(session, chain=FLOOR_CHAIN, actor=who, action="token.revoked",
                         payload={"token_id": row.id, "user_id": row.user_id})


def list_tokens(session: orm.Session, user: UserRef | None = None) -> list[ApiToken]:
    with read(session):
        query = sa.select(ApiToken).order_by(ApiToken.id)
        if user is not None:
            query = query.where(ApiToken.user_id == find_user(session, user).id)
        return list(session.scalars(query))


__all__ = ["SETTINGS_FIELDS", "RuleSetError", "add_ruleset_version", "authenticate",
           "create_table", "create_token", "create_user", "get_ruleset_version", "get_settings",
           "get_table", "get_user", "list_ruleset_versions", "list_tables", "list_tokens",
           "list_users", "revoke_token", "set_table_rules", "settings_history", "update_settings",
           "update_table", "update_user", "user_for_token"]
