"""Read-only queries, and the whole API's OpenAPI document (/openapi.json) and Swagger page (/swagger)."""

import json
from typing import Any

from aws_lambda_powertools.event_handler import Response

from croupier.app.api import http_function
from croupier.app.openapi import openapi_document, swagger_page
from croupier.app.routes import queries

app, lambda_handler = http_function(queries.router)


def _base_path() -> str:
    """Where the API is served: under its stage on API Gateway's own URL, at the root locally or
    behind a custom domain: the stage when the request's path starts with it (read from the
    event's public request context; Powertools' own helper for this is private)."""
    stage = app.current_event.request_context.stage
    if stage and stage != "$default" and app.current_event.request_context.path.startswith(f"/{stage}"):
        return f"/{stage}"
    return "/"


@app.get("/openapi.json", include_in_schema=False)
def openapi() -> Response[Any]:
    return Response(200, "application/json", json.dumps(openapi_document(_base_path())))


@app.get("/swagger", include_in_schema=False)
def swagger() -> Response[Any]:
    return Response(200, "text/html; charset=utf-8", swagger_page())
