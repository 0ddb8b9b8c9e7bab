"""Wallet deposits and withdrawals (operator, idempotent).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.routes.wallets.
"""

from croupier.app.api import http_function
from croupier.app.routes import wallets

app, lambda_handler = http_function(wallets.router)
