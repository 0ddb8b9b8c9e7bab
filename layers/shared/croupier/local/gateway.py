"""The local API gateway: API Gateway's REST API in front of the local stack's HTTP functions.

A WSGI application served by werkzeug's threaded server (a thread per connection, a listen
backlog of 128; werkzeug closes each connection after its answer, having read what was left of
the request). For every request it does what API Gateway does before and
after the function:

- matches the template's routes on the path's segments, each percent-decoded (UTF-8): an encoded
  ``/`` stays inside its segment; an unknown route or method is the ``MISSING_AUTHENTICATION_TOKEN``
  answer (404 ``no-route``);
- answers a CORS preflight (``OPTIONS`` on a known path) itself, as the template's ``Cors``
  setting makes API Gateway do, with the methods defined on that path;
- checks the bearer token as the Cognito authorizer does (a local signing key): no token, or one
  that is malformed, expired, forged, tampered with or of another algorithm, is the
  ``UNAUTHORIZED`` answer (401);
- refuses a malformed request with a 4xx before any function runs: a ``Content-Length`` that is
  not one decimal number (``abc``, ``-1``, ``1, 2``), a body shorter than its ``Content-Length``,
  a body over 10 MB, a path that is not percent-encoded UTF-8, a request line or headers the HTTP
  parser refuses;
- turns the request into the REST proxy event and the function's answer into the HTTP answer; a
  function that fails is the ``DEFAULT_5XX`` answer (502).

Every answer the gateway gives itself has the application's error body and the CORS origin header,
as ``template.yaml``'s GatewayResponses give them on AWS. Nothing is ever answered by dropping
the connection, except on purpose: an answer the local stack was asked to lose
(:mod:`croupier.local.faults`) is never sent, its connection closed after the function ran.
"""

from __future__ import annotations

import base64
import json
import re
import socket
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from ..app.errors import CORS_ALLOW_HEADERS, GATEWAY_ERRORS, AppError, error_body
from ..app.identity import verify_local_token
from .faults import faults_of

if TYPE_CHECKING:
    from .stack import LocalStack

MAX_BODY = 10 * 1024 * 1024
"""API Gateway's payload limit."""
READ_TIMEOUT = 30.0
"""Seconds a connection may stay silent before its request is complete."""
_DIGITS = re.compile(r"[0-9]{1,20}")
StartResponse = Callable[..., Any]


class Refusal(Exception):
    """An answer of the gateway itself: ``kind`` is an API Gateway response type."""

    def __init__(self, kind: str, message: str | None = None, status: int | None = None, close: bool = False) -> None:
        default_status, self.reason, default_message = GATEWAY_ERRORS[kind]
        self.status = status or default_status
        self.message = message or default_message
        self.close = close
        super().__init__(self.message)


class _Dropped(Exception):
    """The function ran; its answer is to be lost on purpose (:mod:`croupier.local.faults`)."""


