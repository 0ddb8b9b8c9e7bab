"""Settlement: settle or refund one shard of a round's bets (exactly once), then finish the round."""

from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.parser import event_parser
from aws_lambda_powertools.utilities.typing import LambdaContext

from croupier.app.tasks import SettlementTask, run_settlement_task

logger = Logger()
tracer = Tracer()
metrics = Metrics()


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
@event_parser(model=SettlementTask)
def lambda_handler(event: SettlementTask, context: LambdaContext) -> dict[str, Any]:
    logger.append_keys(round_id=event.round_id, op=event.op, shard=event.shard)
    return run_settlement_task(event)
