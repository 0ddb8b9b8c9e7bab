"""Tables, seats, shoes and round control (operator, dealer console, supervisor).

Thin: the router validates the request (pydantic), the service decides; see croupier.app.routes.tables.
"""

from croupier.app.api import http_function
from croupier.app.routes import tables

app, lambda_handler = http_function(tables.router)
