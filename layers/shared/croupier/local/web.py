"""The local page server: the browser front end (the project's ``web/`` folder) and what only the
local stack has, never deployed (it is not in ``template.yaml``):

- ``GET /`` and the page's files (``index.html``, ``app.css``, ``js/*.js``), as they are on disk
  (no build step);
- ``GET /config.json``: where the page finds the API and the WebSocket API, and how it signs in
  (here: the local token endpoint; on AWS the deployed ``config.json`` names the Cognito user pool);
- ``POST /local/token`` ``{"role", "subject", "table"?}``: a local token (the signing key's, as
  ``make local`` prints them) for the role and player chosen on the sign-in page;
- ``POST /local/tables/{table}/devices`` ``{"action": "scan", "cards": [...]}`` (or ``fail``,
  ``cut``, ``shuffle``, ``burn``), with a dealer console's token for that table or a supervisor's:
  puts the table device's events on the local bus exactly as ``croupier device`` does (the same
  code: :func:`croupier.local.devices.device_events` and :class:`~croupier.local.client.
  TableDevices`), and answers what became of each in the table's device log;
- ``POST /local/faults`` ``{"drop": {"method", "route", "count"}}``, with any local token: the API
  loses the next ``count`` answers of that route on purpose (:mod:`croupier.local.faults`; the
  function runs, its answer never arrives), to show what the page does when an answer is lost.

Every request body is validated by a pydantic model that refuses unknown fields; a refusal is a
4xx with the API's error body.
"""

from __future__ import annotations

import json
import mimetypes
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from ..app.errors import AppError, error_body
from ..app.identity import from_claims, issue_local_token, verify_local_token
from ..errors import CroupierError
from ..rules import describe_validation_error

if TYPE_CHECKING:
    from .stack import LocalStack

ID = r"^[A-Za-z0-9_.:@-]+$"
TABLE_ID = r"^[A-Za-z0-9_-]+$"
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
         ".png": "image/png", ".ico": "image/x-icon"}
LOCAL_PLAYERS = ("alice", "bob")
"""The players ``make local``'s walkthrough funds (and its tokens name): the sign-in suggests them."""
LOCAL_TABLE = "bac-1"
"""The table the walkthrough creates: the sign-in suggests it for a dealer console."""
DEVICE_WAIT = 10.0
"""Seconds the devices endpoint waits for each event to be recorded in the table's device log."""


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenRequest(_In):
    role: Literal["player", "operator", "dealer", "supervisor"]
    subject: str = Field(min_length=1, max_length=64, pattern=ID, description="the player's (or console's) id")
    table: str | None = Field(default=None, min_length=1, max_length=40, pattern=TABLE_ID,
                              description="a dealer console: the one table it serves")
    account_kind: Literal["real", "trial", "fun"] = "real"

    @model_validator(mode="after")
    def _table_for_dealers(self) -> TokenRequest:
        if self.role == "dealer" and not self.table:
            raise ValueError("a dealer console serves one table: give 'table'")
        if self.role != "dealer" and self.table:
            raise ValueError("only a dealer console names a table")
        return self


class DeviceRequest(_In):
    action: Literal["scan", "fail", "cut", "shuffle", "burn"]
    cards: list[str] = Field(default_factory=list, max_length=20, description="scan: the cards, in order")
    reason: str = Field(default="unreadable", min_length=1, max_length=100, description="fail: the reader's word")
    shoe_id: str | None = Field(default=None, min_length=1, max_length=40, pattern=TABLE_ID)

    @model_validator(mode="after")
    def _cards_for_scans(self) -> DeviceRequest:
        if (self.action == "scan") != bool(self.cards):
            raise ValueError("'cards' goes with a scan, and a scan needs at least one card")
        return self


class DropAnswers(_In):
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    route: str = Field(min_length=1, max_length=200, pattern=r"^/[A-Za-z0-9_{}/-]*$",
                       description="the route as the template names it: /tables/{table_id}/bets")
    count: int = Field(default=1, ge=0, le=10, description="how many answers to lose (0: none any more)")


class FaultRequest(_In):
    drop: DropAnswers


class Refused(Exception):
    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


def web_root(root: Path) -> Path:
    return root / "web"


