"""Tables, seats, shoes and round control (operator, dealer console, supervisor).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.api.
"""

from croupier.app.api import http_function, tables_router

app, lambda_handler = http_function(tables_router)
