"""Settlement: settle or refund one shard of a round's bets (exactly once), then finish the round.

Thin: the event is parsed by SettlementTask (pydantic); croupier.app.tasks runs it on the service.
"""

from croupier.app import tracing
from croupier.app.tasks import SettlementTask, run_settlement_task, task_function

tracing.tracer()  # before task_function's Tracer(), which takes its provider: no X-Ray SDK unless traced
lambda_handler = task_function(SettlementTask, run_settlement_task)
