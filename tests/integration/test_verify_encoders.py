"""The hand-built encoders verify_log uses give byte-identical text to the json reference."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.store.audit import (
    canonical_event,
    canonical_json,
    digest_of_texts,
    encode_rows,
    iso,
    round_digest,
)

_INTS = st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
_TEXT = st.text()
_KIND = {"int": _INTS, "int?": st.none() | _INTS, "str": _TEXT, "str?": st.none() | _TEXT,
         "bool": st.booleans()}


@st.composite
def _table(draw: Any) -> tuple[list[str], list[list[Any]]]:
    kinds = draw(st.lists(st.sampled_from(sorted(_KIND)), min_size=1, max_size=6))
    n = draw(st.integers(0, 6))
    rows = [[draw(_KIND[k]) for k in kinds] for _ in range(n)]
    return kinds, rows


@settings(max_examples=300)
@given(_table())
def test_encode_rows_is_canonical_json(table: tuple[list[str], list[list[Any]]]) -> None:
    kinds, rows = table
    columns = [[row[i] for row in rows] for i in range(len(kinds))]
    assert encode_rows(columns, kinds) == [canonical_json(row) for row in rows]


@given(st.lists(st.one_of(st.floats(), st.binary(), st.booleans()), min_size=1, max_size=3))
def test_encode_rows_declines_other_types(column: list[Any]) -> None:
    assert encode_rows([column], ["int"]) is None


@settings(max_examples=200)
@given(st.datetimes(timezones=st.just(UTC)), _TEXT, _TEXT, st.none() | _TEXT,
       st.none() | _INTS, st.integers(1, 2 ** 40), _TEXT)
def test_canonical_event_is_canonical_json(at: datetime, actor: str, action: str,
                                           digest: str | None, round_id: int | None,
                                           seq: int, chain: str) -> None:
    payload = canonical_json({"x": actor, "n": round_id})
    text = canonical_event(chain=chain, seq=seq, at=at, actor=actor, action=action,
                           table_id=round_id, shift_id=None, round_id=round_id,
                           digest=digest, payload=payload)
    assert text == canonical_json({"action": action, "actor": actor, "at": iso(at),
                                   "chain": chain, "digest": digest,
                                   "payload": {"x": actor, "n": round_id},
                                   "round_id": round_id, "seq": seq, "shift_id": None,
                                   "table_id": round_id})


@settings(max_examples=100)
@given(st.lists(st.tuples(_INTS, _TEXT, st.none() | _INTS, st.booleans()), max_size=7,
                unique_by=lambda s: s[0]), _TEXT, st.datetimes(timezones=st.just(UTC)))
def test_digest_of_texts_is_round_digest(seats: list[tuple[int, str, int | None, bool]],
                                         reason: str, at: datetime) -> None:
    values: list[Any] = [1, 2, 3, 4, 5, "AH KD 2C", 1, None, 3, True, reason, 7, at, "scan",
                         None, "k\u00e9y", -5]
    ordered = sorted(seats)
    seat_texts = encode_rows([[s[i] for s in ordered] for i in range(4)],
                             ["int", "str", "int?", "bool"])
    assert seat_texts is not None
    round_text = canonical_json([*values[:12], iso(at), *values[13:]])
    assert digest_of_texts(round_text, seat_texts) == round_digest(values, seats)