class LocalGateway:
    """The WSGI application; ``stack`` gives the routes, the token key and the functions."""

    def __init__(self, stack: LocalStack) -> None:
        self.stack = stack

    # --- WSGI --------------------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        try:
            status, headers, body = self.handle(environ)
        except _Dropped:
            status, headers, body = self.refusal(Refusal("DEFAULT_5XX", "the answer was lost on purpose"))
            connection = environ.get("werkzeug.socket")
            if connection is not None:  # the caller sees the connection close, and no answer
                start_response(f"{status} {_phrase(status)}", headers)
                connection.shutdown(socket.SHUT_RDWR)
                return [b""]
        except Refusal as refusal:
            status, headers, body = self.refusal(refusal)
        except Exception as exc:  # a bug of the gateway or the stack: still an answer, never a dropped connection
            status, headers, body = self.refusal(Refusal("DEFAULT_5XX", f"internal error: {type(exc).__name__}"))
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        headers.append(("Content-Length", str(len(body))))
        start_response(f"{status} {_phrase(status)}", headers)
        return [body]

    def refusal(self, refusal: Refusal) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = [("Content-Type", "application/json"), *self.cors_headers()]
        if refusal.close:
            headers.append(("Connection", "close"))
        return refusal.status, headers, json.dumps(error_body(refusal.reason, refusal.message)).encode()

    def cors_headers(self) -> list[tuple[str, str]]:
        """What the GatewayResponses add to every answer of the gateway itself."""
        return [("Access-Control-Allow-Origin", self.stack.cors_origin)]

    # --- one request -------------------------------------------------------------------------
    def handle(self, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
        method = str(environ.get("REQUEST_METHOD", "GET")).upper()
        raw = urlsplit(str(environ.get("REQUEST_URI") or environ.get("RAW_URI") or environ.get("PATH_INFO", "/")))
        segments = self.segments(raw.path)
        length = self.content_length(environ)  # before anything else: the request's end must be known
        if method == "OPTIONS":
            return self.preflight(segments)
        found = self.stack.match(method, segments)
        if found is None:
            raise Refusal("MISSING_AUTHENTICATION_TOKEN")
        route, params = found
        headers = self.headers(environ)
        body = self.body(environ, length)
        claims = None if route.public else self.claims(headers)
        path = "/" + "/".join(segments)
        event = self.stack.proxy_event(route, params, method, path, raw.query, headers, body, claims)
        try:
            result = self.stack.invoke(route.function, event)
        except Exception as exc:
            raise Refusal("DEFAULT_5XX", f"the function failed: {type(exc).__name__}") from exc
        if faults_of(self.stack).take_drop(method, route.template, path):
            raise _Dropped()
        return self.answer(result)

    @staticmethod
    def segments(path: str) -> list[str]:
        if not path.startswith("/"):
            raise Refusal("MISSING_AUTHENTICATION_TOKEN")
        try:
            return [unquote(part, errors="strict") for part in path[1:].split("/")]
        except UnicodeDecodeError as exc:
            raise Refusal("DEFAULT_4XX", "the path is not percent-encoded UTF-8") from exc

    @staticmethod
    def content_length(environ: dict[str, Any]) -> int | None:
        """The declared body length; None for none (or a chunked body). Anything but one decimal
        number is refused, and the connection closed: where this request ends is unknown."""
        declared = environ.get("CONTENT_LENGTH")
        if environ.get("wsgi.input_terminated") or declared is None or declared == "":
            return None
        text = str(declared).strip()
        if not _DIGITS.fullmatch(text):
            raise Refusal("DEFAULT_4XX", f"Content-Length must be one whole number of bytes, not {text[:40]!r}",
                          close=True)
        length = int(text)
        if length > MAX_BODY:
            raise Refusal("REQUEST_TOO_LARGE", close=True)
        return length

    @staticmethod
    def body(environ: dict[str, Any], length: int | None) -> str | None:
        stream = environ["wsgi.input"]
        try:
            if length is None:
                if not environ.get("wsgi.input_terminated"):
                    return None
                data = stream.read(MAX_BODY + 1)  # a chunked body: read to its end
                if len(data) > MAX_BODY:
                    raise Refusal("REQUEST_TOO_LARGE", close=True)
            else:
                data = _read_exactly(stream, length)
        except (OSError, ValueError) as exc:  # a timeout, a reset, a malformed chunk
            raise Refusal("DEFAULT_4XX", "the request body could not be read", close=True) from exc
        if length is not None and len(data) < length:
            raise Refusal("DEFAULT_4XX", f"the body has {len(data)} bytes, its Content-Length says {length}",
                          close=True)
        return data.decode("utf-8", errors="replace") if data else None

    @staticmethod
    def headers(environ: dict[str, Any]) -> dict[str, str]:
        """The request's headers by name (WSGI keeps them upper-cased: given back as ``Title-Case``)."""
        out: dict[str, str] = {}
        for key, value in environ.items():
            if key.startswith("HTTP_"):
                name = key[5:]
            elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
                name = key
            else:
                continue
            out["-".join(word.capitalize() for word in name.split("_"))] = str(value)
        return out

    def claims(self, headers: dict[str, str]) -> dict[str, Any]:
        auth = headers.get("Authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme != "Bearer" or not token.strip():
            raise Refusal("UNAUTHORIZED")
        try:
            return verify_local_token(self.stack.jwt_secret, token.strip())
        except AppError as exc:
            raise Refusal("UNAUTHORIZED") from exc

    def preflight(self, segments: list[str]) -> tuple[int, list[tuple[str, str]], bytes]:
        """API Gateway's mock answer to a CORS preflight on a path of the API."""
        methods = self.stack.methods_at(segments)
        if not methods:
            raise Refusal("MISSING_AUTHENTICATION_TOKEN")
        return 200, [("Content-Type", "application/json"), *self.cors_headers(),
                     ("Access-Control-Allow-Methods", ",".join([*methods, "OPTIONS"])),
                     ("Access-Control-Allow-Headers", ",".join(CORS_ALLOW_HEADERS)),
                     ("Access-Control-Max-Age", "600")], b""

    @staticmethod
    def answer(result: Any) -> tuple[int, list[tuple[str, str]], bytes]:
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            raise Refusal("DEFAULT_5XX", "the function's answer is not a proxy response")
        headers = {str(k): str(v) for k, v in (result.get("headers") or {}).items()}
        for key, values in (result.get("multiValueHeaders") or {}).items():
            if values:
                headers[str(key)] = str(values[-1])
        if not any(k.lower() == "content-type" for k in headers):
            headers["Content-Type"] = "application/json"
        text = result.get("body") or ""
        body = base64.b64decode(text) if result.get("isBase64Encoded") else str(text).encode()
        return int(result["statusCode"]), list(headers.items()), body


def _read_exactly(stream: Any, length: int) -> bytes:
    chunks, left = [], length
    while left > 0:
        chunk = stream.read(min(left, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _phrase(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


class _Handler(WSGIRequestHandler):
    """werkzeug's request handler, quiet, with a read timeout, answering what its HTTP parser
    refuses (a bad request line, headers too long or too many) with the error body."""

    timeout = READ_TIMEOUT

    def log_request(self, *args: Any, **kwargs: Any) -> None:
        return

    def log_error(self, *args: Any) -> None:
        return

    def log_message(self, format: str, *args: Any) -> None:
        return

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        code = 400 if code >= 500 else code  # an HTTP version the parser does not know: the client's request
        if self.request_version == "HTTP/0.9":  # the request line was not read: answer with a status line all the same
            self.request_version = "HTTP/1.1"
        reason = {400: "bad-request", 408: "request-timeout", 414: "uri-too-long", 431: "headers-too-large",
                  501: "not-implemented", 505: "http-version-not-supported"}.get(code, "bad-request")
        text = message or explain or _phrase(code)
        body = json.dumps(error_body(reason, f"the HTTP request is malformed: {text}")).encode()
        origin = getattr(self.server, "cors_origin", "*")
        try:
            self.send_response(code, _phrase(code))
            self.send_header("Content-Type", "application/json")
            self.send_header("Access-Control-Allow-Origin", origin)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                self.wfile.write(body)
        except OSError:  # the client has gone: nobody to answer
            pass
        self.close_connection = True


def serve(stack: LocalStack, host: str, port: int) -> BaseWSGIServer:
    """The local gateway's server, bound and ready for ``serve_forever``."""
    server = make_server(host, port, LocalGateway(stack), threaded=True, request_handler=_Handler)
    server.daemon_threads = True  # type: ignore[attr-defined]
    server.cors_origin = stack.cors_origin  # type: ignore[attr-defined]
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    return server
