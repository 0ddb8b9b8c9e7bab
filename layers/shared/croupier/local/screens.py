"""The local stack's WebSocket API: the routes of ``template.yaml``'s ``AWS::ApiGatewayV2`` API,
served on a local port (the ``websockets`` library), and its management endpoint
(``POST``/``DELETE``/``GET /@connections/{id}``, what ``apigatewaymanagementapi`` calls) on another.

As API Gateway does: a connection's ``$connect`` route runs with the request's query string
(``?token=``) and a refusal (non-2xx) refuses the handshake; each message is routed by the
route selection expression (``$request.body.action``) to its route, or ``$default``; a closed
connection runs ``$disconnect``. Each route's function is called with the proxy event API Gateway
gives it. A post to a connection that is gone answers 410 (``GoneException``).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

ACCOUNT = "123456789012"


class LocalScreens:
    def __init__(self, port: int = 0, manage_port: int = 0) -> None:
        from .stack import free_port

        self.port = port or free_port()
        self.manage_port = manage_port or free_port()
        self.routes: dict[str, str] = {}
        """Route key -> function name."""
        self.selection = "$request.body.action"
        self.stack: Any = None
        self.connections: dict[str, Any] = {}
        self.sent = 0
        self._lock = threading.Lock()
        self._lost: set[str] = set()
        self._servers: list[Any] = []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def management_url(self) -> str:
        return f"http://127.0.0.1:{self.manage_port}"

    def configure(self, template: dict[str, Any], resolver: Any, stack: Any) -> None:
        """Read the WebSocket API's routes and integrations from the template."""
        self.stack = stack
        resources = template["Resources"]
        integrations: dict[str, str] = {}
        for logical, spec in resources.items():
            props = spec.get("Properties", {})
            if spec["Type"] == "AWS::ApiGatewayV2::Api" and props.get("ProtocolType") == "WEBSOCKET":
                self.selection = props.get("RouteSelectionExpression", self.selection)
            elif spec["Type"] == "AWS::ApiGatewayV2::Integration":
                uri = str(resolver.resolve(props["IntegrationUri"]))
                integrations[str(resolver.refs[logical])] = uri.split(":function:")[1].split("/")[0]
        for spec in resources.values():
            if spec["Type"] == "AWS::ApiGatewayV2::Route":
                props = spec["Properties"]
                target = str(resolver.resolve(props["Target"])).split("/", 1)[1]  # integrations/{id}
                self.routes[props["RouteKey"]] = integrations[target]

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> LocalScreens:
        from websockets.sync.server import serve

        server = serve(self._connection, "127.0.0.1", self.port, process_request=self._handshake)
        threading.Thread(target=server.serve_forever, name="croupier-local-screens", daemon=True).start()
        manage = ThreadingHTTPServer(("127.0.0.1", self.manage_port), _management_handler(self))
        manage.daemon_threads = True
        threading.Thread(target=manage.serve_forever, name="croupier-local-screens-api", daemon=True).start()
        self._servers = [server, manage]
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
        self._servers = []

    # --- the routes --------------------------------------------------------------------------
    def _event(self, route: str, kind: str, connection_id: str, body: str | None = None,
               query: dict[str, str] | None = None) -> dict[str, Any]:
        return {"requestContext": {"routeKey": route, "eventType": kind, "connectionId": connection_id,
                                   "domainName": f"127.0.0.1:{self.port}", "stage": "local", "apiId": "local",
                                   "requestId": str(uuid.uuid4()), "connectedAt": int(time.time() * 1000),
                                   "accountId": ACCOUNT, "identity": {"sourceIp": "127.0.0.1"}},
                "queryStringParameters": query or None, "body": body, "isBase64Encoded": False}

    def _run(self, route: str, event: dict[str, Any]) -> dict[str, Any]:
        function = self.routes.get(route) or self.routes.get("$default")
        if function is None:
            return {"statusCode": 404}
        answer: dict[str, Any] = self.stack.invoke(function, event) or {}
        return answer

    def _handshake(self, connection: Any, request: Any) -> Any:
        connection_id = _connection_id(connection)
        query = {k: v[-1] for k, v in parse_qs(urlsplit(request.path).query).items()}
        answer = self._run("$connect", self._event("$connect", "CONNECT", connection_id, query=query))
        status = int(answer.get("statusCode", 200))
        if not 200 <= status < 300:
            return connection.respond(status, str(answer.get("body") or "Unauthorized") + "\n")
        return None

    def _connection(self, connection: Any) -> None:
        connection_id = _connection_id(connection)
        with self._lock:
            self.connections[connection_id] = connection
        try:
            for message in connection:
                text = message if isinstance(message, str) else message.decode("utf-8", "replace")
                route = self._route_of(text)
                try:
                    self._run(route, self._event(route, "MESSAGE", connection_id, text))
                except Exception as exc:  # the route's function failed: as API Gateway, say so, keep the connection
                    connection.send(json.dumps({"message": "Internal server error", "detail": type(exc).__name__}))
        except Exception:  # a connection that broke: it is gone all the same
            pass
        finally:
            with self._lock:
                self.connections.pop(connection_id, None)
                lost = connection_id in self._lost
            if not lost:
                self._run("$disconnect", self._event("$disconnect", "DISCONNECT", connection_id))

    def _route_of(self, text: str) -> str:
        """The route selection expression ``$request.body.<field>`` applied to a message."""
        field = self.selection.rsplit(".", 1)[-1]
        try:
            key = json.loads(text).get(field)
        except (ValueError, AttributeError):
            key = None
        return key if isinstance(key, str) and key in self.routes else "$default"

    # --- the management endpoint -------------------------------------------------------------
    def post(self, connection_id: str, data: bytes) -> bool:
        with self._lock:
            connection = self.connections.get(connection_id)
        if connection is None:
            return False
        try:
            connection.send(data.decode("utf-8"))
        except Exception:
            return False
        self.sent += 1
        return True

    def close(self, connection_id: str) -> bool:
        with self._lock:
            connection = self.connections.get(connection_id)
        if connection is None:
            return False
        connection.close()
        return True


    def lose(self, connection_id: str) -> None:
        """Drop a connection as a network does: no ``$disconnect`` runs (API Gateway delivers it on a
        best-effort basis), so only a post that finds it gone can clean it up."""
        with self._lock:
            self._lost.add(connection_id)
            connection = self.connections.pop(connection_id, None)
        if connection is not None:
            connection.close()


