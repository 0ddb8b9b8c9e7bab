"""Read-only queries, and the whole API's OpenAPI document (/openapi.json) and Swagger page (/swagger)."""

from typing import Any

from aws_lambda_powertools.event_handler import Response

from croupier.app.api import http_function, openapi_document, query_router

app, lambda_handler = http_function(query_router)
app.enable_swagger(path="/swagger", title="Croupier", version="0.1.0")


@app.get("/openapi.json", include_in_schema=False)
def openapi() -> Response[Any]:
    return Response(200, "application/json", openapi_document())