class LocalWeb:
    """The WSGI application of the page server; ``stack`` gives the addresses, the key and the bus."""

    def __init__(self, stack: LocalStack, port: int) -> None:
        self.stack, self.port = stack, port
        self.folder = web_root(stack.root).resolve()
        self.urls = Map([
            Rule("/config.json", endpoint="config", methods=["GET"]),
            Rule("/local/token", endpoint="token", methods=["POST"]),
            Rule("/local/tables/<table_id>/devices", endpoint="devices", methods=["POST"]),
            Rule("/local/faults", endpoint="faults", methods=["POST"]),
            Rule("/", endpoint="file", defaults={"path": "index.html"}, methods=["GET"]),
            Rule("/<path:path>", endpoint="file", methods=["GET"]),
        ])
        self._server: BaseWSGIServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def config(self) -> dict[str, Any]:
        return {"mode": "local", "api": self.stack.api_url, "websocket": self.stack.screens.url,
                "local": {"token": "/local/token", "devices": "/local/tables/{table}/devices",
                          "players": list(LOCAL_PLAYERS), "table": LOCAL_TABLE}}

    # --- WSGI --------------------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        try:
            endpoint, args = self.urls.bind_to_environ(environ).match()
            response = getattr(self, f"on_{endpoint}")(request, **args)
        except Refused as refusal:
            response = _json(refusal.status, error_body(refusal.reason, refusal.message))
        except NotFound:
            response = _json(404, error_body("not-found", "no such page or endpoint"))
        except HTTPException as exc:
            response = _json(exc.code or 400, error_body("bad-request", exc.description or "bad request"))
        return response(environ, start_response)

    def on_config(self, request: Request) -> Response:
        return _json(200, self.config(), cache=False)

    def on_file(self, request: Request, path: str) -> Response:
        target = (self.folder / path).resolve()
        if not target.is_relative_to(self.folder) or not target.is_file() or target.name.startswith("."):
            raise NotFound()
        kind = TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        response = Response(target.read_bytes(), status=200, content_type=kind)
        response.headers["Cache-Control"] = "no-cache"  # local: always the files as they are on disk
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    def on_token(self, request: Request) -> Response:
        body = _validated(TokenRequest, request)
        token = issue_local_token(self.stack.jwt_secret, body.subject, body.role, body.account_kind, table=body.table)
        return _json(200, {"token": token, "subject": body.subject, "role": body.role, "table": body.table})

    def on_devices(self, request: Request, table_id: str) -> Response:
        from ..app import store
        from .client import TableDevices
        from .devices import Target, device_events, fate

        who = self._caller(request)
        if who.role not in ("dealer", "supervisor"):
            raise Refused(403, "wrong-role", f"this needs the role dealer or supervisor; you are {who.role}")
        if who.role == "dealer" and who.table != table_id:
            raise Refused(403, "not-your-table", f"this dealer console serves table {who.table}, not {table_id}")
        body = _validated(DeviceRequest, request)
        try:
            table = store.load_table(table_id)
            sends = device_events(body.action, table_id, table.reader_id, cards=body.cards,
                                  reason=body.reason, shoe=body.shoe_id)
        except CroupierError as exc:
            raise Refused(404 if getattr(exc, "status", None) == 404 else 422, exc.reason, str(exc)) from exc
        target = Target(self.stack.outputs["event_bus"], self.stack.outputs["game_table"], "the local stack")
        devices = TableDevices(target.bus, table_id, table.reader_id)
        events = []
        for label, send in sends:
            line, ok = fate(target, table_id, send(devices), DEVICE_WAIT)
            events.append({"sent": label, "fate": line, "ok": ok})
        return _json(200, {"table_id": table_id, "events": events})

    def on_faults(self, request: Request) -> Response:
        from .faults import faults_of

        self._caller(request)
        body = _validated(FaultRequest, request)
        drop = body.drop
        if not any(r.method == drop.method and r.template == drop.route for r in self.stack.routes):
            raise Refused(404, "no-route", f"the API has no route {drop.method} {drop.route}")
        faults_of(self.stack).drop(drop.method, drop.route, drop.count)
        return _json(200, {"drop": drop.model_dump()})

    def _caller(self, request: Request) -> Any:
        scheme, _, token = (request.headers.get("Authorization") or "").partition(" ")
        if scheme != "Bearer" or not token.strip():
            raise Refused(401, "unauthorized", "a valid bearer token is required")
        try:
            return from_claims(verify_local_token(self.stack.jwt_secret, token.strip()))
        except AppError as exc:
            raise Refused(401, "unauthorized", str(exc)) from exc

    # --- the server --------------------------------------------------------------------------
    def start(self) -> LocalWeb:
        self._server = make_server("127.0.0.1", self.port, self, threaded=True, request_handler=_Quiet)
        self._server.daemon_threads = True  # type: ignore[attr-defined]
        self._server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        threading.Thread(target=self._server.serve_forever, name="croupier-local-web", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None


def _validated(model: type[_In], request: Request) -> Any:
    if not (request.mimetype or "").endswith("json"):
        raise Refused(415, "unsupported-media-type", "the request body must be JSON (Content-Type: application/json)")
    try:
        return model.model_validate_json(request.get_data(cache=False, as_text=False) or b"{}")
    except ValidationError as exc:
        raise Refused(422, "invalid-request", describe_validation_error(exc)) from exc


def _json(status: int, body: Any, *, cache: bool = False) -> Response:
    response = Response(json.dumps(body), status=status, content_type="application/json")
    if not cache:
        response.headers["Cache-Control"] = "no-store"
    return response


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        return


def sign_in(page: Any, web_url: str, role: str, subject: str, table: str | None = None) -> None:
    """Signs a browser page (Playwright's) in through the local sign-in form, as a person would:
    the role, then the player (or the dealer console's table); returns once the page shows who is
    signed in (its sign-out button), in whatever language it shows. Used by the browser tests and
    the screenshots."""
    page.goto(f"{web_url}/#/signin")
    page.select_option("select[name=role]", role)
    if role == "dealer":
        page.fill("input[name=table]", table or "")
    else:
        page.fill("input[name=subject]", subject)
    page.click("form button[type=submit]")
    page.wait_for_selector("#who button")
