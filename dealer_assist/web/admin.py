"""Administration (role admin; every change is an audit event through the services):
casino settings (name, currency, time zone, gaming-day start, shift windows, large-win
threshold), tables, rule-set versions, users, API tokens."""

from __future__ import annotations

import json
from typing import Any
from zoneinfo import available_timezones

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from dealer_assist import services
from dealer_assist.domain.analysis import analyze
from dealer_assist.domain.errors import DomainError
from dealer_assist.domain.rulesets import PRESETS, RuleSet, ruleset_from_json, ruleset_from_presets
from dealer_assist.domain.shift_math import SHIFT_LENGTHS, clock_text
from dealer_assist.services import reporting
from dealer_assist.services.admin import settings_history
from dealer_assist.services.table_settings import set_table_money
from dealer_assist.store.models import ROLES, utcnow

from .auth import requires, signed_in_user
from .backend import BackendError, NotFoundError
from .scan import refused, uploaded_photo
from .shifts import parse_amount
from .store import forget_table, forget_tokens, local_time, store

bp = Blueprint("admin", __name__, url_prefix="/admin")


def _me() -> str:
    return signed_in_user().name


def _cents_or_none(raw: str | None, field: str) -> int | None:
    if raw is None or raw.strip() == "":
        return None
    try:
        value = round(float(raw.replace(",", "").replace("$", "")) * 100)
    except ValueError:
        raise BackendError(f"{field}: an amount like 5000", field) from None
    return value


def _denominations(raw: str | None) -> list[int] | None:
    if raw is None or raw.strip() == "":
        return None
    out = []
    for part in raw.replace(",", " ").split():
        cents = _cents_or_none(part, "chip values")
        if cents is not None:
            out.append(cents)
    return out


def _version_rows(s: Any) -> list[dict[str, Any]]:
    rows = []
    for v in services.list_ruleset_versions(s):
        rules = ruleset_from_json(json.loads(v.rules_json))
        rows.append({"version": v, "rules": rules, "analysis": analyze(rules)})
    return rows


# ---------------------------------------------------------------- tables

@bp.get("/")
@requires("administer")
def index() -> Response:
    return redirect(url_for("admin.tables"))


@bp.get("/tables")
@requires("administer")
def tables() -> str:
    with store() as s:
        rows = services.list_tables(s, include_inactive=True)
        versions = services.list_ruleset_versions(s)
    labels = {}
    for v in versions:
        rules = ruleset_from_json(json.loads(v.rules_json))
        labels[v.id] = v.label or (f"PP {rules.pays_label('pair_plus')}, "
                                   f"AB {rules.pays_label('ante_bonus')}")
    from dealer_assist.services.seat_zones import zones_on_record

    drawn = {t.id: zones_on_record(t.seat_zones) for t in rows}
    return render_template("admin/tables.html", tables=rows, versions=versions, labels=labels,
                           zones={k: v.summary() if v else None for k, v in drawn.items()})


@bp.post("/tables")
@requires("administer")
def create_table() -> Response:
    name = (request.form.get("name") or "").strip()
    seats = int(request.form.get("seats") or 7)
    version_id = request.form.get("ruleset_version_id")
    with store(write=True) as s:
        rules_json = None
        if version_id:
            rules_json = json.loads(services.get_ruleset_version(s, int(version_id)).rules_json)
        services.create_table(s, name, seats, rules_json, actor=_me())
    flash(f"Table {name} added.")
    return redirect(url_for("admin.tables"))


@bp.post("/tables/<name>")
@requires("administer")
def update_table(name: str) -> Response:
    form = request.form
    threshold = _cents_or_none(form.get("large_payout_threshold"), "threshold")
    denominations = _denominations(form.get("chip_denominations"))
    with store(write=True) as s:
        rules_json = None
        if form.get("ruleset_version_id"):
            rules_json = json.loads(services.get_ruleset_version(
                s, int(form["ruleset_version_id"])).rules_json)
        services.update_table(s, name, actor=_me(), seats=int(form.get("seats") or 0) or None,
                              active=form.get("active") == "on", rules_json=rules_json)
        set_table_money(s, name, actor=_me(), large_payout_threshold=threshold,
                        chip_denominations=denominations)
    forget_table(name)
    flash(f"Table {name} saved.")
    return redirect(url_for("admin.tables"))


