"""The OpenAPI 3.1 description of ``/api/v1``, written by hand beside the routes it describes
(``tests/web/test_api.py`` checks every route is in it and every path in it is routed)."""

from __future__ import annotations

from typing import Any

from dealer_assist import __version__

_CARD = {"type": "string", "description": "A card: AS, 10H, td, K♠ ...", "examples": ["AS"]}
_CENTS = {"type": "integer", "minimum": 0, "description": "Stake in minor units (cents)"}
_SEAT = {"type": ["integer", "string", "null"], "examples": [3, "dealer"],
         "description": "seat 1-7, \"dealer\", or null (outside every seat zone)"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(c): {"$ref": f"#/components/responses/E{c}"} for c in codes}


SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object", "required": ["error"],
        "properties": {"error": {
            "type": "object", "required": ["code", "message", "field"],
            "properties": {
                "code": {"type": "string", "examples": ["invalid_round"]},
                "message": {"type": "string", "examples": ["seat 3: QS is already in seat 1"]},
                "field": {"type": ["string", "null"], "examples": ["seats[2].cards"]}}}},
    },
    "SeatEntry": {
        "type": "object", "required": ["seat"], "additionalProperties": False,
        "properties": {
            "seat": {"type": "integer", "minimum": 1, "maximum": 7},
            "cards": {"type": "array", "items": _CARD, "minItems": 3, "maxItems": 3},
            "ante": _CENTS, "pair_plus": _CENTS, "six_card": _CENTS, "prime": _CENTS,
            "play": {"type": "boolean", "description": "true: play (stake = ante); false: fold"},
        },
    },
    "Round": {
        "type": "object", "required": ["dealer", "seats"], "additionalProperties": False,
        "description": "A round as DESIGN.md gives it, without \"rules\": the table's active "
                       "rule set applies.",
        "properties": {
            "dealer": {"type": "array", "items": _CARD, "minItems": 3, "maxItems": 3},
            "seats": {"type": "array", "items": _ref("SeatEntry"), "minItems": 1,
                      "maxItems": 7},
            "misdeal": {"type": "boolean"},
            "misdeal_reason": {"type": "string"},
            "photo_sha256": {
                "type": ["string", "null"], "pattern": "^[0-9a-f]{64}$",
                "description": "When logging only: the photo_sha256 a scan of this table "
                               "answered; the round is logged with source \"scan\" and keeps "
                               "the photo (its hash is covered by the round's audit digest)"},
            "approval": {
                "type": "object", "required": ["supervisor", "password"],
                "description": "When logging only: a seat paid over the table's large-payout "
                               "threshold needs a supervisor's approval (unless the token is "
                               "a supervisor's); recorded before the round is logged",
                "properties": {"supervisor": {"type": "string"},
                               "password": {"type": "string"}}},
        },
    },
    "BetResult": {
        "type": "object", "required": ["bet", "outcome", "stake", "net", "reason"],
        "properties": {
            "bet": {"enum": ["ante", "play", "ante_bonus", "pair_plus", "six_card", "prime"]},
            "outcome": {"enum": ["win", "lose", "push", "no_action"]},
            "stake": {"type": "integer"}, "net": {"type": "integer"},
            "reason": {"type": "string"}, "odds": {"type": "integer"},
            "capped": {"type": "integer"}},
    },
    "SeatSettlement": {
        "type": "object", "required": ["seat", "cards", "decision", "bets", "net", "total"],
        "properties": {
            "seat": {"type": "integer"}, "cards": {"type": "array", "items": _CARD},
            "decision": {"enum": ["play", "fold", "none"]},
            "hand": {"type": ["object", "null"]},
            "six_card_hand": {"type": ["string", "null"]},
            "bets": {"type": "array", "items": _ref("BetResult")},
            "net": {"type": "object", "additionalProperties": {"type": "integer"}},
            "total": {"type": "integer"}, "payout_cap_applied": {"type": "integer"}},
    },
    "Settlement": {
        "type": "object", "required": ["dealer", "seats", "total", "rules_hash"],
        "properties": {
            "dealer": {"type": "object"}, "misdeal": {"type": "boolean"},
            "seats": {"type": "array", "items": _ref("SeatSettlement")},
            "total": {"type": "integer", "description": "Net to all players (house wins -total)"},
            "rules_hash": {"type": "string"}},
    },
    "PayPlan": {
        "type": "object",
        "properties": {
            "seat": {"type": "integer"}, "pay": {"type": "integer"},
            "collect": {"type": "integer"}, "net": {"type": "integer"},
            "flagged": {"type": "boolean", "description": "pay is over the table's threshold"},
            "remainder": {"type": "integer"},
            "chips": {"type": "array", "items": {
                "type": "object", "properties": {"denomination": {"type": "integer"},
                                                 "count": {"type": "integer"}}}}},
    },
    "LoggedRound": {
        "type": "object", "required": ["round_id", "serial", "settlement"],
        "properties": {
            "round_id": {"type": "integer"}, "serial": {"type": "integer"},
            "table": {"type": "string"}, "settlement": _ref("Settlement"),
            "replayed": {"type": "boolean",
                         "description": "true when the Idempotency-Key was seen before"},
            "pay_plan": {"type": "array", "items": _ref("PayPlan")}},
    },
    "RoundRecord": {
        "type": "object",
        "required": ["round_id", "table", "serial", "round", "settlement"],
        "properties": {
            "round_id": {"type": "integer"}, "table": {"type": "string"},
            "serial": {"type": "integer"}, "shift_id": {"type": ["integer", "null"]},
            "entered_by": {"type": "string"}, "entered_at": {"type": "string"},
            "status": {"type": "string"}, "round": _ref("Round"),
            "settlement": _ref("Settlement"),
            "events": {"type": "array", "items": {"type": "object"}}},
    },
    "RoundSummary": {
        "type": "object",
        "required": ["round_id", "table", "serial", "total", "status"],
        "properties": {
            "round_id": {"type": "integer"}, "table": {"type": "string"},
            "serial": {"type": "integer"}, "shift_id": {"type": ["integer", "null"]},
            "entered_by": {"type": "string"}, "entered_at": {"type": "string"},
            "dealer_cards": {"type": "array", "items": _CARD},
            "seats": {"type": "integer", "description": "seats with a bet"},
            "total": {"type": "integer", "description": "players' net in cents"},
            "status": {"enum": ["settled", "voided", "corrected", "misdeal"]},
            "source": {"enum": ["manual", "scan", "simulated"]},
            "largest_pay": {"type": "integer",
                            "description": "the most any seat was paid (its winning bets)"},
            "replaces_round_id": {"type": ["integer", "null"],
                                  "description": "set on a correction's new round"}},
    },
    "RoundEvent": {
        "type": "object", "required": ["id", "kind", "reason", "actor", "at"],
        "properties": {
            "id": {"type": "integer"}, "kind": {"enum": ["void", "correction", "misdeal"]},
            "reason": {"type": "string"}, "actor": {"type": "string"},
            "at": {"type": "string", "format": "date-time"},
            "replacement_round_id": {"type": ["integer", "null"]}},
    },
    "AuditEntry": {
        "type": "object", "required": ["chain", "seq", "action", "actor", "at", "hash"],
        "properties": {
            "chain": {"type": "string"}, "seq": {"type": "integer"},
            "action": {"type": "string"}, "actor": {"type": "string"},
            "at": {"type": "string", "format": "date-time"}, "hash": {"type": "string"}},
    },
    "SeatDelta": {
        "type": "object",
        "required": ["seat", "original", "corrected", "difference", "action", "amount"],
        "properties": {
            "seat": {"type": "integer"}, "original": {"type": "integer"},
            "corrected": {"type": "integer"},
            "difference": {"type": "integer", "description": "corrected - original net"},
            "action": {"enum": ["pay", "collect", "none"]},
            "amount": {"type": "integer", "description": "what to pay or collect, cents"}},
    },
    "ScannedCard": {
        "type": "object", "required": ["card", "confidence", "corners", "hand", "seat"],
        "properties": {
            "card": _CARD, "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "corners": {"type": "array", "minItems": 4, "maxItems": 4,
                        "description": "photo pixels, clockwise from the corner whose index "
                                       "reads upright (counter-clockwise in a photo read "
                                       "mirrored, which a note says)",
                        "items": {"type": "array", "items": {"type": "number"},
                                  "minItems": 2, "maxItems": 2}},
            "hand": {"type": "integer", "minimum": 0},
            "seat": _SEAT},
    },
    "ScanResult": {
        "type": "object",
        "required": ["cards", "hands", "needs_confirmation", "photo_sha256", "image"],
        "description": "As `dealer-assist scan --json`, plus the photo's SHA-256 (log the "
                       "round with it: its source is then \"scan\" and the photo is kept)",
        "properties": {
            "cards": {"type": "array", "items": _ref("ScannedCard")},
            "hands": {"type": "array", "items": {
                "type": "object", "required": ["hand", "seat", "cards", "confidence"],
                "properties": {"hand": {"type": "integer"}, "seat": _SEAT,
                               "cards": {"type": "array", "items": _CARD},
                               "confidence": {"type": "number",
                                              "description": "the lowest of its cards"}}}},
            "needs_confirmation": {"type": "array", "items": {
                "type": "object", "required": ["reason"],
                "description": "a doubtful read (low confidence, its doubt on one other "
                               "card, a card seen twice, a hand not of three cards, "
                               "cards that could not be read): the dealer confirms or "
                               "fixes it",
                "properties": {"hand": {"type": ["integer", "null"]}, "seat": _SEAT,
                               "card": {"type": ["string", "null"]},
                               "hands": {"type": "array", "items": {"type": "integer"},
                                         "description": "a card seen twice: every hand "
                                                        "it was read in"},
                               "region": {"type": "array", "minItems": 4, "maxItems": 4,
                                          "items": {"type": "array", "items": {
                                              "type": "number"}, "minItems": 2,
                                              "maxItems": 2},
                                          "description": "a place in the photo to check "
                                                         "(cards that could not be read, a "
                                                         "hand only another read saw or "
                                                         "cards it could not read, a hand "
                                                         "face down), clockwise; with seat "
                                                         "zones, seat is the zone holding it"},
                               "face_down": {"type": "boolean"},
                               "reason": {"type": "string"}}}},
            "image": {"type": "object", "properties": {"width": {"type": "integer"},
                                                       "height": {"type": "integer"}}},
            "threshold": {"type": "number",
                          "description": "cards under this confidence need confirmation"},
            "photo_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "deck_sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$",
                            "description": "the table's enrolled deck on record the photo "
                                           "was read with (`vision enroll-table`, `vision "
                                           "deck install`), or null"},
            "layout_sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$",
                              "description": "the photo of the table's empty layout the "
                                             "photo was compared with (the one its seat "
                                             "zones were drawn on), so the layout's print "
                                             "is not read as cards; or null"},
            "table": {"type": "string"}},
    },
    "Shift": {
        "type": "object", "required": ["id", "table", "open"],
        "properties": {
            "id": {"type": "integer"}, "table": {"type": "string"},
            "opened_at": {"type": "string"}, "opened_by": {"type": "string"},
            "closed_at": {"type": ["string", "null"]}, "open": {"type": "boolean"}},
    },
}

