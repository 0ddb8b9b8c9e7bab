"""Players' decisions: POST /rounds/{round_id}/decisions.

Thin: the router validates the request (pydantic), the service decides; see croupier.app.api.
"""

from croupier.app.api import decisions_router, http_function

app, lambda_handler = http_function(decisions_router)
