"""Players' decisions: POST /rounds/{round_id}/decisions.

Thin: the router validates the request (pydantic), the service decides; see croupier.app.routes.decisions.
"""

from croupier.app.api import http_function
from croupier.app.routes import decisions

app, lambda_handler = http_function(decisions.router)
