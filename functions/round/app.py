"""The round workflow's own steps: close betting, "what next?", wait registration, timers, faults.

Thin: the event is parsed by RoundTask (pydantic); croupier.app.tasks runs it on the service.
"""

from croupier.app import tracing
from croupier.app.tasks import RoundTask, run_round_task, task_function

tracing.tracer()  # before task_function's Tracer(), which takes its provider: no X-Ray SDK unless traced
lambda_handler = task_function(RoundTask, run_round_task)
