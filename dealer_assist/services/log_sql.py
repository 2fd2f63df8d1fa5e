"""The log's canonical texts, written by the database itself (the fast path of verify-log).

Verifying a million rounds means hashing a million round texts with five million seat texts
and a million event texts. Reading every value into Python and formatting it there costs
most of the time, so these queries have the database write each text (the same characters
:func:`dealer_assist.store.audit.canonical_json` and ``canonical_event`` write) and Python
only hashes it.

Every rendering is exact for what the app writes, and injective on what it could read back:
a text equal to the one recorded when the record was logged proves the stored values are
the logged ones. Where that could fail, the rendering gives NULL instead and the caller
checks the record by the reference path:

- a string holding a backslash or a double quote (JSON would escape them, so its canonical
  text contains a backslash; a stored string that is the *escaped* form of the logged one
  would otherwise render to the logged text);
- a boolean stored as anything but 0 or 1 (SQLite), a time not in the stored format.

Integers are written by the database as decimal text; a value of another type renders to a
text no logged integer has. NULL renders as ``null``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa

#: What the round digest's line holds, in order (:data:`store.audit.ROUND_DIGEST_FIELDS`),
#: with how each column renders.
_ROUND_FIELDS = (("id", "int"), ("table_id", "int"), ("serial", "int"), ("shift_id", "int"),
                 ("ruleset_version_id", "int"), ("dealer_cards", "str"),
                 ("dealer_c1", "int?"), ("dealer_c2", "int?"), ("dealer_c3", "int?"),
                 ("misdeal", "bool"), ("misdeal_reason", "str"), ("entered_by_id", "int"),
                 ("at", "time"), ("source", "str"), ("photo_sha256", "str?"),
                 ("idempotency_key", "str?"), ("total", "int"))
#: A seat's fields (:data:`store.audit.SEAT_DIGEST_FIELDS`): the cards text is the only
#: string, second; :func:`parse_seat_numbers` relies on that.
_SEAT_FIELDS = (("seat", "int"), ("cards", "str"), ("c1", "int?"), ("c2", "int?"),
                ("c3", "int?"), ("ante", "int"), ("play", "bool"), ("pair_plus", "int"),
                ("six_card", "int"), ("prime", "int"), ("net_ante", "int"),
                ("net_play", "int"), ("net_ante_bonus", "int"), ("net_pair_plus", "int"),
                ("net_six_card", "int"), ("net_prime", "int"))
#: The event's canonical JSON keys in order, with how each renders (``payload`` is stored
#: as canonical JSON already and goes in as it is).
_EVENT_FIELDS = (("action", "str"), ("actor", "str"), ("at", "time"), ("chain", "str"),
                 ("digest", "str?"), ("payload", "raw"), ("round_id", "int?"),
                 ("seq", "int"), ("shift_id", "int?"), ("table_id", "int?"))
#: Numbers per seat in :func:`parse_seat_numbers`'s rows: the seat fields but the cards.
SEAT_NUMBERS = len(_SEAT_FIELDS) - 1


@dataclass(frozen=True)
class Renderer:
    """SQL that writes a record's canonical JSON text, for one engine."""

    postgresql: bool

    def param(self, name: str) -> str:
        return f"%({name})s" if self.postgresql else f":{name}"

    def _value(self, col: str, kind: str) -> tuple[str, str, str | None]:
        """(printf format, argument, guard or None) of one field: the field's text is the
        format applied to the argument, and renders only where the guard holds."""
        plain = (f"(strpos({col}, '\\') = 0 AND strpos({col}, '\"') = 0)" if self.postgresql
                 else f"(instr({col}, '\\') = 0 AND instr({col}, '\"') = 0)")
        if kind == "int":
            return "%s", f"CAST({col} AS TEXT)" if self.postgresql else col, None
        if kind == "int?":
            return "%s", f"COALESCE(CAST({col} AS TEXT), 'null')", None
        if kind == "raw":
            return "%s", col, None
        if kind == "bool":
            if self.postgresql:
                return "%s", f"(CASE WHEN {col} THEN 'true' ELSE 'false' END)", None
            return ("%s", f"(CASE {col} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)",
                    f"{col} IN (0, 1)")
        if kind == "time":
            if self.postgresql:
                return ('"%s"', f"to_char(timezone('UTC', {col}), "
                                f"'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')", None)
            # Stored as "YYYY-MM-DD HH:MM:SS.ffffff" (UTC): only that shape renders.
            return ('"%s"', f"(substr({col}, 1, 10) || 'T' || substr({col}, 12) || '+00:00')",
                    f"(typeof({col}) = 'text' AND length({col}) = 26 "
                    f"AND substr({col}, 11, 1) = ' ')")
        if kind == "str":
            return '"%s"', col, plain
        if kind == "str?":
            return ("%s", f"(CASE WHEN {col} IS NULL THEN 'null' ELSE '\"' || {col} || '\"' "
                          f"END)", f"({col} IS NULL OR {plain})")
        raise ValueError(kind)

    def line(self, fields: tuple[tuple[str, str], ...], prefix: str, head: str, sep: str,
             tail: str, keys: bool = False) -> str:
        """``head`` + the fields' texts joined by ``sep`` + ``tail`` (with ``"name":``
        before each when ``keys``), or NULL where a field cannot render exactly."""
        formats, args, guards = [], [], []
        for name, kind in fields:
            fmt, arg, guard = self._value(prefix + name, kind)
            formats.append((f'"{name}":' if keys else "") + fmt)
            args.append(arg)
            if guard is not None:
                guards.append(guard)
        if self.postgresql:
            # || gives NULL when any part is NULL; the parts are literal text and values.
            pieces = [f"'{head}'"]
            for i, (fmt, arg) in enumerate(zip(formats, args, strict=True)):
                before, after = fmt.split("%s")
                pieces += [f"'{(sep if i else '') + before}'", arg]
                if after:
                    pieces.append(f"'{after}'")
            pieces.append(f"'{tail}'")
            text = " || ".join(p for p in pieces if p != "''")
        else:
            # printf writes a NULL argument as nothing, so the guards decide NULL instead.
            text = f"printf('{head}{sep.join(formats)}{tail}', {', '.join(args)})"
        if guards:
            text = f"(CASE WHEN {' AND '.join(guards)} THEN {text} END)"
        return text

    def array(self, fields: tuple[tuple[str, str], ...], prefix: str = "") -> str:
        """``[v1,v2,...]`` of the fields."""
        return self.line(fields, prefix, "[", ",", "]")

    def event_object(self, prefix: str = "") -> str:
        """The event's canonical JSON object (keys sorted)."""
        return self.line(_EVENT_FIELDS, prefix, "{", ",", "}", keys=True)

    def as_int(self, col: str) -> str:
        return f"CAST({col} AS INTEGER)" if self.postgresql else col


