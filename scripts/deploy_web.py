"""Deploy the browser pages (``web/``) to the stack's bucket behind CloudFront (``make deploy-web``).

Reads the stack's outputs (API, WebSocket API, user pool client and hosted UI, bucket,
distribution), writes the ``config.json`` the page fetches (``mode: cognito``: it signs in through
the hosted UI, authorization code + PKCE), uploads every file of ``web/`` with its content type
and caching (``index.html`` and ``config.json`` revalidated, the rest cached an hour), then
invalidates the distribution. Needs your AWS credentials and region.

    .venv/bin/python scripts/deploy_web.py --stack croupier-dev [--region eu-west-1] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".js": "text/javascript; charset=utf-8", ".json": "application/json"}
REVALIDATE = ("index.html", "config.json")


def page_config(outputs: dict[str, str]) -> dict[str, Any]:
    """What the deployed page reads: where the APIs are and how to sign in."""
    return {"mode": "cognito", "api": outputs["ApiUrl"], "websocket": outputs["WebSocketUrl"],
            "cognito": {"domain": outputs["UserPoolHostedUi"], "client_id": outputs["UserPoolClientId"],
                        "redirect_uri": outputs["WebUrl"], "scopes": ["openid", "email", "profile"]}}


def files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in TYPES and not p.name.startswith("."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", required=True, help="the CloudFormation stack (samconfig.toml: croupier-dev)")
    parser.add_argument("--region", default=None)
    parser.add_argument("--dry-run", action="store_true", help="print config.json and the files, upload nothing")
    args = parser.parse_args(argv)
    import boto3

    session = boto3.session.Session(region_name=args.region)
    stacks = session.client("cloudformation").describe_stacks(StackName=args.stack)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    config = page_config(outputs)
    web = ROOT / "web"
    print(json.dumps(config, indent=2))
    if args.dry_run:
        for path in files(web):
            print(path.relative_to(web))
        return 0
    s3 = session.client("s3")
    bucket = outputs["WebBucketName"]
    uploads = [(str(p.relative_to(web)), p.read_bytes(), TYPES[p.suffix]) for p in files(web)]
    uploads.append(("config.json", json.dumps(config).encode(), TYPES[".json"]))
    for key, body, kind in uploads:
        cache = "no-cache" if key in REVALIDATE else "public, max-age=3600"
        s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType=kind, CacheControl=cache)
        print(f"uploaded {key} ({len(body):,} bytes)")
    session.client("cloudfront").create_invalidation(
        DistributionId=outputs["WebDistributionId"],
        InvalidationBatch={"Paths": {"Quantity": 1, "Items": ["/*"]}, "CallerReference": str(time.time())})
    print(f"the pages: {outputs['WebUrl']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
