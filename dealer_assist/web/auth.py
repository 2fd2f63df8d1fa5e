"""Sign-in and sign-out (Flask-Login sessions), roles, and the ``requires`` decorator."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import wraps
from typing import Any, ParamSpec, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import (
    LoginManager,
    UserMixin,
    current_user,
    login_url,
    login_user,
    logout_user,
)
from flask_wtf import FlaskForm
from werkzeug.wrappers import Response
from wtforms import PasswordField, StringField
from wtforms.validators import DataRequired, Length

from .backend import BackendError, ForbiddenError, UserInfo, allowed, get_backend, refusal
from .security import LoginThrottle, lockout_left

bp = Blueprint("auth", __name__, url_prefix="/auth")
login_manager = LoginManager()
login_manager.login_view = "auth.login"
login_manager.login_message = "Sign in to continue."
login_manager.session_protection = "strong"

P = ParamSpec("P")
R = TypeVar("R")


class User(UserMixin):
    """The signed-in user as Flask-Login sees it."""

    def __init__(self, info: UserInfo) -> None:
        self.info = info

    def get_id(self) -> str:
        return str(self.info.id)

    @property
    def is_active(self) -> bool:
        return self.info.active

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def role(self) -> str:
        return self.info.role

    def can(self, action: str) -> bool:
        return allowed(self.info.roles, action)


@login_manager.user_loader
def _load_user(user_id: str) -> User | None:
    try:
        info = get_backend().load_user(int(user_id))
    except (ValueError, BackendError):
        return None
    return None if info is None or not info.active else User(info)


@login_manager.unauthorized_handler
def _unauthorized() -> Any:
    """Not signed in (or the sign-in expired): a page goes to the sign-in page; a screen's
    fetch gets a 401 in the JSON error shape (following a redirect it would get the
    sign-in page's HTML with a 200, and could not tell the dealer what happened)."""
    from .errors import error_response, wants_json

    if wants_json():
        return error_response(401, "unauthorized", "you are not signed in, or your sign-in "
                              "has expired: sign in again; nothing was done")
    flash(login_manager.login_message)
    return redirect(login_url(login_manager.login_view, request.url))


def signed_in_user() -> User:
    return cast(User, current_user._get_current_object())  # type: ignore[attr-defined]


def requires(action: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Sign-in required, and the user's role must allow ``action`` (else 403)."""

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            if not current_user.is_authenticated:
                return cast(R, current_app.login_manager.unauthorized())  # type: ignore[attr-defined]
            if not signed_in_user().can(action):
                raise ForbiddenError(refusal(signed_in_user().info.roles, action))
            return view(*args, **kwargs)

        wrapped.required_action = action  # type: ignore[attr-defined]
        return wrapped

    return decorate


class LoginForm(FlaskForm):  # type: ignore[misc]
    name = StringField("Name", validators=[DataRequired(), Length(max=80)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=256)])


def _throttle() -> LoginThrottle:
    throttle: LoginThrottle = current_app.extensions["dealer_assist.login_throttle"]
    return throttle


def _from_log() -> bool:
    from .services_backend import ServicesBackend

    return isinstance(get_backend(), ServicesBackend)


def _keys(name: str) -> tuple[str, str]:
    return f"user:{name.lower()}", f"addr:{request.remote_addr}"


def sign_in_wait(name: str) -> int:
    """Seconds until ``name``, or anyone at this client's address, may try a password again
    (0: now), after ``LOGIN_MAX_FAILURES`` failures within ``LOGIN_WINDOW_SECONDS``.

    On the hand log the failures are the audit log's ``user.login_failed`` events since
    the name's (the address's) last ``user.login``: every worker process and a restarted
    server count the same ones. Otherwise (the tests' in-memory backend) this process's.
    """
    config = current_app.config
    rule = {"max_failures": config["LOGIN_MAX_FAILURES"],
            "window": config["LOGIN_WINDOW_SECONDS"], "lockout": config["LOGIN_LOCKOUT_SECONDS"]}
    if not _from_log():
        throttle = _throttle()
        return max(throttle.locked_for(key) for key in _keys(name))
    from dealer_assist.services.signins import recent_sign_ins, unknown_name

    from .store import store

    now = datetime.now(UTC)
    with store() as s:
        events = recent_sign_ins(
            s, now - timedelta(seconds=2 * (rule["window"] + rule["lockout"])))
    wait = 0
    logged_as = {name.lower(), unknown_name(name).lower()}
    for matches in (lambda e: e.name.lower() in logged_as,
                    lambda e: e.address == request.remote_addr):
        failures: list[float] = []
        for event in events:
            if matches(event) and event.ok:
                failures.clear()
            elif matches(event):
                failures.append(event.at.timestamp())
        wait = max(wait, lockout_left(failures, now.timestamp(), **rule))
    return wait


def sign_in_failed(name: str) -> None:
    """Count a failed password for ``name`` from this client (the audit log already has
    it on the hand log)."""
    if not _from_log():
        for key in _keys(name):
            _throttle().failed(key)


def sign_in_succeeded(name: str) -> None:
    if not _from_log():
        for key in _keys(name):
            _throttle().succeeded(key)


def _safe_next(target: str | None) -> str:
    # Browsers read "\\" as "/" ("/\\evil.example" is "//evil.example", another site) and
    # drop tabs and newlines: refuse both, so only a path on this site is followed.
    if target and "\\" not in target and target.isprintable():
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and target.startswith("/") \
                and not target.startswith("//"):
            return target
    return url_for("dealer.tables")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    form = LoginForm()
    error: str | None = None
    status = 200
    if form.validate_on_submit():
        name = form.name.data.strip()
        wait = sign_in_wait(name)
        if wait:
            error = (f"Too many failed sign-ins. Try again in {wait} seconds, "
                     "or ask a supervisor.")
            status = 429
        else:
            info = get_backend().authenticate(name, form.password.data,
                                              address=request.remote_addr)
            if info is None or not info.active:
                sign_in_failed(name)
                error = "Wrong name or password."
                status = 401
            else:
                sign_in_succeeded(name)
                session.clear()
                login_user(User(info))
                session.permanent = True
                return redirect(_safe_next(request.args.get("next")))
    elif request.method == "POST":
        status = 400
        error = "Enter your name and password."
    return render_template("auth/login.html", form=form, error=error), status


@bp.post("/logout")
def logout() -> Response:
    logout_user()
    session.clear()
    flash("Signed out.")
    return redirect(url_for("auth.login"))


def init_app(app: Flask) -> None:
    login_manager.init_app(app)
    app.register_blueprint(bp)

    @app.context_processor
    def _inject() -> dict[str, Any]:
        return {"current_user": current_user}
