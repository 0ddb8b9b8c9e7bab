"""The embedded local stack: moto in server mode, the resources created from ``template.yaml``,
the functions run in-process, and the HTTP API on a local port.

- moto's AWS services run as a threaded server on a loopback port; every boto3 client of the
  process (the functions included) talks to it through ``AWS_ENDPOINT_URL``.
- Tables, queues, the event bus with its rule and FIFO target, the Lambda functions (their
  handlers and environment), the SQS event source and the round state machine (its ASL file with
  ``DefinitionSubstitutions``) are all read from ``template.yaml``: nothing is duplicated here.
- moto cannot run Lambda code without Docker: its Lambda invocation is patched to call the
  function's own ``lambda_handler`` in this process, so the Step Functions interpreter and the
  SQS event source run the real handlers.
- moto's API Gateway does not execute proxy integrations: :class:`LocalApi` serves the template's
  API routes itself, turning each request into the API Gateway proxy event the handler expects,
  after checking the bearer token the way the Cognito authorizer would (local signing key).
- The browser front end (``web/``) is served on a port of its own (:mod:`croupier.local.web`), with
  the local-only sign-in and test-scan endpoints.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import socket
import threading
import time
import uuid
import zipfile
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from . import iam, motopatch, sdk
from . import template as tpl

REGION = "us-east-1"
ACCOUNT = "123456789012"
LOCAL_OPERATOR = "local-operator"
"""The operator of the local stack's reference seamless wallet."""
LOCAL_OPERATOR_SECRET = "local-operator-signing-secret"
LOCAL_CURRENCY = "THB"
LOCAL_WALLET_TIMINGS = {"WALLET_RETRY_BASE_MS": "200", "WALLET_RETRY_CAP_MS": "2000", "WALLET_DEBIT_GRACE_MS": "6000",
                        "WALLET_SWEEP_SLACK_MS": "1000"}
"""The outbox's timings on the local stack: seconds where AWS has a minute (its sweeper runs every
second here), so that a test sees a retried credit within its own time."""
Handler = Callable[[dict[str, Any], Any], Any]


def _stream_filters(props: dict[str, Any]) -> list[Any] | None:
    """A DynamoDB event's filter criteria, each pattern matched as Lambda matches it (EventBridge's
    pattern syntax, over the whole stream record); a record goes to the function when any of them
    matches it. None: every record."""
    from ..sim.streams import filter_patterns

    patterns = filter_patterns([entry["Pattern"] for entry in (props.get("FilterCriteria") or {}).get("Filters", [])])
    return patterns or None


def project_root() -> Path:
    """The folder holding ``template.yaml``: the working directory, or above this package."""
    for candidate in (Path.cwd(), *Path(__file__).resolve().parents):
        if (candidate / "template.yaml").is_file():
            return candidate
    raise FileNotFoundError("template.yaml not found: run from the project's folder")


POLLERS = 2
"""Pollers of each standard queue a function consumes (Lambda starts several, and scales them)."""
LONG_POLL = 20
"""Seconds a poller's receive waits for a message (``WaitTimeSeconds``): Lambda's pollers long-poll
their queues, and a receive returns as soon as a message can be received, so an idle queue costs a
request every 20 s, not one a second."""


_held: dict[int, socket.socket] = {}
_holding = threading.Lock()


def free_port() -> int:
    """A free port of the loopback address, held for its server until :func:`release`.

    The kernel picks it (a port no socket is bound to), and a socket stays bound to it with address
    reuse, not listening: the server binds it beside the hold (address reuse lets it), while any
    other bind fails and no outgoing connection is given it as its own port. A port picked and let
    go at once was free only then: the stack binds its servers seconds later, and meanwhile an
    outgoing connection or another test process's stack could take it ("Address already in use":
    the stack failed to start, and every test of its process with it)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    with _holding:
        _held[port] = sock
    return port


def release(*ports: int) -> None:
    """Let go of the holds :func:`free_port` took on ``ports`` (their servers are bound; a port
    not held is let be)."""
    for port in ports:
        with _holding:
            sock = _held.pop(port, None)
        if sock is not None:
            sock.close()


class PortInUse(OSError):
    """A port the local stack was told to serve on is taken by another program."""

    def __init__(self, port: int, service: str, role: str) -> None:
        super().__init__(f"port {port} ({service}) is in use by another program")
        self.port, self.service, self.role = port, service, role
        """``role``: which of the stack's ports (``aws``, ``api``, ``web``)."""


