"""The local stack's WebSocket API: the routes of ``template.yaml``'s ``AWS::ApiGatewayV2`` API,
served on a local port (the ``websockets`` library), and its management endpoint
(``POST``/``DELETE``/``GET /@connections/{id}``, what ``apigatewaymanagementapi`` calls) on another.

As API Gateway does: a connection's ``$connect`` route runs with the request's query string
(``?token=``) and a refusal (non-2xx) refuses the handshake; each message is routed by the
route selection expression (``$request.body.action``) to its route, or ``$default``; a closed
connection runs ``$disconnect``. Each route's function is called with the proxy event API Gateway
gives it. A post to a connection that is gone answers 410 (``GoneException``).

It runs in a process of its own (``python -m croupier.local.screens``), with the consumer of the
push queue: on AWS the WebSocket API and the push functions are not the game's functions, and
here posting to thousands of screens must not take the game's process (its interpreter lock)
either. The routes' functions (``$connect``, ``subscribe`` ...) still run in the stack's process:
this process invokes them through the local Lambda endpoint, as API Gateway would. The push
function runs here, on the events of the push queue, as its SQS event source would run it.
:class:`LocalScreens` starts and speaks to that process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

ACCOUNT = "123456789012"
MAX_MESSAGE = 128 * 1024


class LocalScreens:
    """The stack's screens: their configuration from the template, their start and stop, and what
    the tests and the demo ask of them (messages sent, a connection lost). In the stack's process
    by default; ``separate``: in a process of their own, with the push queue's consumer."""

    def __init__(self, port: int = 0, manage_port: int = 0, *, separate: bool = False) -> None:
        from .stack import free_port

        self.port = port or free_port()
        self.manage_port = manage_port or free_port()
        self.routes: dict[str, str] = {}
        """Route key -> function name."""
        self.selection = "$request.body.action"
        self.push: dict[str, Any] | None = None
        """The push queue's consumer: function name, handler file, environment, queue URL, batch size."""
        self._process: subprocess.Popen[str] | None = None
        self.separate = separate
        self._stack: Any = None
        self._server: ScreensServer | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def management_url(self) -> str:
        return f"http://127.0.0.1:{self.manage_port}"

    def configure(self, template: dict[str, Any], resolver: Any, stack: Any) -> None:
        """Read the WebSocket API's routes and integrations from the template."""
        self._stack = stack
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

    def consume(self, function_name: str, handler_file: Path, handler: str, environment: dict[str, str],
                queue_url: str, batch_size: int) -> None:
        """Let this process be the SQS event source of the push queue's function."""
        self.push = {"function": function_name, "file": str(handler_file), "handler": handler,
                     "environment": environment, "queue_url": queue_url, "batch_size": batch_size}

    def start(self) -> LocalScreens:
        if not self.separate:
            self._server = ScreensServer(self.port, self.manage_port, self.routes, self.selection,
                                         self._stack.invoke).start()
            return self
        config = {"port": self.port, "manage_port": self.manage_port, "routes": self.routes,
                  "selection": self.selection, "push": self.push}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "croupier.local.screens", json.dumps(config)], stdout=subprocess.PIPE,
            stdin=subprocess.PIPE, text=True, env=os.environ.copy())  # its stdin closes when this process ends
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if line.strip() != "ready":
            self.stop()
            raise RuntimeError(f"the local screens did not start: {line.strip() or 'no answer'}")
        threading.Thread(target=self._relay, args=(self._process.stdout,), name="croupier-local-screens-out",
                         daemon=True).start()
        return self

    @staticmethod
    def _relay(out: Any) -> None:
        """The push function's log lines, printed as the stack's own functions' are (never left
        to fill the pipe)."""
        for line in out:
            sys.stdout.write(line)

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
            self._process = None

    def _ask(self, method: str, path: str) -> dict[str, Any]:
        request = urllib.request.Request(f"{self.management_url}{path}", method=method, data=b"" if method == "POST"
                                         else None)
        with urllib.request.urlopen(request, timeout=30) as answer:
            out: dict[str, Any] = json.loads(answer.read() or b"{}")
            return out

    def stats(self) -> dict[str, Any]:
        """Messages posted to screens, connections open, and the push function's invocations."""
        return self._ask("GET", "/@stats")

    @property
    def sent(self) -> int:
        return int(self.stats()["sent"])

    def lose(self, connection_id: str) -> None:
        """Drop a connection as a network does: no ``$disconnect`` runs (API Gateway delivers it on a
        best-effort basis), so only a post that finds it gone can clean it up."""
        self._ask("POST", f"/@lose/{connection_id}")