@bp.post("/tables/<name>/deck")
@requires("administer")
def learn_deck(name: str) -> Response:
    """Teach the reader the table's deck from its own logged scans (``vision enroll-table``),
    and read every scan there with it."""
    from dealer_assist.services.deck_learning import install_deck_file, learn_from_scans
    from dealer_assist.services.deck_photos import MOST_ROUNDS, confirmed_scans

    from .scan import deck_folder, photo_store

    try:
        last = int(request.form.get("last") or 20)
    except ValueError:
        raise BackendError("the number of scanned rounds to learn from is a whole number",
                           field="last") from None
    if not 1 <= last <= MOST_ROUNDS:
        raise BackendError(f"learn from 1 to {MOST_ROUNDS} scanned rounds", field="last")
    with store() as s:
        found = confirmed_scans(s, photo_store(), name, last=last)
    # reading the photos takes about a second each: outside the queue of writers
    try:
        learnt = learn_from_scans(found)
    except services.ServiceError as exc:  # nothing to learn from, no card model
        raise BackendError(exc.message) from None
    with store(write=True) as s:
        _, sha = install_deck_file(s, deck_folder(current_app.config, current_app.instance_path),
                                   found.table, learnt.file_bytes(), actor=_me(),
                                   detail=learnt.detail())
    forget_table(found.table)
    flash(f"Learnt {learnt.summary()}. Scans at {found.table} now read with deck {sha[:12]}.")
    return redirect(url_for("admin.tables"))


@bp.post("/tables/<name>/deck/remove")
@requires("administer")
def remove_deck(name: str) -> Response:
    from dealer_assist.services.deck_learning import remove_deck_file

    from .scan import deck_folder

    with store(write=True) as s:
        remove_deck_file(s, deck_folder(current_app.config, current_app.instance_path), name,
                         actor=_me())
    forget_table(name)
    flash(f"Scans at {name} read without an enrolled deck.")
    return redirect(url_for("admin.tables"))


# ---------------------------------------------------------------- seat zones

@bp.get("/tables/<name>/zones")
@requires("administer")
def zones(name: str) -> str:
    """Draw the table's seat zones on a photo of its empty layout."""
    from dealer_assist.services.seat_zones import MOST_POINTS, zones_on_record

    with store() as s:
        table = services.get_table(s, name)
        record = zones_on_record(table.seat_zones)
        name, seats = table.name, table.seats
    config = {
        "seats": seats, "zones": record.zones if record else {}, "most_points": MOST_POINTS,
        "size": list(record.size) if record and record.size else None,
        "photo": (url_for("admin.zones_photo", name=name)
                  if record and record.photo_sha256 else None)}
    return render_template("admin/zones.html", name=name, seats=seats, record=record,
                           config=config)


@bp.get("/tables/<name>/zones/photo")
@requires("administer")
def zones_photo(name: str) -> Response:
    """The photo of the empty layout the table's seat zones are drawn on."""
    from dealer_assist.services.seat_zones import zones_on_record

    from .scan import photo_response

    with store() as s:
        record = zones_on_record(services.get_table(s, name).seat_zones)
    if record is None or record.photo_sha256 is None:
        raise NotFoundError(f"table {name} has no reference photo of its empty layout")
    return photo_response(record.photo_sha256)


@bp.post("/tables/<name>/zones")
@requires("administer")
def save_zones(name: str) -> Any:
    """Record the zones drawn (``zones``: JSON), on the photo sent (``photo``) or on the
    reference photo on record."""
    from dealer_assist.services.seat_zones import check_empty, draw_zones

    from .errors import wants_json
    from .scan import photo_store

    photo = uploaded_photo(optional=True)  # none chosen: drawn on the photo on record
    if photo is not None:  # the reader looks for cards on it: outside the queue of writers
        try:
            check_empty(photo)
        except services.ServiceError as exc:
            raise refused(exc, "photo") from None
    with store(write=True) as s:
        record = draw_zones(s, photo_store(), name, request.form.get("zones") or "{}",
                            photo=photo, actor=_me(), photo_checked=True)
    forget_table(name)
    message = (f"Seat zones of table {name} saved: {record.summary()}, on reference photo "
               f"{(record.photo_sha256 or '')[:12]}. Scans at {name} now seat hands by them.")
    flash(message)
    page = url_for("admin.zones", name=name)
    if wants_json():
        return jsonify({"message": message, "location": page})
    return redirect(page)


