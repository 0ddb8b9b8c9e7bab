"""The whole API's OpenAPI document (every route of every HTTP function) and its Swagger page,
served by the query function (``/openapi.json``, ``/swagger``)."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from .api import ERROR_MEANING, JSON_MEDIA_TYPE, resolver
from .routes import bets, decisions, queries, tables, wallets

ROUTERS = (bets.router, decisions.router, tables.router, wallets.router, queries.router)

TITLE, VERSION = "Croupier", "0.1.0"
DOCUMENTS = {"/openapi.json": ("getOpenApi", "the OpenAPI document of every route", JSON_MEDIA_TYPE),
             "/swagger": ("getSwagger", "the Swagger page of the OpenAPI document", "text/html")}
SECURITY_SCHEME = "bearer"
TAGS = [{"name": "bets", "description": "a player's bets and bet record"},
        {"name": "decisions", "description": "a player's decisions in a blackjack round"},
        {"name": "tables", "description": "tables, seats, shoes and the device log"},
        {"name": "rounds", "description": "opening rounds, reading them, pausing, resuming and voiding them"},
        {"name": "wallets", "description": "balances, ledgers, deposits and withdrawals"},
        {"name": "documents", "description": "this document and its Swagger page"}]


def full_api() -> APIGatewayRestResolver:
    """Every route, for the OpenAPI document. Including a router makes it read the request of the
    resolver that included it last (its public ``api_resolver``): each router is handed back to
    the function's resolver it served, or a warm query function's routes would read no request
    after serving the document once."""
    app = resolver()
    serving = {id(router): router.api_resolver for router in ROUTERS}
    for router in ROUTERS:
        app.include_router(router)
    for router in ROUTERS:
        if serving[id(router)] is not None:
            router.api_resolver = serving[id(router)]
    return app


_document_cache: dict[str, dict[str, Any]] = {}


def openapi_document(server: str = "/") -> dict[str, Any]:
    """The whole API's OpenAPI document (every function's routes), served from ``server``: the
    bearer JWT scheme on every route but the two documents, each answer's model and every status
    it can answer, the one error model (Powertools' own validation error, which this API never
    sends, is left out)."""
    if "base" not in _document_cache:
        _document_cache["base"] = _build_document()
    document = json.loads(json.dumps(_document_cache["base"]))
    document["servers"] = [{"url": server, "description": "this API"}]
    return document


def _build_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(full_api().get_openapi_json_schema(
        title=TITLE, version=VERSION,
        description="Round settlement for live-dealer card tables. Amounts are integers in minor units. "
                    "Send a bearer token (Authorize); money-moving requests carry an Idempotency-Key header. "
                    'Every refusal is a 4xx with {"error": {"reason", "message"}}.'))
    document["components"]["securitySchemes"] = {SECURITY_SCHEME: {
        "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
        "description": "a Cognito ID token on AWS (its groups are the roles); locally a token of the local stack"}}
    document["security"] = [{SECURITY_SCHEME: []}]
    document["tags"] = TAGS
    for path, (operation_id, summary, media_type) in DOCUMENTS.items():
        document["paths"][path] = {"get": {
            "operationId": operation_id, "summary": summary, "tags": ["documents"], "security": [],
            "responses": {"200": {"description": "OK", "content": {media_type: {"schema": {"type": "object"}
                                                                               if media_type == JSON_MEDIA_TYPE
                                                                               else {"type": "string"}}}},
                          **{str(code): {"description": ERROR_MEANING[code],
                                         "content": {JSON_MEDIA_TYPE: {"schema": {
                                             "$ref": "#/components/schemas/ErrorBody"}}}} for code in (429, 502)}}}}
    schemas = document["components"]["schemas"]
    text = json.dumps(document["paths"])
    for unused in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        if f"#/components/schemas/{unused}" not in text:
            schemas.pop(unused, None)
    return document


SWAGGER_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Croupier API</title>
  <style>{css}</style>
</head>
<body>
  <div id="swagger-ui">Loading...</div>
  <script>{js}</script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: new URL("openapi.json", window.location.href).href,
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      tryItOutEnabled: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
      layout: "BaseLayout"
    }});
  </script>
</body>
</html>
"""


def swagger_page() -> str:
    """The Swagger page: it loads the whole document (``openapi.json`` beside it, under the stage
    on AWS); its Authorize button takes a bearer JWT. Swagger UI's script and style are the ones
    Powertools ships (no CDN: the page works where the API is reachable)."""
    if "page" not in _page_cache:
        from pathlib import Path as FilePath

        import aws_lambda_powertools.event_handler.openapi.swagger_ui as assets

        folder = FilePath(assets.__file__).parent
        js = (folder / "swagger-ui-bundle.min.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
        css = (folder / "swagger-ui.min.css").read_text(encoding="utf-8")
        _page_cache["page"] = SWAGGER_PAGE.format(js=js, css=css)
    return _page_cache["page"]


_page_cache: dict[str, str] = {}
