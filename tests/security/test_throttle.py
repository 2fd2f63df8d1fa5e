"""Sign-in throttling holds across app instances (gunicorn workers, a restart): the failures
are the audit log's ``user.login_failed`` events in the shared hand log, not a process's
memory. Two apps on one database, tried in turn, let exactly LOGIN_MAX_FAILURES wrong
passwords through per name, and per client address; a third app started afterwards (a
restart) still refuses; the lockout ends on time; a supervisor's approval typed at a
dealer's screen counts the same way."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend

from .floor import PASSWORDS, Floor
from .test_security import all_text

MAX = 5     # the production default of LOGIN_MAX_FAILURES


@pytest.fixture
def apps(floor: Floor, tmp_path: Path) -> Iterator[list[Flask]]:
    made: list[Flask] = []

    def make() -> Flask:
        app = create_app({"TESTING": True, "DATABASE_URL": floor.url},
                         instance_path=tmp_path)
        made.append(app)
        return app

    made_apps = [make(), make()]
    made_apps[0].config["make"] = make
    yield made_apps
    for app in made:
        get_backend(app).close()


def attempt(app: Flask, name: str, password: str, address: str = "10.0.0.7") -> int:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    page = client.get("/auth/login")
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    return client.post("/auth/login", data={"name": name, "password": password,
                                            "csrf_token": token.group(1)}).status_code


def test_failures_count_across_instances_and_a_restart(apps: list[Flask]) -> None:
    assert apps[0].config["LOGIN_MAX_FAILURES"] == MAX
    statuses = [attempt(apps[i % 2], "dana", f"guess-{i}") for i in range(MAX + 3)]
    assert statuses == [401] * MAX + [429] * 3, statuses
    for app in apps:                          # the right password: refused on both
        assert attempt(app, "dana", PASSWORDS["dana"]) == 429
    restarted = apps[0].config["make"]()
    assert attempt(restarted, "dana", PASSWORDS["dana"], address="10.0.0.8") == 429
    # Another name from another address is not affected.
    assert attempt(restarted, "sam", PASSWORDS["sam"], address="10.0.0.9") == 302


def test_one_address_trying_many_names_is_locked(apps: list[Flask]) -> None:
    names = ["dana", "sam", "alex", "ada", "nobody", "eve"]
    statuses = [attempt(apps[i % 2], name, "wrong", address="10.0.0.66")
                for i, name in enumerate(names)]
    assert statuses == [401] * MAX + [429], statuses
    # Even a right password from that address waits; from another it signs in.
    assert attempt(apps[0], "alex", PASSWORDS["alex"], address="10.0.0.66") == 429
    assert attempt(apps[1], "alex", PASSWORDS["alex"], address="10.0.0.67") == 302


def test_a_success_resets_and_the_lockout_ends(apps: list[Flask], monkeypatch: Any) -> None:
    for i in range(MAX - 1):
        assert attempt(apps[i % 2], "sam", "wrong") == 401
    assert attempt(apps[0], "sam", PASSWORDS["sam"]) == 302        # resets
    for i in range(MAX):
        assert attempt(apps[i % 2], "sam", "wrong") == 401
    assert attempt(apps[1], "sam", PASSWORDS["sam"]) == 429
    # Five minutes (LOGIN_LOCKOUT_SECONDS) later it may sign in again.
    from dealer_assist.web import auth

    later = datetime.now(UTC) + timedelta(seconds=apps[0].config["LOGIN_LOCKOUT_SECONDS"] + 1)

    class Later(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
            return later

    monkeypatch.setattr(auth, "datetime", Later)
    assert attempt(apps[1], "sam", PASSWORDS["sam"]) == 302


def test_wrong_approvals_at_a_dealer_screen_count_too(apps: list[Flask], floor: Floor) -> None:
    """A supervisor's password typed at a dealer's screen (a large payout) is a sign-in:
    guessing it there is throttled the same way, across instances."""
    # A straight flush on a $1,000 pair plus pays 40:1, over the $5,000 threshold.
    big = {"dealer": ["2C", "7D", "9H"],
           "seats": [{"seat": 1, "cards": ["9S", "TS", "JS"], "ante": 1000, "play": True,
                      "pair_plus": 100_000}]}
    statuses = []
    for i in range(MAX + 1):
        client = apps[i % 2].test_client()
        body = {**big, "approval": {"supervisor": "sam", "password": f"guess-{i}"}}
        answer = client.post("/api/v1/tables/TCP-1/rounds", json=body,
                             headers={"Authorization": f"Bearer {floor.tokens['dealer']}",
                                      "Idempotency-Key": f"approval-guess-{i}"})
        statuses.append((answer.status_code, answer.get_json()["error"]["message"]))
    assert all(code == 403 for code, _ in statuses), statuses
    assert "too many wrong approvals" in statuses[-1][1], statuses
    assert not any("too many" in m for _, m in statuses[:MAX]), statuses
    # The supervisor cannot sign in either until the lockout ends (same name).
    assert attempt(apps[0], "sam", PASSWORDS["sam"], address="10.0.0.99") == 429



def test_an_unknown_name_is_throttled_though_logged_as_a_digest(apps: list[Flask],
                                                                 floor: Floor) -> None:
    """A name no user has is logged as a digest (it may be a password typed in the name
    field), and still counted: from five addresses, the sixth try is refused."""
    statuses = [attempt(apps[i % 2], "Hunter2!", "x", address=f"10.1.0.{i}")
                for i in range(MAX + 1)]
    assert statuses == [401] * MAX + [429], statuses
    assert "Hunter2" not in all_text(floor.url)
