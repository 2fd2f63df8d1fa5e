"""verify-log's fast path (texts written by the database) against its reference path.

The fast path may only ever say "this record is well"; anything it cannot prove goes to
the reference path, which names the problem. So for any log, tampered or not, both paths
must report exactly the same problems, and the fast path must prove the ordinary rounds
and events itself (or it would be no faster).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from dealer_assist import services
from dealer_assist.services import verify
from dealer_assist.store.audit import append_event, lock_head
from dealer_assist.store.models import AuditEvent, Round

from .conftest import Floor, round_json, tamper


def _populate(floor: Floor, session: orm.Session) -> list[int]:
    """Ordinary rounds, and legitimate records with every awkward string: a quote, a
    backslash, a line break, non-ASCII; a misdeal with missing cards."""
    services.create_user(session, "Zoë\"Z\\O'N", ["dealer"], "pw-zoe-1234")
    ids = [services.log_round(session, table="T1", round_json=round_json(i), user="dan",
                              idempotency_key=f"key-{i}").round_id for i in range(8)]
    odd = {**round_json(9), "misdeal": True,
           "misdeal_reason": 'dealer said "stop" \\ then\nswapped a card, café'}
    odd["dealer"] = odd["dealer"][:2]
    ids.append(services.log_round(session, table="T1", round_json=odd,
                                  user="Zoë\"Z\\O'N",
                                  idempotency_key='tab"let\\7\n').round_id)
    ids += [services.log_round(session, table="T1", round_json=round_json(i), user="sue"
                               ).round_id for i in range(10, 14)]
    services.void_round(session, ids[1], user="sue", reason="pushed the wrong stack")
    services.correct_round(session, ids[2], round_json=round_json(40), user="sue",
                           reason="seat 2 folded")
    session.commit()
    return ids


def _both(session: orm.Session, monkeypatch: pytest.MonkeyPatch
          ) -> tuple[verify.VerifyResult, verify.VerifyResult, dict[str, int]]:
    calls = {"rounds": 0, "events": 0}
    report, walk = verify._report_rounds, verify._walk_events

    def counting_report(*args: Any) -> None:
        calls["rounds"] += len(args[0].rounds)
        report(*args)

    def counting_walk(*args: Any) -> None:
        calls["events"] += len(args[1])
        walk(*args)

    monkeypatch.setattr(verify, "_report_rounds", counting_report)
    monkeypatch.setattr(verify, "_walk_events", counting_walk)
    fast = services.verify_log(session)
    fast_calls = dict(calls)
    monkeypatch.setattr(verify, "FAST", False)
    reference = services.verify_log(session)
    monkeypatch.setattr(verify, "FAST", True)
    return fast, reference, fast_calls


def _same(fast: verify.VerifyResult, reference: verify.VerifyResult) -> None:
    assert fast.ok == reference.ok
    assert (fast.rounds, fast.seats, fast.events) == (reference.rounds, reference.seats,
                                                      reference.events)
    assert fast.head == reference.head
    assert sorted(map(str, fast.problems)) == sorted(map(str, reference.problems))
    assert fast.summary() == reference.summary()


def test_a_clean_log_is_proven_by_the_fast_path(floor: Floor, session: orm.Session,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _populate(floor, session)
    fast, reference, calls = _both(session, monkeypatch)
    _same(fast, reference)
    assert fast.ok, fast.summary()
    assert fast.rounds == len(ids) + 1  # the correction's replacement round
    # Only the round with the quote, backslash and line break needs the reference path;
    # events: the partition holding the awkward names and reason.
    assert calls["rounds"] == 1
    assert calls["events"] <= fast.events


def _pg(floor: Floor) -> bool:
    return floor.engine.dialect.name == "postgresql"


def _net(ids: list[int]) -> list[str]:
    return [f"UPDATE seat_entries SET net_ante = net_ante + 1000 WHERE round_id = {ids[3]} "
            f"AND seat = 1"]


def _escaped_reason(ids: list[int]) -> list[str]:
    # The reason's JSON-escaped text stored in place of the reason: the same text would
    # render between quotes, so the fast path must refuse it.
    return [f"UPDATE rounds SET misdeal_reason = 'dealer said \\\"stop\\\" \\\\ then\\n"
            f"swapped a card, café' WHERE id = {ids[8]}"]


def _escaped_cards(ids: list[int]) -> list[str]:
    return [f"UPDATE seat_entries SET cards = replace(cards, ' ', '\\u0020') "
            f"WHERE round_id = {ids[4]} AND seat = 2"]


def _play_two(ids: list[int]) -> list[str]:
    return [f"UPDATE seat_entries SET play = 2 WHERE round_id = {ids[5]} AND seat = 1"]


def _time_junk(ids: list[int]) -> list[str]:
    return [f"UPDATE rounds SET at = at || 'junk' WHERE id = {ids[6]}"]


def _time_t(ids: list[int]) -> list[str]:
    return [f"UPDATE rounds SET at = replace(at, ' ', 'T') WHERE id = {ids[6]}"]


def _text_stake(ids: list[int]) -> list[str]:
    return [f"UPDATE seat_entries SET ante = '1000x' WHERE round_id = {ids[7]} AND seat = 1"]


def _orphan_seat(ids: list[int]) -> list[str]:
    return [f"INSERT INTO seat_entries (round_id, seat, cards, c1, c2, c3, ante, play, "
            f"pair_plus, six_card, prime, net_ante, net_play, net_ante_bonus, net_pair_plus, "
            f"net_six_card, net_prime) SELECT {ids[-1] + 50}, seat, cards, c1, c2, c3, ante, "
            f"play, pair_plus, six_card, prime, net_ante, net_play, net_ante_bonus, "
            f"net_pair_plus, net_six_card, net_prime FROM seat_entries "
            f"WHERE round_id = {ids[0]}"]


def _deleted_seat_and_round(ids: list[int]) -> list[str]:
    return [f"DELETE FROM seat_entries WHERE round_id = {ids[10]} AND seat = 2",
            f"DELETE FROM seat_entries WHERE round_id = {ids[11]}",
            f"DELETE FROM rounds WHERE id = {ids[11]}"]


def _edited_actor(ids: list[int]) -> list[str]:
    return [f"UPDATE audit_events SET actor = 'sue' WHERE round_id = {ids[0]} "
            f"AND action = 'round.logged'"]


def _swapped_serials(ids: list[int]) -> list[str]:
    return [f"UPDATE rounds SET serial = 1000 WHERE id = {ids[3]}",
            f"UPDATE rounds SET serial = 4 WHERE id = {ids[4]}",
            f"UPDATE rounds SET serial = 5 WHERE id = {ids[3]}"]


TAMPERING: dict[str, tuple[Callable[[list[int]], list[str]], str, bool]] = {
    # name: (statements, a phrase the first problem holds, SQLite only)
    "changed net": (_net, "ante net is", False),
    "escaped reason": (_escaped_reason, "differs from what", False),
    "escaped cards": (_escaped_cards, "differs from what", False),
    "play stored as 2": (_play_two, "differs from what", True),
    "time with text after it": (_time_junk, "differs from what", True),
    "time written with a T": (_time_t, "differs from what", True),
    "stake stored as text": (_text_stake, "round #8", True),
    "seat rows without a round": (_orphan_seat, "without a round", False),
    "deleted seat and round": (_deleted_seat_and_round, "round #", False),
    "edited event": (_edited_actor, "was edited", False),
    "swapped serials": (_swapped_serials, "round #", False),
}


@pytest.mark.parametrize("name", list(TAMPERING))
def test_both_paths_name_the_same_problems(floor: Floor, session: orm.Session,
                                           monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    statements, phrase, sqlite_only = TAMPERING[name]
    if sqlite_only and _pg(floor):
        pytest.skip("PostgreSQL's column types cannot hold this value")
    ids = _populate(floor, session)
    session.close()
    tamper(floor.engine, *statements(ids))
    fast, reference, _ = _both(session, monkeypatch)
    _same(fast, reference)
    assert not fast.ok
    assert phrase in fast.summary() or any(phrase in str(p) for p in fast.problems), \
        fast.summary()


def test_a_round_logged_twice_is_named(floor: Floor, session: orm.Session,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """An attacker appends a well-chained second round.logged event for an existing round
    (a different digest): verify must not let the later one win silently."""
    ids = _populate(floor, session)
    table_id = session.scalar(sa.select(Round.table_id).where(Round.id == ids[3]))
    chain = f"table:{table_id}"
    append_event(session, chain=chain, actor="dan", action="round.logged",
                 table_id=table_id, round_id=ids[3], digest="f" * 64,
                 payload={"serial": 4}, head=lock_head(session, chain))
    session.commit()
    fast, reference, _ = _both(session, monkeypatch)
    _same(fast, reference)
    assert any(f"logs round id {ids[3]} a second time" in str(p) for p in fast.problems)


def test_since_and_table_filters_take_the_fast_path(floor: Floor, session: orm.Session,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _populate(floor, session)
    services.create_table(session, "T2", 5)
    services.open_shift(session, table="T2", user="sue")
    for i in range(3):
        services.log_round(session, table="T2", round_json=round_json(i), user="dan")
    since = session.scalar(sa.select(AuditEvent.at).where(AuditEvent.round_id == ids[5]))
    session.commit()
    for kwargs in ({"table": "T1"}, {"table": "T2"}, {"since": since},
                   {"table": "T1", "since": since}):
        fast = services.verify_log(session, **kwargs)
        monkeypatch.setattr(verify, "FAST", False)
        reference = services.verify_log(session, **kwargs)
        monkeypatch.setattr(verify, "FAST", True)
        _same(fast, reference)
        assert fast.ok, (kwargs, fast.summary())
    assert services.verify_log(session, table="T2").rounds == 3


def test_worker_processes_find_what_one_process_finds(floor: Floor, session: orm.Session,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The rounds checked in two worker processes (in the caller's snapshot) give the same
    result as in the calling process, clean and tampered."""
    ids = _populate(floor, session)
    monkeypatch.setattr(verify, "PARALLEL_FROM", 0)
    monkeypatch.setattr(verify, "CHUNK", 4)  # several chunks, so both workers get some
    alone = services.verify_log(session)
    assert alone.ok, alone.summary()
    assert services.verify_log(session, workers=2).summary() == alone.summary()
    session.close()
    tamper(floor.engine, *_net(ids), *_deleted_seat_and_round(ids))
    alone = services.verify_log(session)
    both = services.verify_log(session, workers=2)
    _same(both, alone)
    assert not both.ok and both.rounds == alone.rounds == len(ids)


def test_a_changed_drop_fails_verify_log(floor: Floor, session: orm.Session) -> None:
    from dealer_assist.services import drops

    _populate(floor, session)
    shift = services.close_shift(session, table="T1", user="sue",
                                 closing_inventory={500: 90, 2500: 40})
    shift_id = shift.id
    drop_id = drops.record_drop(session, shift_id=shift_id, user="abe", cash=50_000).id
    session.commit()
    assert services.verify_log(session).ok
    session.close()
    tamper(floor.engine, f"UPDATE shift_drops SET cash = 5000, amount = 5000 "
                         f"WHERE id = {drop_id}")
    result = services.verify_log(session)
    assert not result.ok
    assert any(f"drop {drop_id} of shift {shift_id}" in str(p) and "changed" in str(p)
               for p in result.problems), result.summary()