_PDF = {"description": "The report", "content": {"application/pdf": {
    "schema": {"type": "string", "format": "binary"}}}}
_TABLE = {"name": "table", "in": "path", "required": True, "schema": {"type": "string"}}
_ROUND_ID = {"name": "round_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 0, "maximum": 2**53}}
_SHIFT_ID = {"name": "shift_id", "in": "path", "required": True,
             "schema": {"type": "integer", "minimum": 0, "maximum": 2**53}}


def _query(name: str, schema: dict[str, Any], text: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": text}


PATHS: dict[str, Any] = {
    "/tables": {"get": {
        "summary": "Tables with their rule sets and open shift",
        "responses": {"200": _json({"type": "object"}, "The tables"), **_errors(401, 403)}}},
    "/tables/{table}/rounds": {"post": {
        "summary": "Settle and log a round at a table",
        "parameters": [_TABLE, {
            "name": "Idempotency-Key", "in": "header", "required": False,
            "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{8,100}$"},
            "description": "A retried request with the same key returns the first result "
                           "(200, replayed true) and logs nothing twice"}],
        "requestBody": {"required": True,
                        "content": {"application/json": {"schema": _ref("Round")}}},
        "responses": {"201": _json(_ref("LoggedRound"), "Logged"),
                      "200": _json(_ref("LoggedRound"), "Replayed: logged before under this key"),
                      **_errors(400, 401, 403, 404, 409, 415, 422, 503)}}},
    "/tables/{table}/scan": {"post": {
        "summary": "Read every card of a table photo, seated by the table's seat zones",
        "description": "The photo (JPEG or PNG) is the body, or the multipart field photo. "
                       "At most 16 MB and 16 megapixels (refused before decoding: 413). "
                       "Empty, not JPEG/PNG, truncated or corrupt: 422 invalid_image. The "
                       "photo is kept; log the round with its photo_sha256.",
        "parameters": [_TABLE],
        "requestBody": {"required": True, "content": {
            "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}},
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
            "multipart/form-data": {"schema": {
                "type": "object", "required": ["photo"],
                "properties": {"photo": {"type": "string", "format": "binary"}}}}}},
        "responses": {"200": _json(_ref("ScanResult"), "The cards found, and what the "
                                                       "dealer must confirm"),
                      **_errors(400, 401, 403, 404, 413, 422, 503)}}},
    "/photos/{sha256}": {"get": {
        "summary": "A scanned round's photo, as uploaded (supervisor, auditor, admin)",
        "parameters": [{"name": "sha256", "in": "path", "required": True,
                        "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}],
        "responses": {"200": {"description": "The photo", "content": {
            "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}}}},
            **_errors(401, 403, 404)}}},
    "/rounds/{round_id}": {"get": {
        "summary": "A logged round with its settlement and audit trail",
        "parameters": [_ROUND_ID],
        "responses": {"200": _json(_ref("RoundRecord"), "The round"),
                      **_errors(400, 401, 403, 404)}}},
    "/rounds": {"get": {
        "summary": "Logged rounds, newest first",
        "parameters": [
            _query("table", {"type": "string"}, "table name"),
            _query("shift_id", {"type": "integer", "minimum": 1}, "shift"),
            _query("seat", {"type": "integer", "minimum": 1, "maximum": 7},
                   "rounds where this seat had a bet"),
            _query("since", {"type": "string", "format": "date-time"},
                   "entered at or after (ISO 8601; UTC when no offset is given)"),
            _query("until", {"type": "string", "format": "date-time"}, "entered before"),
            _query("card", {"type": "string"}, "rounds where this card was dealt (to the "
                   "dealer or a seat; with seat: in that seat)"),
            _query("bet", {"enum": ["ante", "play", "pair_plus", "six_card", "prime"]},
                   "rounds where a seat staked this bet (play: a seat played)"),
            _query("min_payout", {"type": "integer", "minimum": 0},
                   "rounds where a seat was paid at least this (cents)"),
            _query("status", {"enum": ["settled", "voided", "corrected", "misdeal"]},
                   "status of the round"),
            _query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "default 50"),
            _query("before", {"type": "string", "pattern": "^[0-9]+_[0-9]+$"},
                   "next_before of the previous page"),
            _query("offset", {"type": "integer", "minimum": 0},
                   "default 0 (deprecated: use before; offset > 0 filters by table, shift, "
                   "seat and time only)")],
        "responses": {"200": _json({"type": "object", "properties": {
            "rounds": {"type": "array", "items": _ref("RoundSummary")},
            "count": {"type": "integer"}, "limit": {"type": "integer"},
            "offset": {"type": "integer"},
            "next_before": {"type": ["string", "null"],
                            "description": "pass as before for the next (older) page"},
            "searched_to": {"type": ["string", "null"],
                            "description": "set when a page is short because the search "
                                           "stopped at this time; next_before goes on"}}},
            "The rounds"), **_errors(400, 401, 403, 404)}}},
    "/rounds/{round_id}/void": {"post": {
        "summary": "Void a round, or declare it a misdeal, with a reason (supervisor)",
        "parameters": [_ROUND_ID],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["reason"],
            "properties": {"reason": {"type": "string", "minLength": 1},
                           "kind": {"enum": ["void", "misdeal"]}}}}}},
        "responses": {"201": _json({"type": "object", "required": ["round_id", "status",
                                                                     "event"],
                                    "properties": {"round_id": {"type": "integer"},
                                                   "status": {"enum": ["voided", "misdeal"]},
                                                   "event": _ref("RoundEvent")}},
                                   "Voided; the round stays in the log, marked"),
                      **_errors(400, 401, 403, 404, 409, 503)}}},
    "/rounds/{round_id}/corrections": {"post": {
        "summary": "Correct a round: log the right one, linked (supervisor)",
        "parameters": [_ROUND_ID],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["round", "reason"],
            "properties": {"round": _ref("Round"),
                           "reason": {"type": "string", "minLength": 1}}}}}},
        "responses": {"201": _json({"type": "object", "required": ["round_id", "serial",
                                                                     "corrects_round_id",
                                                                     "deltas"],
                                    "properties": {
                                        "round_id": {"type": "integer"},
                                        "serial": {"type": "integer"},
                                        "table": {"type": "string"},
                                        "settlement": _ref("Settlement"),
                                        "corrects_round_id": {"type": "integer"},
                                        "deltas": {"type": "array",
                                                   "items": _ref("SeatDelta")}}},
                                   "The new round, and per seat what to pay or collect"),
                      **_errors(400, 401, 403, 404, 409, 422, 503)}}},
    "/rounds/{round_id}/audit": {"get": {
        "summary": "A round's audit trail: its chain events, voids and corrections",
        "parameters": [_ROUND_ID],
        "responses": {"200": _json({"type": "object", "required": ["round_id", "audit",
                                                                     "events"],
                                    "properties": {
                                        "round_id": {"type": "integer"},
                                        "status": {"type": "string"},
                                        "audit": {"type": "array",
                                                  "items": _ref("AuditEntry")},
                                        "events": {"type": "array",
                                                   "items": _ref("RoundEvent")},
                                        "replaces_round_id": {"type": ["integer", "null"]},
                                        "replaced_by_round_id": {"type": ["integer", "null"]},
                                        "stored_matches": {"type": ["boolean", "null"]}}},
                                   "The trail"), **_errors(400, 401, 403, 404)}}},
    "/rulesets/{version_id}/analysis": {"get": {
        "summary": "Exact house edge, element of risk, strategy and odds of a rule-set version",
        "parameters": [{"name": "version_id", "in": "path", "required": True,
                        "schema": {"type": "integer", "minimum": 0, "maximum": 2**53}}],
        "responses": {"200": _json({"type": "object",
                                    "required": ["ruleset_version", "rules", "analysis"],
                                    "properties": {
                                        "ruleset_version": {"type": "integer"},
                                        "label": {"type": ["string", "null"]},
                                        "rules": {"type": "object"},
                                        "analysis": {
                                            "type": "object",
                                            "required": ["ante_play", "pair_plus", "six_card",
                                                         "prime", "dealer_qualifies",
                                                         "rules_hash"]}}},
                                   "As `dealer-assist analyze --json`: floats plus exact "
                                   "fractions as strings"),
                      **_errors(400, 401, 403, 404, 503)}}},
    "/tables/{table}/shifts": {"post": {
        "summary": "Open a shift at a table (supervisor, admin)",
        "parameters": [_TABLE],
        "responses": {"201": _json(_ref("Shift"), "Opened"),
                      **_errors(400, 401, 403, 404, 409, 503)}}},
    "/shifts/{shift_id}/close": {"post": {
        "summary": "Close a shift (supervisor, admin)",
        "parameters": [_SHIFT_ID],
        "responses": {"200": _json(_ref("Shift"), "Closed"),
                      **_errors(400, 401, 403, 404, 409, 503)}}},
    "/shifts/{shift_id}/report.pdf": {"get": {
        "summary": "Shift audit report, PDF (supervisor, auditor, admin)",
        "parameters": [_SHIFT_ID,
                       _query("auditor", {"type": "string"}, "name under the auditor's line")],
        "responses": {"200": _PDF, **_errors(400, 401, 403, 404, 503)}}},
    "/rounds/{round_id}/dispute.pdf": {"get": {
        "summary": "One-page dispute sheet of a round, PDF (supervisor, auditor, admin)",
        "parameters": [_ROUND_ID,
                       _query("auditor", {"type": "string"}, "name under the auditor's line")],
        "responses": {"200": _PDF, **_errors(400, 401, 403, 404, 503)}}},
    "/reports/day.pdf": {"get": {
        "summary": "Daily floor report, PDF (supervisor, auditor, admin)",
        "parameters": [
            {"name": "date", "in": "query", "required": True,
             "schema": {"type": "string", "format": "date"}, "description": "gaming day"},
            _query("day_start", {"type": "string", "examples": ["06:00"]},
                   "when the gaming day starts (casino time)"),
            _query("shift_hours", {"type": "integer", "enum": [8, 12, 24]}, "shift length"),
            _query("auditor", {"type": "string"}, "name under the auditor's line")],
        "responses": {"200": _PDF, **_errors(400, 401, 403, 503)}}},
    "/openapi.json": {"get": {
        "summary": "This description", "security": [],
        "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1")}}},
}


def spec() -> dict[str, Any]:
    responses = {
        f"E{code}": _json(_ref("Error"), text)
        for code, text in {400: "Bad request", 401: "Missing or invalid token",
                           403: "Role not allowed (or a large payout without a supervisor's "
                                "approval: code approval_required)", 404: "Not found",
                           413: "Too large (the photo is over the byte or pixel limit)",
                           409: "Conflict (no open shift, shift already open or closed)",
                           415: "Not JSON",
                           422: "The round is not valid (the message names seat and "
                                "problem), or the photo is not one the scanner reads",
                           503: "The database is unavailable; nothing was written"}.items()}
    return {
        "openapi": "3.1.0",
        "info": {"title": "dealer_assist API", "version": __version__,
                 "description": "Settle and log Three Card Poker rounds. Amounts in cents."},
        "servers": [{"url": "/api/v1"}],
        "security": [{"bearer": []}],
        "paths": PATHS,
        "components": {
            "schemas": SCHEMAS, "responses": responses,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "dealer-assist token add USER"}}},
    }