def renderer(dialect: sa.Dialect) -> Renderer:
    return Renderer(postgresql=dialect.name == "postgresql")


def rounds_sql(r: Renderer, filters: str) -> str:
    """Rounds with ``lo <= id <= hi`` (and ``filters`` on ``r``), in id order: id,
    table_id, serial, ruleset_version_id, misdeal (0/1), dealer c1..c3 (-1 for NULL),
    total, and the text of its digest line."""
    lo, hi = r.param("lo"), r.param("hi")
    return (f"SELECT r.id, r.table_id, r.serial, r.ruleset_version_id, "
            f"{r.as_int('r.misdeal')}, COALESCE(r.dealer_c1, -1), "
            f"COALESCE(r.dealer_c2, -1), COALESCE(r.dealer_c3, -1), r.total, "
            f"{r.array(_ROUND_FIELDS, 'r.')} "
            f"FROM rounds r WHERE r.id BETWEEN {lo} AND {hi}{filters} ORDER BY r.id")


def seats_sql(r: Renderer, filters: str) -> str:
    """Seats of the rounds with ``lo <= round_id <= hi`` (and ``filters`` on their round),
    in round and seat order: round_id and the seat's text."""
    lo, hi = r.param("lo"), r.param("hi")
    where = f"s.round_id BETWEEN {lo} AND {hi}"
    if filters:
        where += (f" AND s.round_id IN (SELECT r.id FROM rounds r "
                  f"WHERE r.id BETWEEN {lo} AND {hi}{filters})")
    return (f"SELECT s.round_id, {r.array(_SEAT_FIELDS, 's.')} FROM seat_entries s "
            f"WHERE {where} ORDER BY s.round_id, s.seat")


def chunk_end_sql(r: Renderer, filters: str, chunk: int) -> str:
    """The id of the ``chunk``-th round after ``last`` (and ``filters``), if there is one."""
    return (f"SELECT r.id FROM rounds r WHERE r.id > {r.param('last')}{filters} "
            f"ORDER BY r.id LIMIT 1 OFFSET {int(chunk) - 1}")


def last_id_sql(r: Renderer, filters: str) -> str:
    """The id of the last round after ``last`` (and ``filters``), if there is one."""
    return (f"SELECT max(r.id) FROM rounds r WHERE r.id > {r.param('last')}{filters}")


def events_sql(r: Renderer, since: bool) -> str:
    """A chain's events in seq order: id, seq, canonical text (NULL: not renderable),
    prev_hash, hash, round_id, digest, at as its iso text (NULL if not renderable), and,
    for events other than ``round.logged``, action, shift_id and payload."""
    at = r.line((("at", "time"),), "e.", "", "", "")
    other = "e.action <> 'round.logged'"
    where = f"e.chain = {r.param('chain')}"
    if since:
        where += f" AND e.at >= {r.param('since')}"
    return (f"SELECT e.id, e.seq, {r.event_object('e.')}, e.prev_hash, e.hash, e.round_id, "
            f"e.digest, substr({at}, 2, 32), CASE WHEN {other} THEN e.action END, "
            f"CASE WHEN {other} THEN e.shift_id END, CASE WHEN {other} THEN e.payload END "
            f"FROM audit_events e WHERE {where} ORDER BY e.seq, e.id")


def parse_seat_numbers(texts: list[str], counts: list[int]) -> list[bool] | str:
    """Each round's seat texts (``[seat,"cards",c1,...],[...]``, ``counts`` seats) as their
    numbers only (booleans 1/0, NULL -1), ``SEAT_NUMBERS`` per seat, comma-separated, all
    rounds in one text; or, if a round's text does not hold exactly that many fields, which
    rounds do (so the caller leaves the others to the reference path and asks again)."""
    joined = "\n".join(texts)
    # The one string per seat holds no quote (else it rendered NULL): drop it, comma and all.
    numbers = (_CARDS.sub("", joined).replace("true", "1").replace("false", "0")
               .replace("null", "-1").replace("[", "").replace("]", ""))
    parts = numbers.split("\n")
    if len(parts) != len(texts):
        return [False] * len(texts)  # a line break inside a text: no round is sure
    whole = [t.count(",") == SEAT_NUMBERS * n - 1 for t, n in zip(parts, counts, strict=True)]
    return ",".join(parts) if all(whole) else whole


_CARDS = re.compile(r'"[^"\n]*",')


__all__ = ["SEAT_NUMBERS", "Renderer", "chunk_end_sql", "events_sql", "last_id_sql", "parse_seat_numbers",
           "renderer", "rounds_sql", "seats_sql"]
