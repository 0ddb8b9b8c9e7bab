"""Screens: the WebSocket API's routes ($connect, $disconnect, subscribe, unsubscribe, $default).

Thin: croupier.app.screens checks the token, keeps the connection and its subscriptions, and sends
each subscribed table's snapshot; croupier.app.push pushes the table's events.
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from croupier.app import tracing
from croupier.app.screens import route

logger = Logger()
tracer = tracing.tracer()
metrics = Metrics()


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return route(event)