@bp.post("/tables/<name>/zones/clear")
@requires("administer")
def clear_zones(name: str) -> Response:
    from dealer_assist.services.seat_zones import clear_zones as clear

    with store(write=True) as s:
        cleared = clear(s, name, actor=_me())
    forget_table(name)
    flash(f"Seat zones of table {name} taken off: scans there seat hands along the table's "
          f"arc." if cleared else f"Table {name} had no seat zones.")
    return redirect(url_for("admin.zones", name=name))


# ---------------------------------------------------------------- rule sets

def _rules_from_form() -> tuple[RuleSet, str]:
    source = request.form.get("source", "preset")
    try:
        if source == "json":
            text = request.form.get("rules_json") or "{}"
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise BackendError(f"the rule set is not valid JSON: {exc}", "rules_json") \
                    from None
            return ruleset_from_json(data), text
        names = [n for n in request.form.getlist("preset") if n]
        rules = ruleset_from_presets(*names)
        return rules, json.dumps(rules.to_json(), indent=1)
    except DomainError as exc:
        raise BackendError(exc.message, exc.field or "rules_json") from None


@bp.get("/rulesets")
@requires("administer")
def rulesets() -> str:
    with store() as s:
        rows = _version_rows(s)
    return render_template("admin/rulesets.html", rows=rows, presets=list(PRESETS),
                           candidate=None, text="", label="", error=None)


@bp.post("/rulesets")
@requires("administer")
def ruleset_post() -> Any:
    label = (request.form.get("label") or "").strip()[:200] or None
    error = None
    candidate = None
    text = request.form.get("rules_json") or ""
    try:
        rules, text = _rules_from_form()
        if request.form.get("action") == "create":
            with store(write=True) as s:
                version = services.add_ruleset_version(s, rules.to_json(), actor=_me(),
                                                       label=label)
            flash(f"Rule-set version {version.id} stored ({rules.content_hash[:12]}…). "
                  f"Activate it on a table under Tables.")
            return redirect(url_for("admin.rulesets"))
        candidate = {"rules": rules, "analysis": analyze(rules)}
    except BackendError as exc:
        error = exc.message
    with store() as s:
        rows = _version_rows(s)
    return render_template("admin/rulesets.html", rows=rows, presets=list(PRESETS),
                           candidate=candidate, text=text, label=label or "",
                           error=error), 422 if error else 200


# ---------------------------------------------------------------- users

@bp.get("/users")
@requires("administer")
def users() -> str:
    with store() as s:
        rows = services.list_users(s)
    return render_template("admin/users.html", users=rows, roles=ROLES)


@bp.post("/users")
@requires("administer")
def create_user() -> Response:
    name = (request.form.get("name") or "").strip()
    with store(write=True) as s:
        services.create_user(s, name, request.form.getlist("roles"),
                             request.form.get("password") or "", actor=_me())
    flash(f"User {name} added.")
    return redirect(url_for("admin.users"))


@bp.post("/users/<name>")
@requires("administer")
def update_user(name: str) -> Response:
    form = request.form
    kwargs: dict[str, Any] = {}
    if form.get("what") == "roles":
        kwargs["roles"] = form.getlist("roles")
    elif form.get("what") == "active":
        kwargs["active"] = form.get("active") == "1"
    elif form.get("what") == "password":
        kwargs["password"] = form.get("password") or ""
    else:
        raise BackendError("say what to change: roles, active or password", "what")
    with store(write=True) as s:
        services.update_user(s, name, actor=_me(), **kwargs)
    forget_tokens()
    flash(f"User {name}: {form.get('what')} changed.")
    return redirect(url_for("admin.users"))


# ---------------------------------------------------------------- API tokens

@bp.get("/tokens")
@requires("administer")
def tokens() -> str:
    with store() as s:
        rows = services.list_tokens(s)
        names = [u.name for u in services.list_users(s) if u.active]
    return render_template("admin/tokens.html", tokens=rows, users=names, new_token=None)


