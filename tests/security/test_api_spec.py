"""schemathesis over the whole served OpenAPI spec as every caller the API can have: no
token, a garbage token, and each role's token (tests/web runs it as a supervisor). For
every operation (read from the app, so a new route is covered too): no 5xx, and every
answer, refusals included, is one the spec declares, in the shape it declares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import (
    negative_data_rejection,
    positive_data_acceptance,
)

from dealer_assist.web import create_app
from dealer_assist.web.backend import get_backend

from .floor import Floor, build_floor, cheap_hashing, round_json

EXAMPLES = 3
CALLERS = ["anonymous", "garbage token", "dealer", "auditor", "admin"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, Floor]]:
    cheap_hashing()
    folder: Path = tmp_path_factory.mktemp("spec")
    floor = build_floor("sqlite", folder)
    app = create_app({"TESTING": True, "DATABASE_URL": floor.url}, instance_path=folder)
    client = app.test_client()
    for i in range(3):
        assert client.post("/api/v1/tables/TCP-1/rounds", json=round_json(i), headers={
            "Authorization": f"Bearer {floor.tokens['dealer']}"}).status_code == 201
    yield app, floor
    get_backend(app).close()


@pytest.mark.parametrize("caller", CALLERS)
def test_every_caller_gets_answers_the_spec_declares(served: tuple[Flask, Floor],
                                                      caller: str) -> None:
    app, floor = served
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    headers = {} if caller == "anonymous" else {
        "Authorization": "Bearer " + floor.tokens.get(caller, "da_not-a-token")}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12
    failures: list[str] = []
    for operation in operations:
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case: Any) -> None:
            # A refusal (401, 403) of valid-looking data is right here, and the spec cannot
            # express every rule of a round: those checks judge semantics, not conformance.
            case.call_and_validate(headers=headers, excluded_checks=[
                positive_data_acceptance, negative_data_rejection])

        try:
            run()
        except (Exception, BaseExceptionGroup) as exc:
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
    assert not failures, "\n\n".join(failures)
