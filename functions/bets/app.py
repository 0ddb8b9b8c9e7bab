"""Bet placement: POST /tables/{table_id}/bets (several bets, all or none, idempotent).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.api.
"""

from croupier.app.api import bets_router, http_function

app, lambda_handler = http_function(bets_router)