class ScreensServer:
    """The WebSocket API and its management endpoint, in the screens' process. ``invoke`` runs a
    route's function (in the stack's process, through the local Lambda endpoint)."""

    def __init__(self, port: int, manage_port: int, routes: dict[str, str], selection: str,
                 invoke: Callable[[str, dict[str, Any]], dict[str, Any]]) -> None:
        self.port, self.manage_port = port, manage_port
        self.routes, self.selection, self.invoke = routes, selection, invoke
        self.connections: dict[str, Any] = {}
        self.sent = 0
        self.push_invocations = 0
        self._lock = threading.Lock()
        self._lost: set[str] = set()
        self._servers: list[Any] = []

    def start(self) -> ScreensServer:
        from websockets.sync.server import serve

        # API Gateway takes a WebSocket message of up to 128 KB (frames of 32 KB): a larger one closes
        # the connection (1009), as here. It sends no pings of its own (a connection idle for 10
        # minutes is closed), so neither does this server: its keepalive would also draw from the
        # `random` module's shared generator, in its threads, under a test that seeded it
        server = serve(self._connection, "127.0.0.1", self.port, process_request=self._handshake,
                       max_size=MAX_MESSAGE, ping_interval=None)
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
        return self.invoke(function, event) or {}

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
        except (ValueError, AttributeError, RecursionError):  # not JSON, not an object, nested too deep
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
        with self._lock:
            self._lost.add(connection_id)
            connection = self.connections.pop(connection_id, None)
        if connection is not None:
            connection.close()


def _connection_id(connection: Any) -> str:
    return str(connection.id).replace("-", "")[:16] + "="


def _management_handler(screens: ScreensServer) -> type[BaseHTTPRequestHandler]:
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
            if self.path.startswith("/@lose/"):
                screens.lose(unquote(self.path.removeprefix("/@lose/")))
                self._answer(200, {})
                return
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
            if self.path == "/@stats":
                with screens._lock:
                    open_now = len(screens.connections)
                self._answer(200, {"sent": screens.sent, "connections": open_now,
                                   "push_invocations": screens.push_invocations})
                return
            connection_id = self._id()
            if connection_id is None or connection_id not in screens.connections:
                self._answer(410, {"message": "the connection is gone"}, "GoneException")
                return
            self._answer(200, {"ConnectedAt": "", "Identity": {"SourceIp": "127.0.0.1"}})

    return Management


# --- the screens' process ----------------------------------------------------------------------


def _lambda_invoker() -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    import boto3
    from botocore.config import Config

    client = boto3.client("lambda", config=Config(read_timeout=60, retries={"max_attempts": 0}))

    def invoke(function: str, event: dict[str, Any]) -> dict[str, Any]:
        answer = client.invoke(FunctionName=function, Payload=json.dumps(event).encode())
        payload = json.loads(answer["Payload"].read() or b"{}")
        if answer.get("FunctionError"):
            raise RuntimeError(f"{function}: {payload.get('errorType')}: {payload.get('errorMessage')}")
        out: dict[str, Any] = payload or {}
        return out

    return invoke


def _consume(server: ScreensServer, push: dict[str, Any]) -> None:
    """The push queue's SQS event source: receive a batch, run the function on it (here, in this
    process), delete what it did not report failed. One batch at a time per poller; the FIFO
    queue keeps a message group's later messages back while a batch of it is being handled."""
    import boto3

    from .stack import ACCOUNT, LONG_POLL, REGION, LambdaContext

    os.environ.update(push["environment"])
    spec = importlib.util.spec_from_file_location("croupier_fn_push", push["file"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    handler = getattr(module, push["handler"].rsplit(".", 1)[1])
    sqs = boto3.client("sqs")
    url = push["queue_url"]
    arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{url.rsplit('/', 1)[1]}"

    def poll() -> None:
        while True:
            try:
                page = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=push["batch_size"],
                                           WaitTimeSeconds=LONG_POLL, MessageSystemAttributeNames=["All"])
            except Exception:  # the stack is stopping
                time.sleep(0.5)
                continue
            messages = page.get("Messages", [])
            if not messages:
                continue
            records = [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                        "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
                        "eventSource": "aws:sqs", "eventSourceARN": arn, "awsRegion": REGION} for m in messages]
            with server._lock:
                server.push_invocations += 1
            try:
                answer = handler({"Records": records}, LambdaContext(push["function"])) or {}
                failed = {f["itemIdentifier"] for f in answer.get("batchItemFailures", [])}
            except Exception:
                failed = {m["MessageId"] for m in messages}  # the whole batch comes back after its visibility timeout
            done: list[Any] = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)
                    if m["MessageId"] not in failed]
            if done:
                sqs.delete_message_batch(QueueUrl=url, Entries=done)

    for n in range(4):  # as Lambda scales a FIFO source with its message groups
        threading.Thread(target=poll, name=f"push-poller-{n}", daemon=True).start()


def _serve(config: dict[str, Any]) -> None:
    server = ScreensServer(config["port"], config["manage_port"], config["routes"], config["selection"],
                           _lambda_invoker())
    server.start()
    if config.get("push"):
        _consume(server, config["push"])
    print("ready", flush=True)
    sys.stdin.read()  # until the stack stops this process, or ends without stopping it
    os._exit(0)

if __name__ == "__main__":
    _serve(json.loads(sys.argv[1]))