def _connection_id(connection: Any) -> str:
    return str(connection.id).replace("-", "")[:16] + "="


def _management_handler(screens: LocalScreens) -> type[BaseHTTPRequestHandler]:
    class Management(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _answer(self, status: int, body: dict[str, Any] | None = None, error: str | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if error:
                self.send_header("x-amzn-ErrorType", error)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _id(self) -> str | None:
            path = urlsplit(self.path).path
            marker = "/@connections/"
            return unquote(path.split(marker, 1)[1]) if marker in path else None

        def do_POST(self) -> None:
            connection_id = self._id()
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if connection_id is None or not screens.post(connection_id, data):
                self._answer(410, {"message": "the connection is gone"}, "GoneException")
                return
            self._answer(200)

        def do_DELETE(self) -> None:
            connection_id = self._id()
            if connection_id is None or not screens.close(connection_id):
                self._answer(410, {"message": "the connection is gone"}, "GoneException")
                return
            self._answer(204)

        def do_GET(self) -> None:
            connection_id = self._id()
            if connection_id is None or connection_id not in screens.connections:
                self._answer(410, {"message": "the connection is gone"}, "GoneException")
                return
            self._answer(200, {"ConnectedAt": "", "Identity": {"SourceIp": "127.0.0.1"}})

    return Management