def check_port(port: int, service: str, role: str) -> None:
    """Raise :class:`PortInUse` unless ``port`` can be bound on the loopback address (as the
    servers bind it, address reuse allowed: a port left in TIME_WAIT is free). moto's threaded
    server, given a taken port, prints a line and never reports it: its caller would wait forever."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise PortInUse(port, service, role) from exc


@dataclass
class LambdaContext:
    """What a handler reads from the Lambda context (Powertools included)."""

    function_name: str
    memory_limit_in_mb: int = 512
    timeout_ms: int = 30_000
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"

    @property
    def function_version(self) -> str:
        return "$LATEST"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int(self.timeout_ms - (time.monotonic() - self.started) * 1000))


@dataclass
class Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    function: str
    public: bool

    def params_of(self, segments: list[str]) -> dict[str, str] | None:
        """The path parameters if the (decoded) path segments fit this route's template, else None."""
        parts = self.template.strip("/").split("/")
        if len(parts) != len(segments):
            return None
        params: dict[str, str] = {}
        for part, segment in zip(parts, segments, strict=True):
            if part.startswith("{") and part.endswith("}"):
                if not segment:
                    return None
                params[part[1:-1]] = segment
            elif part != segment:
                return None
        return params


class LocalStack:
    """Start with :meth:`start`; stop with :meth:`stop`. Counts Lambda invocations per function."""

    def __init__(self, root: Path, *, stage: str = "local", api_port: int = 0, moto_port: int = 0,
                 ws_port: int = 0, manage_port: int = 0, web_port: int = 0, separate_screens: bool = False,
                 jwt_secret: str = "croupier-local-signing-key-for-hs256",
                 console: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.console = console
        """Where the stack says what an alarm would on AWS (``make local``: its console)."""
        self.alarms: list[str] = []
        """Those lines, as said (:meth:`_alarm`)."""
        self.stage = stage
        self.api_port = api_port or free_port()
        self.moto_port = moto_port or free_port()
        self.jwt_secret = jwt_secret
        self.invocations: Counter[str] = Counter()
        self.observers: list[Callable[[str, Any, float], None]] = []
        """Told of each invocation when it ends: the function, its event, its duration (s)."""
        self.handlers: dict[str, Handler] = {}
        self.function_names: dict[str, str] = {}  # logical id -> physical name
        self.logical_ids: dict[str, str] = {}  # physical name -> logical id
        self.template: dict[str, Any] = {}
        self.resolver: Any = None  # the template's intrinsic functions, resolved to this stack's names
        self.recorder: iam.Recorder | None = None  # the functions' AWS calls (record_calls)
        self.routes: list[Route] = []
        self._servers: list[Any] = []
        self.outputs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._workers: dict[str, ThreadPoolExecutor] = {}
        self._resolving = threading.Lock()
        from .screens import LocalScreens

        self.screens = LocalScreens(ws_port, manage_port, separate=separate_screens)
        from .web import LocalWeb

        self.web = LocalWeb(self, web_port or free_port())
        """The browser front end (``web/``) and the local-only token and device endpoints."""
        self.parameters: dict[str, Any] = {}
        self.cors_origin = "*"
        self._pollers: list[tuple[str, str, int]] = []  # (function, queue url, batch size)
        self._handled: set[str] = set()
        self._handled_changed = threading.Condition()
        self._schedules: list[str] = []  # functions with a schedule
        self._stopping = threading.Event()
        from .operator_wallet import OperatorWallet

        self.operator_wallet = OperatorWallet(LOCAL_OPERATOR, LOCAL_OPERATOR_SECRET, LOCAL_CURRENCY)
        """The reference operator wallet (a real HTTP server with its own ledger) that the local
        stack's seamless tables call."""

    # --- lifecycle ---------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.moto_port}"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def start(self) -> LocalStack:
        import logging

        from moto.server import ThreadedMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        for port, service, role in ((self.moto_port, "the AWS services, moto", "aws"), (self.api_port, "the HTTP API",
                                    "api"), (self.web.port, "the browser pages", "web")):
            check_port(port, service, role)

        os.environ.update({
            "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION, "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local", "AWS_ENDPOINT_URL": self.endpoint, "MOTO_PORT": str(self.moto_port),
            "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true",
            "POWERTOOLS_LOG_LEVEL": os.environ.get("CROUPIER_LOG_LEVEL", "ERROR"),
            "POWERTOOLS_DEV": "false", "LOCAL_JWT_SECRET": self.jwt_secret,
        })
        import warnings

        warnings.filterwarnings("ignore", message="No application metrics to publish")
        motopatch.run_functions_in_process(self.invoke)
        motopatch.apply()
        from ..app import store

        store.reset_clients()  # a fresh moto: nothing read from another is true here
        store.container = iam.acting  # each function keeps what it read to itself, as on AWS
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.moto_port, verbose=False)
        server.start()
        motopatch.answer_in_process(*self._moto_endpoints())
        self._servers.append(server)
        self._configure_moto()
        self._create_resources()
        self._start_api()
        self._start_operator_wallet()
        self._start_pollers()
        from ..app import alerts

        alerts.listeners.append(self._alarm)
        self._servers.append(self.screens.start())
        self._servers.append(self.web.start())
        release(*self._ports())
        return self

    def stop(self) -> None:
        import logging

        # executions still waiting (rounds left open) fail their tasks as the servers go: not news
        logging.getLogger("moto.stepfunctions").setLevel(logging.ERROR)
        motopatch.stop_deliveries()
        motopatch.stop_answering_in_process(*self._moto_endpoints())
        self._stopping.set()
        from ..app import alerts

        with contextlib.suppress(ValueError):
            alerts.listeners.remove(self._alarm)
        for server in reversed(self._servers):
            with contextlib.suppress(Exception):  # stopping is best effort
                server.stop() if hasattr(server, "stop") else server.shutdown()
        self._servers.clear()
        release(*self._ports())  # a start that failed half-way
        for worker in self._workers.values():
            worker.shutdown(wait=False, cancel_futures=True)
        self._workers.clear()

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _ports(self) -> tuple[int, ...]:
        """The ports of the stack's own servers (the reference operator wallet binds a port of its
        choosing)."""
        return self.moto_port, self.api_port, self.web.port, self.screens.port, self.screens.manage_port

    def _moto_endpoints(self) -> tuple[str, str]:
        """moto's server, as this process reaches it: the stack's endpoint, and moto's own name for
        it (its Step Functions' tasks call ``localhost``)."""
        return self.endpoint, f"http://localhost:{self.moto_port}"

    def _configure_moto(self) -> None:
        import urllib.request

        body = json.dumps({"stepfunctions": {"execute_state_machine": True}}).encode()
        request = urllib.request.Request(f"{self.endpoint}/moto-api/config", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    # --- Lambda ------------------------------------------------------------------------------
    def invoke(self, function_name: str, event: dict[str, Any]) -> Any:
        """Run one invocation. Like a Lambda execution environment, each function has one long-lived
        worker thread that handles one event at a time (its resolver keeps the current event on
        the module; its boto3 clients and caches live as long as the environment): concurrent
        invocations of the same function wait their turn; different functions run in parallel."""
        handler = self.handlers[function_name]
        if any(route.function == function_name for route in self.routes):
            handler = self._one_http_event_at_a_time(handler)
        with self._lock:
            self.invocations[function_name] += 1
            worker = self._workers.get(function_name)
            if worker is None:
                worker = self._workers[function_name] = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=f"lambda-{function_name}")
        return worker.submit(self._run_as, function_name, handler, event, LambdaContext(function_name)).result()

    def _run_as(self, function_name: str, handler: Handler, event: dict[str, Any], context: LambdaContext) -> Any:
        """On the function's worker: its AWS calls are made as the function (its role's, for the
        least-privilege check of :mod:`croupier.local.iam`)."""
        started = time.perf_counter()
        try:
            with iam.acting_as(self.logical_ids.get(function_name, function_name)):
                return handler(event, context)
        finally:
            for observe in self.observers:
                observe(function_name, event, time.perf_counter() - started)

    def record_calls(self) -> iam.Recorder:
        """Record every AWS call the functions make from now on (:mod:`croupier.local.iam`)."""
        if self.recorder is None:
            self.recorder = iam.Recorder(iam.naming_of(self.template, self.resolver, REGION, ACCOUNT, self.stage))
        return self.recorder.enable()

    def roles(self) -> dict[str, list[iam.Statement]]:
        """Each function's role as SAM generates it, with this stack's resource names."""
        return iam.roles(self.root, self.resolver)

    def _one_http_event_at_a_time(self, handler: Handler) -> Handler:
        """Powertools' HTTP resolvers keep the event being resolved on a class attribute, shared by
        every resolver of the process: on AWS each function has its own process; here, HTTP
        functions running at once in two threads would read each other's request (its route, its
        body, its caller). They take turns; the other functions still run in parallel."""

        def resolve_alone(event: dict[str, Any], context: Any) -> Any:
            with self._resolving:
                return handler(event, context)

        return resolve_alone

    def _load_handler(self, logical_id: str, code_uri: str, handler: str) -> Handler:
        module_name, func = handler.rsplit(".", 1)
        path = self.root / code_uri / f"{module_name}.py"
        spec = importlib.util.spec_from_file_location(f"croupier_fn_{logical_id}", path)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        loaded: Handler = getattr(module, func)
        return loaded

    # --- resources from template.yaml --------------------------------------------------------
    def _create_resources(self) -> None:
        import boto3

        template = tpl.load(self.root / "template.yaml")
        res = tpl.Resolver(template, {"Stage": self.stage}, REGION, ACCOUNT)
        self.template, self.resolver = template, res
        self.parameters = dict(res.params)
        resources: dict[str, Any] = template["Resources"]
        ddb, sqs = boto3.client("dynamodb"), boto3.client("sqs")
        events, lam = boto3.client("events"), boto3.client("lambda")
        sfn, iam = boto3.client("stepfunctions"), boto3.client("iam")
        role = iam.create_role(RoleName="croupier-local", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        by_type: dict[str, list[str]] = {}
        for logical, spec in resources.items():
            by_type.setdefault(spec["Type"], []).append(logical)
        res.refs.update({name: f"local-{name}" for name in by_type.get("AWS::Serverless::LayerVersion", [])})
        res.refs.update({name: "local" for name in by_type.get("AWS::Serverless::Api", [])})
        res.refs.update({name: f"local-{name}" for kind in ("AWS::ApiGatewayV2::Api", "AWS::ApiGatewayV2::Integration",
                                                             "AWS::Cognito::UserPool",
                                                             "AWS::Cognito::UserPoolClient", "AWS::SNS::Topic")
                         for name in by_type.get(kind, [])})
        for logical in by_type.get("AWS::Logs::LogGroup", []):  # the functions' logs stay in this process
            res.refs[logical] = res.resolve(resources[logical]["Properties"]["LogGroupName"])
            res.attrs[(logical, "Arn")] = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:{res.refs[logical]}:*"
        for logical in by_type.get("AWS::DynamoDB::Table", []):
            props = res.resolve(resources[logical]["Properties"])
            created = ddb.create_table(**tpl.table_args(props))["TableDescription"]
            if created.get("LatestStreamArn"):
                res.attrs[(logical, "StreamArn")] = created["LatestStreamArn"]
            if props.get("TimeToLiveSpecification"):
                ddb.update_time_to_live(TableName=props["TableName"],
                                        TimeToLiveSpecification=props["TimeToLiveSpecification"])
            res.refs[logical] = props["TableName"]
            res.attrs[(logical, "Arn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{props['TableName']}"
        queues = by_type.get("AWS::SQS::Queue", [])
        for logical in sorted(queues, key=lambda q: "RedrivePolicy" in resources[q]["Properties"]):
            props = res.resolve(resources[logical]["Properties"])
            attrs = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in props.items()
                     if k in ("FifoQueue", "ContentBasedDeduplication", "VisibilityTimeout", "MessageRetentionPeriod")}
            if "RedrivePolicy" in props:
                attrs["RedrivePolicy"] = json.dumps(props["RedrivePolicy"])
            url = sqs.create_queue(QueueName=props["QueueName"], Attributes=attrs)["QueueUrl"]
            if logical == "TableEventsQueue":  # the devices' queue (the push queue has a redrive policy too)
                self.outputs["table_events_queue"] = url
            if "RedrivePolicy" in props:  # its dead letters (created before it)
                self.outputs.setdefault("dead_letter_queues", {})[logical] = res.refs[next(
                    q for q in queues if res.attrs.get((q, "Arn")) == props["RedrivePolicy"]["deadLetterTargetArn"])]
            res.refs[logical] = url
            res.attrs[(logical, "Arn")] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{props['QueueName']}"
            res.attrs[(logical, "QueueName")] = props["QueueName"]
        for logical in by_type.get("AWS::Events::EventBus", []):
            props = res.resolve(resources[logical]["Properties"])
            arn = events.create_event_bus(Name=props["Name"])["EventBusArn"]
            res.refs[logical], res.attrs[(logical, "Arn")] = props["Name"], arn
            self.outputs["event_bus"] = props["Name"]
        for logical in by_type.get("AWS::Events::Rule", []):
            props = res.resolve(resources[logical]["Properties"])
            arn = events.put_rule(Name=props["Name"], EventBusName=props["EventBusName"],
                                  EventPattern=json.dumps(props["EventPattern"]))["RuleArn"]
            events.put_targets(Rule=props["Name"], EventBusName=props["EventBusName"], Targets=props["Targets"])
            res.refs[logical], res.attrs[(logical, "Arn")] = props["Name"], arn
        functions = by_type.get("AWS::Serverless::Function", [])
        glob = template.get("Globals", {}).get("Function", {})
        for logical in functions:
            name = res.resolve(resources[logical]["Properties"]["FunctionName"])
            res.refs[logical] = name
            res.attrs[(logical, "Arn")] = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
        env: dict[str, str] = {}
        env.update({k: str(v) for k, v in res.resolve(glob.get("Environment", {}).get("Variables", {})).items()})
        if "WEBSOCKET_ENDPOINT" in env:  # the local screens' management endpoint (croupier.local.screens)
            env["WEBSOCKET_ENDPOINT"] = self.screens.management_url
        zipped = io.BytesIO()
        with zipfile.ZipFile(zipped, "w") as archive:
            archive.writestr("app.py", "def lambda_handler(event, context):\n    return event\n")
        for logical in by_type.get("AWS::Serverless::StateMachine", []):
            props = resources[logical]["Properties"]
            name = res.resolve(props["Name"])
            res.refs[logical] = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:{name}"
        os.environ.update(env)
        for name, value in LOCAL_WALLET_TIMINGS.items():  # unless the caller set its own (the benchmark)
            os.environ.setdefault(name, value)
        os.environ["POWERTOOLS_LOG_LEVEL"] = os.environ.get("CROUPIER_LOG_LEVEL", "ERROR")
        for logical in functions:
            props = res.resolve(resources[logical]["Properties"])
            fn_env = {**env, **{k: str(v) for k, v in props.get("Environment", {}).get("Variables", {}).items()}}
            lam.create_function(FunctionName=props["FunctionName"], Runtime=glob.get("Runtime", "python3.12"),
                                Role=role, Handler=props["Handler"], Code={"ZipFile": zipped.getvalue()},
                                Timeout=int(props.get("Timeout", glob.get("Timeout", 30))),
                                Environment={"Variables": fn_env})
            self.handlers[props["FunctionName"]] = self._load_handler(logical, props["CodeUri"], props["Handler"])
            self.function_names[logical] = props["FunctionName"]
            self.logical_ids[props["FunctionName"]] = logical
            for event in props.get("Events", {}).values():
                if event["Type"] == "SQS" and self.screens.separate and self._pushes(event["Properties"]["Queue"], env):
                    self.screens.consume(props["FunctionName"], self.root / props["CodeUri"] / "app.py",
                                         props["Handler"], fn_env, env["PUSH_QUEUE_URL"],
                                         int(event["Properties"].get("BatchSize", 10)))
                elif event["Type"] == "SQS" and not self._fifo(event["Properties"]["Queue"], resources, res):
                    # a standard queue (the wallet outbox's) is polled here as Lambda polls it, with
                    # its delays and visibility timeouts; moto's mapping would run the function
                    # inside the sender's own call (settlement would wait for an operator)
                    url = next(res.refs[q] for q in queues if res.attrs.get((q, "Arn")) == event["Properties"]["Queue"])
                    self._pollers.append((props["FunctionName"], url, int(event["Properties"].get("BatchSize", 10))))
                elif event["Type"] == "Schedule":
                    self._schedules.append(props["FunctionName"])
                elif event["Type"] == "SQS":
                    lam.create_event_source_mapping(EventSourceArn=event["Properties"]["Queue"],
                                                    FunctionName=props["FunctionName"],
                                                    BatchSize=int(event["Properties"].get("BatchSize", 10)))
                elif event["Type"] == "DynamoDB":
                    mapping = lam.create_event_source_mapping(
                        EventSourceArn=event["Properties"]["Stream"], FunctionName=props["FunctionName"],
                        StartingPosition=event["Properties"].get("StartingPosition", "LATEST"),
                        BatchSize=int(event["Properties"].get("BatchSize", 100)))
                    motopatch.stream_filters[mapping["FunctionArn"]] = _stream_filters(event["Properties"])
                elif event["Type"] == "Api":
                    self._add_route(event["Properties"], props["FunctionName"])
        for logical in by_type.get("AWS::Serverless::StateMachine", []):
            props = res.resolve(resources[logical]["Properties"])
            definition = (self.root / props["DefinitionUri"]).read_text(encoding="utf-8")
            for key, value in props.get("DefinitionSubstitutions", {}).items():
                definition = definition.replace("${" + key + "}", str(value))
            arn = sfn.create_state_machine(name=props["Name"], definition=definition, roleArn=role,
                                           type=props.get("Type", "STANDARD"))["stateMachineArn"]
            self.outputs["state_machine"] = arn
        self.outputs.update(game_table=os.environ.get("GAME_TABLE"), wallet_table=os.environ.get("WALLET_TABLE"))

        self.screens.configure(template, res, self)

    @staticmethod
    def _fifo(queue_arn: str, resources: dict[str, Any], res: Any) -> bool:
        logical = next(q for q, spec in resources.items()
                       if spec["Type"] == "AWS::SQS::Queue" and res.attrs.get((q, "Arn")) == queue_arn)
        return bool(resources[logical]["Properties"].get("FifoQueue"))

    def _start_operator_wallet(self) -> None:
        """The reference wallet, and its SSM parameter where the functions look it up."""
        from ..app import operators, seamless

        self._servers.append(self.operator_wallet.start())
        operators.reset_clients()
        seamless.reset_clients()
        operators.put(operators.Operator(id=LOCAL_OPERATOR, url=self.operator_wallet.url,
                                         secret=LOCAL_OPERATOR_SECRET, currency=LOCAL_CURRENCY))

    def _start_pollers(self) -> None:
        period = float(os.environ.get("CROUPIER_LOCAL_SCHEDULE_SECONDS", "1"))
        for function, url, batch in self._pollers:
            for i in range(POLLERS):
                threading.Thread(target=self._poll, args=(function, url, batch), name=f"poll-{function}-{i}",
                                 daemon=True).start()
        for function in self._schedules:
            threading.Thread(target=self._tick, args=(function, period), name=f"schedule-{function}",
                             daemon=True).start()

    def _poll(self, function: str, url: str, batch: int) -> None:
        """One of Lambda's pollers of a standard queue: receive a batch, invoke, delete what
        succeeded (a failed record comes back after its visibility timeout). :data:`POLLERS` of them
        take batches side by side, as Lambda's do: a queue's messages are handled concurrently and
        out of order."""
        sqs = sdk.client("sqs")
        arn = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{url.rsplit('/', 1)[1]}"
        while not self._stopping.is_set():
            try:
                got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=batch, WaitTimeSeconds=LONG_POLL,
                                          AttributeNames=["All"]).get("Messages", [])
                if not got:
                    continue
                records = [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                            "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
                            "eventSource": "aws:sqs", "eventSourceARN": arn, "awsRegion": REGION} for m in got]
                try:
                    answer = self.invoke(function, {"Records": records}) or {}
                finally:
                    self._note_handled(got)
                failed = {f["itemIdentifier"] for f in (answer.get("batchItemFailures") or [])}
                done: list[Any] = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)
                        if m["MessageId"] not in failed]
                if done:
                    sqs.delete_message_batch(QueueUrl=url, Entries=done)
            except Exception:  # the stack stopping under it, or the function failing: poll on
                if self._stopping.wait(0.5):
                    return

    def _note_handled(self, messages: Sequence[Any]) -> None:
        """The bus events (their ids) whose delivery a function has just handled, well or not."""
        ids = set()
        for message in messages:
            with contextlib.suppress(ValueError, TypeError, KeyError):  # not a bus event (the outbox's)
                ids.add(str(json.loads(message["Body"])["id"]))
        with self._handled_changed:
            self._handled |= ids
            self._handled_changed.notify_all()

    def wait_handled(self, event_id: str, timeout: float = 30.0) -> bool:
        """Wait until a delivery of the bus event ``event_id`` has been handled by the function that
        consumes its queue (the table events' dealing function): for a test that reads what the
        event did. The dealer never waits for this; only an observer does."""
        deadline = time.monotonic() + timeout
        with self._handled_changed:
            while event_id not in self._handled:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._handled_changed.wait(left)
        return True

    def _tick(self, function: str, period: float) -> None:
        """A function's schedule (``rate(...)`` on AWS; every ``period`` seconds here)."""
        while not self._stopping.wait(period):
            with contextlib.suppress(Exception):
                self.invoke(function, {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {},
                                       "account": ACCOUNT, "region": REGION})

    @staticmethod
    def _pushes(queue_arn: str, env: dict[str, str]) -> bool:
        """Is this the push queue? Its consumer runs in the screens' process (croupier.local.screens)."""
        queue = env.get("PUSH_QUEUE_URL") or ""
        return bool(queue) and queue.rsplit("/", 1)[1] == queue_arn.rsplit(":", 1)[1]

    def _alarm(self, metric: str, detail: dict[str, Any]) -> None:
        """What the dealing function refused and why, said as the template's alarm on ``metric``
        would say it on AWS (its name from ``template.yaml``): moto has no alarms, and the
        functions' warnings are below the local log level, so a refused event would vanish."""
        names = [self.resolver.resolve(spec["Properties"]["AlarmName"])
                 for spec in self.template.get("Resources", {}).values() if spec["Type"] == "AWS::CloudWatch::Alarm"
                 and metric in {spec["Properties"].get("MetricName")} | {
                     m["MetricStat"]["Metric"]["MetricName"] for m in spec["Properties"].get("Metrics", [])
                     if "MetricStat" in m}]
        where = f" at table {detail['table_id']} (device log #{detail['position']})" if "table_id" in detail else ""
        if metric == "DeviceEventsInvalid":
            what = (f"the dealing function refused a table event it cannot read ({detail.get('detail_type')} "
                    f"from {detail.get('source')}, message {detail.get('message_id')})")
        elif metric == "CardsNotTaken":
            what = f"card {detail.get('card')} not taken{where}"
        else:
            what = f"the table refused {detail.get('kind')}{where}"
        line = f"ALARM {', '.join(names) or '(no alarm in template.yaml)'} ({metric}): {what}: {detail.get('why')}"
        self.alarms.append(line)
        if self.console is not None:
            self.console(line)

    def dead_letters(self) -> dict[str, int]:
        """Messages in each queue's dead-letter queue, by the queue's logical id (0 when all went well)."""
        sqs = sdk.client("sqs")
        return {logical: int(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])
                             ["Attributes"]["ApproximateNumberOfMessages"])
                for logical, url in self.outputs["dead_letter_queues"].items()}

    def invocation_counts(self) -> Counter[str]:
        """Lambda invocations per function so far, the push function's (in the screens' process) included."""
        counts = Counter(self.invocations)
        if self.screens.push:
            counts[self.screens.push["function"]] += int(self.screens.stats()["push_invocations"])
        return counts

    # --- the HTTP API ------------------------------------------------------------------------
    def _add_route(self, props: dict[str, Any], function: str) -> None:
        path = props["Path"]
        regex = "^" + re.sub(r"\{([a-z_]+)\}", r"(?P<\1>[^/]+)", path) + "$"
        public = props.get("Auth", {}).get("Authorizer") == "NONE"
        self.routes.append(Route(props["Method"].upper(), path, re.compile(regex), function, public))

    def match(self, method: str, segments: list[str]) -> tuple[Route, dict[str, str]] | None:
        """The route of a request whose path is ``segments`` (percent-decoded one by one, as API
        Gateway matches them: an encoded ``/`` stays inside its segment), and its path parameters."""
        for route in self.routes:
            params = route.params_of(segments)
            if params is not None and route.method == method:
                return route, params
        return None

    def methods_at(self, segments: list[str]) -> list[str]:
        """The methods the template defines on this path (what a CORS preflight allows)."""
        return sorted({route.method for route in self.routes if route.params_of(segments) is not None})

    def _start_api(self) -> None:
        from .gateway import serve

        self.cors_origin = str(self.parameters.get("CorsAllowedOrigin") or "*")
        server = serve(self, "127.0.0.1", self.api_port)
        thread = threading.Thread(target=server.serve_forever, name="croupier-local-api", daemon=True)
        thread.start()
        self._servers.append(server)

    def proxy_event(self, route: Route, params: dict[str, str], method: str, path: str, query: str,
                    headers: dict[str, str], body: str | None, claims: dict[str, Any] | None) -> dict[str, Any]:
        """API Gateway's REST proxy event: ``path`` and the path parameters percent-decoded, the query
        string's parameters decoded (blank values kept), the caller's claims as the Cognito
        authorizer passes them. The API is served at the root, as behind a custom domain: the
        request context's path carries no stage."""
        query_values = parse_qs(query, keep_blank_values=True)
        return {
            "resource": route.template, "path": path, "httpMethod": method,
            "headers": headers, "multiValueHeaders": {k: [v] for k, v in headers.items()},
            "queryStringParameters": {k: v[-1] for k, v in query_values.items()} or None,
            "multiValueQueryStringParameters": query_values or None,
            "pathParameters": params or None, "stageVariables": None,
            "requestContext": {"resourcePath": route.template, "httpMethod": method, "stage": self.stage,
                               "path": path, "requestId": str(uuid.uuid4()),
                               "accountId": ACCOUNT, "apiId": "local",
                               "identity": {"sourceIp": "127.0.0.1"},
                               "authorizer": {"claims": claims} if claims else None},
            "body": body, "isBase64Encoded": False,
        }