@bp.post("/tokens")
@requires("administer")
def create_token() -> str:
    owner = request.form.get("user") or ""
    label = (request.form.get("label") or "").strip()[:200] or None
    with store(write=True) as s:
        token = services.create_token(s, owner, label=label, actor=_me())
    with store() as s:
        rows = services.list_tokens(s)
        names = [u.name for u in services.list_users(s) if u.active]
    return render_template("admin/tokens.html", tokens=rows, users=names, new_token=token,
                           new_owner=owner)


@bp.post("/tokens/<int:token_id>/revoke")
@requires("administer")
def revoke_token(token_id: int) -> Response:
    with store(write=True) as s:
        services.revoke_token(s, token_id, actor=_me())
    forget_tokens()
    flash(f"Token {token_id} revoked.")
    return redirect(url_for("admin.tokens"))


# ---------------------------------------------------------------- casino settings

#: Regular shift patterns the form offers (the service accepts any divisor of 24).
PATTERNS = tuple(str(h) for h in SHIFT_LENGTHS)


def _settings_form(settings: Any) -> dict[str, str]:
    """The form's values as stored."""
    starts = settings.shift_starts or []
    return {"name": settings.name, "currency": settings.currency,
            "time_zone": settings.time_zone,
            "large_win_threshold": "" if settings.large_win_threshold is None
            else f"{settings.large_win_threshold / 100:.2f}",
            "gaming_day_start": clock_text(settings.gaming_day_start),
            "pattern": "custom" if starts else str(settings.shift_hours),
            "shift_starts": ", ".join(starts)}


def _render_settings(form: dict[str, str], error: str | None = None,
                     status: int = 200) -> tuple[str, int]:
    with store() as s:
        settings = services.get_settings(s)
        info = reporting.casino(s)
        history = [{"at": local_time(e.at), "actor": e.actor,
                    "changes": ", ".join(f"{k} = {v if v is not None else 'none'}"
                                         for k, v in json.loads(e.payload).items()) or "—"}
                   for e in settings_history(s)]
        updated = local_time(settings.updated_at)
    schedule = info.schedule
    today = schedule.day_of(utcnow())
    day = schedule.gaming_day(today)
    zone = schedule.zone
    preview = {"day": today.isoformat(), "start": local_time(day.start, seconds=False),
               "end": local_time(day.end, seconds=False), "describe": schedule.describe(),
               "windows": [{"label": w.label, "hours": f"{w.hours:g}",
                            "start": local_time(w.start, seconds=False),
                            "end": local_time(w.end, seconds=False)}
                           for w in schedule.windows(today)], "zone": zone}
    return render_template("admin/settings.html", form=form, error=error, preview=preview,
                           history=history, updated=updated, patterns=PATTERNS,
                           zones=sorted(available_timezones())), status


@bp.get("/settings")
@requires("administer")
def settings() -> tuple[str, int]:
    with store() as s:
        form = _settings_form(services.get_settings(s))
    return _render_settings(form)


@bp.post("/settings")
@requires("administer")
def save_settings() -> tuple[str, int] | Response:
    typed = {k: (request.form.get(k) or "").strip() for k in (
        "name", "currency", "time_zone", "large_win_threshold", "gaming_day_start",
        "pattern", "shift_starts")}
    try:
        fields: dict[str, Any] = {
            "name": typed["name"], "currency": typed["currency"],
            "time_zone": typed["time_zone"],
            "large_win_threshold": parse_amount(typed["large_win_threshold"],
                                                "large_win_threshold")
            if typed["large_win_threshold"] else None,
            "gaming_day_start": typed["gaming_day_start"]}
        if typed["pattern"] == "custom":
            if not typed["shift_starts"]:
                raise BackendError("custom shifts: give their start times, like 06:00, "
                                   "14:00, 22:00", "shift_starts")
            fields["shift_starts"] = typed["shift_starts"]
        elif typed["pattern"] in PATTERNS:
            fields["shift_hours"] = int(typed["pattern"])
            fields["shift_starts"] = None
        else:
            raise BackendError("shift pattern: 8, 12 or 24 hours, or custom", "pattern")
        with store(write=True) as s:
            before = services.get_settings(s).updated_at
            after = services.update_settings(s, actor=_me(), **fields).updated_at
    except BackendError as exc:
        if exc.status >= 500 or exc.status == 403:
            raise
        return _render_settings(typed, exc.message, 422)
    flash("Casino settings saved." if after != before else "Nothing changed.")
    return redirect(url_for("admin.settings"))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
