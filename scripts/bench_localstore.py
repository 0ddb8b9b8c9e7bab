"""``make bench`` section ``localstore``: one DynamoDB query of one partition on the local stack's
moto as the table grows, with moto as it ships and with the local stack's patch (each in a process
of its own: the patch, once applied, stays for the process).

Run alone: ``python scripts/bench_localstore.py [--items N ...] [--patched]`` prints one JSON line
per size: milliseconds a query."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

QUERIES = 50
PER_PARTITION = 10


def measure(items: int, patched: bool) -> float:
    """Milliseconds a query of one partition takes on a table of ``items`` items (median of 3
    batches of :data:`QUERIES`)."""
    import boto3
    from moto import mock_aws

    if patched:
        from croupier.local import motopatch

        motopatch.apply()
    with mock_aws():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        table = resource.create_table(
            TableName="t", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
        with table.batch_writer() as batch:
            for i in range(items):
                batch.put_item(Item={"pk": f"P{i // PER_PARTITION}", "sk": f"S{i:06d}", "v": i})
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            for q in range(QUERIES):
                table.query(KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": f"P{(q * 37) % (items // PER_PARTITION)}"})
            runs.append((time.perf_counter() - start) * 1000 / QUERIES)
        return sorted(runs)[1]


def run_sizes(sizes: list[int], patched: bool) -> dict[int, float]:
    """Each size in a fresh process (moto's state and the patch are per process)."""
    out: dict[int, float] = {}
    for items in sizes:
        args = [sys.executable, __file__, "--items", str(items)] + (["--patched"] if patched else [])
        line = subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        out[items] = float(json.loads(line)["ms"])
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, required=True)
    parser.add_argument("--patched", action="store_true")
    args = parser.parse_args(argv)
    if args.items < PER_PARTITION:
        parser.error(f"--items: at least {PER_PARTITION}")
    result = {"items": args.items, "patched": args.patched, "ms": measure(args.items, args.patched)}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
