"""Wallet deposits and withdrawals (operator, idempotent).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.api.
"""

from croupier.app.api import http_function, wallet_router

app, lambda_handler = http_function(wallet_router)
