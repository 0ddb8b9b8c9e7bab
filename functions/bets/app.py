"""Bet placement: POST /tables/{table_id}/bets (several bets, all or none, idempotent).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.routes.bets.
"""

from croupier.app.api import http_function
from croupier.app.routes import bets

app, lambda_handler = http_function(bets.router)
