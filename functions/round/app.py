"""The round workflow's own steps: close betting, "what next?", wait registration, timers, faults."""

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.parser import event_parser
from aws_lambda_powertools.utilities.typing import LambdaContext

from croupier.app.tasks import RoundTask, run_round_task

logger = Logger()
tracer = Tracer()
metrics = Metrics()


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
@event_parser(model=RoundTask)
def lambda_handler(event: RoundTask, context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(round_id=event.round_id, op=event.op)
    return run_round_task(event)
